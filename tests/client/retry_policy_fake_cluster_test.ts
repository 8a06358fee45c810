/**
 * Lost replies against the fake cluster, through a proxy that lets a request take effect
 * and then cuts the connection before its answer: what the client sends again, and what it
 * resolves by reading instead.
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { APIOutcomeUnknownError } from "../../src/client/connection_errors.ts";
import { REQUEST_ID_ANNOTATION } from "../../src/client/creation.ts";
import { createObject, getObject, patchObject, replaceObject } from "../../src/client/objects.ts";
import { createEvent } from "../../src/client/events.ts";
import { type LoseReply, LossyProxy } from "./lossy_proxy.ts";
import { configmaps as CONFIGMAPS } from "../fixtures/discovered.ts";

/** A client of the cluster through a proxy that loses the replies it is told to. */
async function lossy(lose: LoseReply) {
  const cluster = await FakeCluster.start();
  const proxy = new LossyProxy(cluster.url, lose);
  const info = { ...cluster.connectionInfo, server: proxy.url };
  const vault = new Vault({ relogin: () => Promise.resolve({ lossy: info }) });
  const api = new ApiClient(vault, { networking: { errorBackoffs: [0.01, 0.01, 0.01] } });
  return {
    cluster,
    proxy,
    api,
    /** Method and lost flag of every request the proxy passed on. */
    seen: () => proxy.requests.map((r) => `${r.method} ${r.lost ? "lost" : "answered"}`),
    async [Symbol.asyncDispose]() {
      await api.close();
      await proxy.close();
      await cluster.stop();
    },
  };
}

/** Lose the reply (or the request) of the first request with this method. */
function firstOf(method: string, loss: "reply" | "request" = "reply"): LoseReply {
  let lost = false;
  return (request) => {
    if (lost || request.method !== method) return false;
    lost = true;
    return loss;
  };
}

Deno.test("a create with generateName whose reply is lost makes exactly one object and returns it", async () => {
  await using t = await lossy(firstOf("POST"));
  const created = await createObject(t.api, CONFIGMAPS, {
    metadata: { generateName: "lost-", namespace: "default" },
    data: { a: "1" },
  });
  const made = t.cluster.list("configmaps").filter((o) => o.metadata?.generateName === "lost-");
  assertEquals(made.length, 1, "one object, not two");
  assertEquals(created.metadata?.name, made[0].metadata?.name);
  assertEquals(created.metadata?.uid, made[0].metadata?.uid);
  assertEquals((created as { data?: unknown }).data, { a: "1" });
  // The second POST is answered 409 (the name is taken, by the first); the GET finds the stamp.
  assertEquals(t.seen(), ["POST lost", "POST answered", "GET answered"]);
  assert(created.metadata?.annotations?.[REQUEST_ID_ANNOTATION]);
});

Deno.test("a create with a given name whose reply is lost is resolved as created by the first attempt", async () => {
  await using t = await lossy(firstOf("POST"));
  const created = await createObject(t.api, CONFIGMAPS, {
    metadata: { name: "fixed", namespace: "default" },
  });
  assertEquals(created.metadata?.name, "fixed");
  assertEquals(t.cluster.list("configmaps").filter((o) => o.metadata?.name === "fixed").length, 1);
  assertEquals(t.seen(), ["POST lost", "POST answered", "GET answered"]);
});

Deno.test("a create whose name another object took meanwhile is that object's 409, not a success", async () => {
  const another: { cluster?: FakeCluster } = {};
  // The first POST is lost on its way; meanwhile another client makes an object of its name.
  await using t = await lossy((request, index) => {
    if (request.method !== "POST" || index !== 0) return false;
    another.cluster!.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "contested", namespace: "default" },
      data: { owner: "another" },
    });
    return "request";
  });
  another.cluster = t.cluster;
  const error = await assertRejects(() =>
    createObject(t.api, CONFIGMAPS, { metadata: { name: "contested", namespace: "default" } })
  );
  assertEquals((error as { code?: number }).code, 409);
  assertEquals(t.seen(), ["POST lost", "POST answered", "GET answered"]);
  const stored = t.cluster.get("configmaps", "contested");
  assertEquals((stored as { data?: unknown }).data, { owner: "another" });
});

Deno.test("an Event whose reply is lost is posted once", async () => {
  await using t = await lossy(firstOf("POST"));
  await createEvent(t.api, "default", {
    apiVersion: "v1",
    kind: "Event",
    metadata: { namespace: "default", generateName: "kopf-event-" },
    involvedObject: { apiVersion: "v1", kind: "ConfigMap", name: "x", namespace: "default" },
    reason: "Logging",
    message: "once",
    type: "Normal",
  });
  assertEquals(t.cluster.list("events").length, 1);
  assertEquals(t.seen(), ["POST lost", "POST answered", "GET answered"]);
});

Deno.test("a JSON patch with a test whose reply is lost is not sent again: the outcome is unknown", async () => {
  await using t = await lossy(firstOf("PATCH"));
  const made = t.cluster.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "guarded", namespace: "default" },
    data: { a: "1" },
  });
  const version = made.metadata!.resourceVersion!;
  const error = await assertRejects(
    () =>
      patchObject(t.api, CONFIGMAPS, { name: "guarded", namespace: "default" }, [
        { op: "test", path: "/metadata/resourceVersion", value: version },
        { op: "replace", path: "/data/a", value: "2" },
      ], { type: "json" }),
    APIOutcomeUnknownError,
  );
  assertStringIncludes(error.message, "may or may not have taken effect");
  assertStringIncludes(error.message, "test");
  assertEquals(t.seen(), ["PATCH lost"], "sent once: no second attempt to fail its test");
  assertEquals((t.cluster.get("configmaps", "guarded") as { data?: unknown }).data, { a: "2" });
});

Deno.test("a merge patch whose reply is lost is sent again", async () => {
  await using t = await lossy(firstOf("PATCH"));
  t.cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "m" } });
  const patched = await patchObject(t.api, CONFIGMAPS, { name: "m", namespace: "default" }, {
    data: { b: "2" },
  });
  assertEquals((patched as { data?: unknown }).data, { b: "2" });
  assertEquals(t.seen(), ["PATCH lost", "PATCH answered"]);
});

Deno.test("a GET whose reply is lost is sent again", async () => {
  await using t = await lossy(firstOf("GET"));
  t.cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "g" } });
  const got = await getObject(t.api, CONFIGMAPS, { name: "g", namespace: "default" });
  assertEquals(got.metadata?.name, "g");
  assertEquals(t.seen(), ["GET lost", "GET answered"]);
});

Deno.test("a PUT with a resourceVersion whose request is lost is sent again", async () => {
  await using t = await lossy(firstOf("PUT", "request"));
  const made = t.cluster.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "p", namespace: "default" },
    data: { a: "1" },
  });
  const replaced = await replaceObject(t.api, CONFIGMAPS, { name: "p", namespace: "default" }, {
    ...made,
    data: { a: "2" },
  });
  assertEquals((replaced as { data?: unknown }).data, { a: "2" });
  assertEquals(t.seen(), ["PUT lost", "PUT answered"]);
});

Deno.test("a PUT with a resourceVersion whose reply is lost goes again and cannot overwrite", async () => {
  await using t = await lossy(firstOf("PUT"));
  const made = t.cluster.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "p", namespace: "default" },
    data: { a: "1" },
  });
  // The first PUT takes effect and its reply is lost: the second finds a newer version and
  // is refused with 409 — never overwriting a change. The caller reads again, as after any
  // conflict.
  const error = await assertRejects(() =>
    replaceObject(t.api, CONFIGMAPS, { name: "p", namespace: "default" }, {
      ...made,
      data: { a: "2" },
    })
  );
  assertEquals((error as { code?: number }).code, 409);
  assertEquals(t.seen(), ["PUT lost", "PUT answered"]);
  assertEquals((t.cluster.get("configmaps", "p") as { data?: unknown }).data, { a: "2" });
});

Deno.test("a PUT without a resourceVersion is not sent again, even if it was lost unanswered", async () => {
  await using t = await lossy(firstOf("PUT", "request"));
  t.cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "u" } });
  const error = await assertRejects(
    () =>
      replaceObject(t.api, CONFIGMAPS, { name: "u", namespace: "default" }, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "u", namespace: "default" },
        data: { a: "blind" },
      }),
    APIOutcomeUnknownError,
  );
  assertStringIncludes(error.message, "resourceVersion");
  assertEquals(t.seen(), ["PUT lost"]);
});
