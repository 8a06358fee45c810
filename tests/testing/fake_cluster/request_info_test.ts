/**
 * The authorizer's attributes of HTTP requests, read from the URL as kube-apiserver's
 * RequestInfoFactory reads them.
 */
import { requestAttributes } from "../../../src/testing/fake_cluster/request_info.ts";
import { requestPathOf } from "../../../src/testing/fake_cluster/request_path.ts";
import { assertEquals } from "../../assert.ts";

const user = { username: "alice", groups: [] };

function of(method: string, path: string) {
  const url = new URL(`http://x${path}`);
  const { user: _, ...rest } = requestAttributes(
    method,
    requestPathOf(url),
    url.searchParams,
    user,
  );
  return rest;
}

Deno.test("request info: verbs of collections and objects, namespaces and subresources", () => {
  assertEquals(of("GET", "/api/v1/namespaces/default/pods"), {
    verb: "list",
    resourceRequest: true,
    apiGroup: "",
    apiVersion: "v1",
    resource: "pods",
    subresource: "",
    namespace: "default",
    name: "",
  });
  const patch = of("PATCH", "/apis/kopf.dev/v1/namespaces/ns1/kopfexamples/e1/status");
  assertEquals(
    [patch.verb, patch.apiGroup, patch.resource, patch.subresource, patch.namespace, patch.name],
    ["patch", "kopf.dev", "kopfexamples", "status", "ns1", "e1"],
  );
  assertEquals(of("DELETE", "/api/v1/namespaces/default/configmaps").verb, "deletecollection");
  assertEquals(of("DELETE", "/api/v1/namespaces/default/configmaps/x").verb, "delete");
  assertEquals(of("POST", "/api/v1/namespaces/default/configmaps").verb, "create");
  assertEquals(of("PUT", "/api/v1/namespaces/default/configmaps/x").verb, "update");
  const token = of("POST", "/api/v1/namespaces/default/serviceaccounts/op/token");
  assertEquals([token.verb, token.resource, token.subresource, token.name], [
    "create",
    "serviceaccounts",
    "token",
    "op",
  ]);
  const all = of("GET", "/apis/apps/v1/deployments");
  assertEquals([all.verb, all.namespace], ["list", ""]);
});

Deno.test("request info: watches by parameter or path; a name pinned by metadata.name counts", () => {
  assertEquals(of("GET", "/api/v1/pods?watch=true").verb, "watch");
  assertEquals(of("GET", "/api/v1/watch/namespaces/default/pods").verb, "watch");
  const pinned = of("GET", "/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dp1");
  assertEquals([pinned.verb, pinned.name], ["list", "p1"]);
  const watched = of(
    "GET",
    "/api/v1/namespaces/default/pods?watch=1&fieldSelector=metadata.name==p1",
  );
  assertEquals([watched.verb, watched.name], ["watch", "p1"]);
  const other = of("GET", "/api/v1/namespaces/default/pods?fieldSelector=status.phase%3DRunning");
  assertEquals([other.verb, other.name], ["list", ""]);
});

Deno.test("request info: a namespace is in its own namespace; its status and finalize too", () => {
  const ns = of("GET", "/api/v1/namespaces/dev");
  assertEquals([ns.verb, ns.resource, ns.name, ns.namespace], ["get", "namespaces", "dev", "dev"]);
  const status = of("PUT", "/api/v1/namespaces/dev/status");
  assertEquals([status.resource, status.name, status.subresource, status.namespace], [
    "namespaces",
    "dev",
    "status",
    "dev",
  ]);
  assertEquals(of("GET", "/api/v1/namespaces").verb, "list");
});

Deno.test("request info: discovery, /version and others are non-resource requests", () => {
  for (const path of ["/api", "/api/v1", "/apis", "/apis/kopf.dev", "/apis/kopf.dev/v1"]) {
    assertEquals(of("GET", path), { verb: "get", resourceRequest: false, path });
  }
  assertEquals(of("GET", "/openapi/v2").resourceRequest, false);
  assertEquals(of("POST", "/version"), { verb: "post", resourceRequest: false, path: "/version" });
});

Deno.test("request info: a path with doubled slashes is read as the router reads it", () => {
  const attributes = of("GET", "//apis/apps/v1/namespaces/default/deployments/web");
  assertEquals(
    [attributes.verb, attributes.apiGroup, attributes.resource, attributes.name],
    ["get", "apps", "deployments", "web"],
  );
  assertEquals(
    of("DELETE", "/apis//apps/v1/namespaces//default/deployments").verb,
    "deletecollection",
  );
  assertEquals(of("GET", "//version"), { verb: "get", resourceRequest: false, path: "//version" });
});
