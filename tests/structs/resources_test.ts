import { assertEquals, assertThrows } from "../assert.ts";
import { Resource } from "../../src/structs/resources.ts";
import { UsageError } from "../../src/structs/errors.ts";

const KEX = new Resource({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfexamples",
  namespaced: true,
});
const PODS = new Resource({ group: "", version: "v1", plural: "pods", namespaced: true });
const NODES = new Resource({ group: "", version: "v1", plural: "nodes", namespaced: false });

Deno.test("resource URLs: core and named groups, namespaces, names, subresources", () => {
  assertEquals(PODS.getUrl(), "/api/v1/pods");
  assertEquals(KEX.getUrl(), "/apis/kopf.dev/v1/kopfexamples");
  assertEquals(KEX.getUrl({ namespace: "ns" }), "/apis/kopf.dev/v1/namespaces/ns/kopfexamples");
  assertEquals(
    KEX.getUrl({ namespace: "n s", name: "a:b?", subresource: "status" }),
    "/apis/kopf.dev/v1/namespaces/n%20s/kopfexamples/a%3Ab%3F/status",
  );
  assertEquals(NODES.getUrl({ name: "node-1" }), "/api/v1/nodes/node-1");
});

Deno.test("resource URLs: query parameters without undefined ones, and a server prefix", () => {
  assertEquals(PODS.getUrl({ params: {} }), "/api/v1/pods");
  assertEquals(
    PODS.getUrl({ params: { limit: 10, watch: true, continue: undefined } }),
    "/api/v1/pods?limit=10&watch=true",
  );
  assertEquals(
    PODS.getUrl({ server: "https://k8s.example:6443//", namespace: "x" }),
    "https://k8s.example:6443/api/v1/namespaces/x/pods",
  );
});

Deno.test("resource URLs: a subresource needs a name; cluster-scoped ones take no namespace", () => {
  assertThrows(() => KEX.getUrl({ subresource: "status" }), UsageError, "needs an object name");
  assertThrows(() => NODES.getUrl({ namespace: "ns" }), UsageError, "cluster-scoped");
});

Deno.test("resource URLs: names that cannot be one path segment are refused, naming what and where", () => {
  for (const bad of [".", "..", "a/b", "../x", "50%", ""]) {
    const error = assertThrows(() => KEX.getUrl({ namespace: "ns", name: bad }), UsageError);
    assertEquals(
      error.message.startsWith(`The name ${JSON.stringify(bad)} for kopfexamples.v1.kopf.dev`),
      true,
      error.message,
    );
    assertThrows(() => PODS.getUrl({ namespace: bad }), UsageError, `The namespace`);
  }
  assertThrows(
    () => KEX.getUrl({ namespace: "ns", name: "x", subresource: "../status" }),
    UsageError,
    "The subresource",
  );
  assertEquals(
    KEX.getUrl({ namespace: "ns", name: "...x" }),
    "/apis/kopf.dev/v1/namespaces/ns/kopfexamples/...x",
  );
});
