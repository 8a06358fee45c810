/**
 * Operations on a scripted API server: discovery (cached, refreshable), paginated lists,
 * get/create/patch/delete on objects and the status subresource, event creation, and
 * the incremental JSON-lines parser at every split point.
 */
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { Discovery } from "../../src/client/discovery.ts";
import {
  createObject,
  deleteObject,
  getObject,
  listObjects,
  patchObject,
} from "../../src/client/objects.ts";
import { createEvent } from "../../src/client/events.ts";
import { buildEventBody } from "../../src/structs/k8s_events.ts";
import { JsonLineError, parseJsonLines } from "../../src/client/json_lines.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { json, KEX, list, obj, ScriptedServer } from "./scripted_server.ts";
import { UsageError } from "../../src/structs/errors.ts";

function discoveryServer(): ScriptedServer {
  return ScriptedServer.start((request) => {
    switch (request.path) {
      case "/version":
        return json({ major: "1", minor: "32", gitVersion: "v1.32.0" });
      case "/api":
        return json({ kind: "APIVersions", versions: ["v1"] });
      case "/apis":
        return json({
          kind: "APIGroupList",
          groups: [{
            name: "kopf.dev",
            versions: [{ groupVersion: "kopf.dev/v1", version: "v1" }, {
              groupVersion: "kopf.dev/v1beta1",
              version: "v1beta1",
            }],
            preferredVersion: { groupVersion: "kopf.dev/v1", version: "v1" },
          }, {
            name: "metrics.k8s.io",
            versions: [{ groupVersion: "metrics.k8s.io/v1beta1", version: "v1beta1" }],
          }],
        });
      case "/api/v1":
        return json({
          groupVersion: "v1",
          resources: [
            {
              name: "pods",
              singularName: "pod",
              namespaced: true,
              kind: "Pod",
              verbs: ["get", "list", "watch"],
              shortNames: ["po"],
              categories: ["all"],
            },
            {
              name: "pods/status",
              singularName: "",
              namespaced: true,
              kind: "Pod",
              verbs: ["get", "patch"],
            },
            { name: "pods/log", singularName: "", namespaced: true, kind: "Pod", verbs: ["get"] },
            {
              name: "namespaces",
              singularName: "namespace",
              namespaced: false,
              kind: "Namespace",
              verbs: ["list"],
            },
          ],
        });
      case "/apis/kopf.dev/v1":
      case "/apis/kopf.dev/v1beta1":
        return json({
          groupVersion: request.path.slice(6),
          resources: [
            {
              name: "kopfexamples",
              singularName: "kopfexample",
              namespaced: true,
              kind: "KopfExample",
              verbs: ["list", "watch", "patch"],
              shortNames: ["kex"],
            },
            {
              name: "kopfexamples/status",
              singularName: "",
              namespaced: true,
              kind: "KopfExample",
              verbs: ["patch"],
            },
          ],
        });
      default: // an aggregated API that is down
        return json({ kind: "Status", code: 503, reason: "ServiceUnavailable" }, 503);
    }
  });
}

Deno.test("discovery yields resource records with subresources and preferred versions, cached until refreshed", async () => {
  await using server = discoveryServer();
  await using api = server.client();
  const discovery = new Discovery(api);
  assertEquals((await discovery.version()).gitVersion, "v1.32.0");
  const resources = await discovery.resources();
  assertEquals(resources.map((r) => r.toString()), [
    "pods.v1",
    "namespaces.v1",
    "kopfexamples.v1.kopf.dev",
    "kopfexamples.v1beta1.kopf.dev",
  ]);
  const pods = resources[0];
  assertEquals(
    [pods.kind, pods.singular, pods.shortcuts, pods.categories, pods.subresources, pods.namespaced],
    ["Pod", "pod", ["po"], ["all"], ["status", "log"], true],
  );
  assertEquals(pods.verbs, ["get", "list", "watch"]);
  assertEquals(resources[1].namespaced, false);
  assertEquals(resources.filter((r) => r.group === "kopf.dev").map((r) => r.preferred), [
    true,
    false,
  ]);
  const served = server.requests.length;
  await discovery.resources();
  assertEquals(server.requests.length, served, "cached: no re-discovery");
  discovery.refresh();
  await discovery.resources();
  assert(server.requests.length > served, "refresh discovers again");
});

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
  assertEquals(JSON.parse(server.requests[1].body), {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "x", namespace: "ns" },
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

Deno.test("an event is created with the given body in the given namespace, and the created one returned", async () => {
  await using server = ScriptedServer.start((request) =>
    json({ ...JSON.parse(request.body), kind: "Event", metadata: { name: "kopf-event-x" } }, 201)
  );
  await using api = server.client();
  const body = buildEventBody(
    {
      ref: { apiVersion: "kopf.dev/v1", kind: "KopfExample", name: "kex", uid: "uid-1" },
      type: "Normal",
      reason: "Logging",
      message: "hi",
    },
    {
      namespace: "ns",
      now: new Date("2030-05-06T07:08:09.123Z"),
      reportingComponent: "kopf",
      reportingInstance: "dev",
      generateName: "kopf-event-",
    },
  );
  const created = await createEvent(api, "ns", body);
  assertEquals(created.metadata, { name: "kopf-event-x" });
  assertEquals(server.requests.length, 1);
  assertEquals([server.requests[0].method, server.requests[0].path], [
    "POST",
    "/api/v1/namespaces/ns/events",
  ]);
  assertEquals(JSON.parse(server.requests[0].body), body); // the body as built, unchanged
  assertEquals(body.eventTime, "2030-05-06T07:08:09.123000Z");
  assertEquals(body.firstTimestamp, "2030-05-06T07:08:09.123000Z");
});

Deno.test("JSON lines split at every possible byte pair parse to the same values", async () => {
  const values = [{ a: "é日本🚀" }, { b: [1, 2, { c: "ü" }] }, { d: null }];
  const bytes = new TextEncoder().encode(values.map((v) => JSON.stringify(v)).join("\n") + "\n");
  for (let i = 1; i < bytes.length; i++) {
    for (let j = i; j < bytes.length; j += 3) {
      const chunks = [bytes.slice(0, i), bytes.slice(i, j), bytes.slice(j)];
      const parsed: unknown[] = [];
      for await (const value of parseJsonLines(toAsync(chunks))) parsed.push(value);
      assertEquals(parsed, values, `split at ${i} and ${j}`);
    }
  }
});

Deno.test("a last line without a newline is parsed; a garbage line is a JsonLineError", async () => {
  const enc = new TextEncoder();
  const parsed: unknown[] = [];
  for await (const v of parseJsonLines(toAsync([enc.encode('{"x":1}\n\n{"y":2}')]))) parsed.push(v);
  assertEquals(parsed, [{ x: 1 }, { y: 2 }]);
  await assertRejects(async () => {
    for await (const _ of parseJsonLines(toAsync([enc.encode("{oops}\n")]))) { /* drain */ }
  }, JsonLineError);
});

async function* toAsync(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) yield chunk;
}

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
