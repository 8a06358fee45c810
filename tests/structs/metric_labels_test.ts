import { assertEquals } from "../assert.ts";
import { requestLabels, resourceLabel } from "../../src/structs/metric_labels.ts";

Deno.test("requests are labelled by verb and resource, never by object name", () => {
  const cases: [string, string, [string, string]][] = [
    ["GET", "/apis/kopf.dev/v1/namespaces/ns/kopfexamples/x", ["get", "kopfexamples.kopf.dev"]],
    ["GET", "/apis/kopf.dev/v1/namespaces/ns/kopfexamples?limit=5", [
      "list",
      "kopfexamples.kopf.dev",
    ]],
    ["GET", "/apis/kopf.dev/v1/kopfexamples?watch=true&resourceVersion=3", [
      "watch",
      "kopfexamples.kopf.dev",
    ]],
    ["PATCH", "/apis/kopf.dev/v1/namespaces/ns/kopfexamples/x/status", [
      "patch",
      "kopfexamples.kopf.dev/status",
    ]],
    ["POST", "/api/v1/namespaces/ns/events", ["create", "events"]],
    ["GET", "/api/v1/namespaces/default", ["get", "namespaces"]],
    ["DELETE", "/api/v1/namespaces/ns/pods", ["deletecollection", "pods"]],
    ["GET", "/apis", ["list", "discovery"]],
    ["GET", "/version", ["get", "nonresource"]],
  ];
  for (const [method, path, expected] of cases) {
    assertEquals(requestLabels(method, path), expected, `${method} ${path}`);
  }
});

Deno.test("resources are labelled plural.group, or plural in the core group", () => {
  assertEquals(
    resourceLabel({ plural: "kopfexamples", group: "kopf.dev" }),
    "kopfexamples.kopf.dev",
  );
  assertEquals(resourceLabel({ plural: "pods", group: "" }), "pods");
});
