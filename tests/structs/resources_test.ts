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
    KEX.getUrl({ namespace: "n s", name: "a/b", subresource: "status" }),
    "/apis/kopf.dev/v1/namespaces/n%20s/kopfexamples/a%2Fb/status",
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
