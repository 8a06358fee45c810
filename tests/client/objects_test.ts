/**
 * Operations on a scripted API server: paginated lists, get/create/patch/delete on
 * objects and the status subresource, and the default namespace of the credentials.
 */
import { assertEquals, assertMatch, assertRejects } from "../assert.ts";
import { REQUEST_ID_ANNOTATION } from "../../src/client/creation.ts";
import {
  createObject,
  deleteObject,
  getObject,
  listObjects,
  patchObject,
} from "../../src/client/objects.ts";
import { ApiClient } from "../../src/client/api.ts";
import { currentVersion } from "../../src/client/current_versions.ts";
import { Vault } from "../../src/client/vault.ts";
import { json, KEX, list, obj, ScriptedServer } from "./scripted_server.ts";
import { UsageError } from "../../src/structs/errors.ts";
import { Resource } from "../../src/structs/resources.ts";

Deno.test("a list follows continue tokens through all pages and fills apiVersion and kind", async () => {
  await using server = ScriptedServer.start((request) => {
    const token = request.query.get("continue");
    if (!token) return list([obj("a", "1"), obj("b", "2")], "7", "page2");
    if (token === "page2") return list([obj("c", "3")], "7", "page3");
    return list([], "7");
  });
  await using api = server.client();
  const result = await listObjects(api, KEX, { namespace: "ns", limit: 2, labelSelector: "app=x" });
  assertEquals(result.resourceVersion, "7");
  assertEquals(result.items.map((i) => i.metadata?.name), ["a", "b", "c"]);
  assertEquals(result.items[0].apiVersion, "kopf.dev/v1");
  assertEquals(result.items[0].kind, "KopfExample");
  assertEquals(server.requests.map((r) => r.query.get("continue")), [null, "page2", "page3"]);
  assertEquals(server.requests.map((r) => r.query.get("limit")), ["2", "2", "2"]);
  assertEquals(server.requests[0].query.get("labelSelector"), "app=x");
});

Deno.test("a list's pages are asked for compressed (over fetch); a version's lookup and a get are not", async () => {
  await using server = ScriptedServer.start((request) => {
    if (request.method === "GET" && request.path.endsWith("/x")) return json(obj("x", "5"));
    return list([obj("a", "1")], "7");
  });
  await using api = server.client();
  await listObjects(api, KEX, { namespace: "ns", limit: 2 });
  await currentVersion(api, KEX, { namespace: "ns" });
  await getObject(api, KEX, { namespace: "ns", name: "x" });
  // Deno's fetch asks for compression by itself; the client's own connections do not.
  const asked = server.requests.map((
    r,
  ) => [r.query.get("limit"), r.headers.has("accept-encoding")]);
  assertEquals(asked, [["2", true], ["1", false], [null, false]]);
});

Deno.test("get, create, patch (merge and JSON, object and status) and delete send the right requests", async () => {
  await using server = ScriptedServer.start((request) =>
    json({ echoed: request.method, metadata: { name: "x" } }, request.method === "POST" ? 201 : 200)
  );
  await using api = server.client();
  const ref = { namespace: "ns", name: "x" };
  await getObject(api, KEX, ref);
  await createObject(api, KEX, { metadata: { name: "x", namespace: "ns" }, spec: { a: 1 } });
  await patchObject(api, KEX, ref, { spec: { a: 2 } });
  await patchObject(api, KEX, ref, { status: { ok: true } }, { subresource: "status" });
  await patchObject(api, KEX, ref, [{ op: "remove", path: "/metadata/finalizers/0" }], {
    type: "json",
  });
  await deleteObject(api, KEX, ref, {
    propagationPolicy: "Foreground",
    preconditions: { uid: "u-1", resourceVersion: "9" },
  });
  const seen = server.requests.map((r) => [r.method, r.path, r.headers.get("content-type")]);
  const base = "/apis/kopf.dev/v1/namespaces/ns/kopfexamples";
  assertEquals(seen, [
    ["GET", `${base}/x`, null],
    ["POST", base, "application/json"],
    ["PATCH", `${base}/x`, "application/merge-patch+json"],
    ["PATCH", `${base}/x/status`, "application/merge-patch+json"],
    ["PATCH", `${base}/x`, "application/json-patch+json"],
    ["DELETE", `${base}/x`, "application/json"],
  ]);
  const created = JSON.parse(server.requests[1].body);
  const stamp = created.metadata.annotations[REQUEST_ID_ANNOTATION];
  assertMatch(stamp, /^[0-9a-f-]{36}$/, "the create's stamp, to resolve a lost reply");
  assertEquals(created, {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "x", namespace: "ns", annotations: { [REQUEST_ID_ANNOTATION]: stamp } },
    spec: { a: 1 },
  });
  assertEquals(JSON.parse(server.requests[4].body), [{
    op: "remove",
    path: "/metadata/finalizers/0",
  }]);
  assertEquals(JSON.parse(server.requests[5].body), {
    apiVersion: "v1",
    kind: "DeleteOptions",
    propagationPolicy: "Foreground",
    preconditions: { uid: "u-1", resourceVersion: "9" },
  });
});

Deno.test("wrong patch shapes and missing namespaces are refused before any request", async () => {
  await using server = ScriptedServer.start(() => json({}));
  await using api = server.client();
  await assertRejects(
    () => patchObject(api, KEX, { namespace: "ns", name: "x" }, { a: 1 }, { type: "json" }),
    UsageError,
    "list of operations",
  );
  await assertRejects(() => getObject(api, KEX, { name: "x" }), UsageError, "needs a namespace");
  assertEquals(server.requests.length, 0);
});

Deno.test("names and namespaces that are not one path segment are refused before any request", async () => {
  await using server = ScriptedServer.start(() => json({}));
  await using api = server.client();
  const secrets = new Resource({ group: "", version: "v1", plural: "secrets", namespaced: true });
  // ".." would have been resolved by the URL parser: DELETE /api/v1/namespaces/tenant-a/
  await assertRejects(
    () => deleteObject(api, secrets, { namespace: "tenant-a", name: ".." }),
    UsageError,
    'The name ".." for secrets.v1 cannot be used',
  );
  await assertRejects(() => deleteObject(api, secrets, { namespace: "..", name: "x" }), UsageError);
  await assertRejects(() => getObject(api, secrets, { namespace: "a", name: "." }), UsageError);
  await assertRejects(() => getObject(api, secrets, { namespace: "a", name: "b/c" }), UsageError);
  await assertRejects(() => getObject(api, secrets, { namespace: "a", name: "%2e" }), UsageError);
  await assertRejects(() => getObject(api, secrets, { namespace: "a", name: "" }), UsageError);
  await assertRejects(
    () => patchObject(api, secrets, { namespace: "a", name: "x" }, {}, { subresource: ".." }),
    UsageError,
    "The subresource",
  );
  await assertRejects(
    () => createObject(api, secrets, { metadata: { namespace: "a", name: ".." } }),
    UsageError,
  );
  assertEquals(server.requests.length, 0);
});

Deno.test("calls without a namespace use the credentials' default namespace", async () => {
  await using server = ScriptedServer.start(() => json({ metadata: { name: "x" } }));
  const vault = new Vault();
  vault.populate({ ctx: { server: server.url, defaultNamespace: "team-a" } });
  await using api = new ApiClient(vault);
  await getObject(api, KEX, { name: "x" });
  await createObject(api, KEX, { metadata: { name: "y" } });
  assertEquals(server.requests.map((r) => r.path), [
    "/apis/kopf.dev/v1/namespaces/team-a/kopfexamples/x",
    "/apis/kopf.dev/v1/namespaces/team-a/kopfexamples",
  ]);
});
