/**
 * Continuity across operator restarts: a retry interrupted by a restart continues where it
 * was (succeeded handlers are not run again), changes made while the operator was down are
 * handled at start, and objects with progress written by Python Kopf are taken over.
 */
import { assertEquals } from "../assert.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { TemporaryError } from "../../src/structs/errors.ts";
import { on } from "../../src/intents/registration.ts";
import {
  Calls,
  clusterRegistry,
  DIFFBASE,
  handled,
  kex,
  patchesOf,
  startCluster,
  whileRunning,
} from "./harness.ts";
import { wallClockAt } from "../clocks.ts";

Deno.test("restart mid-retry: the next operator continues; succeeded handlers do not re-run", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, function first({ retry }) {
    calls.add(`first ${retry}`);
  });
  on.create("kopfexamples", { registry }, function second({ retry }) {
    calls.add(`second ${retry}`);
    if (retry === 0) throw new TemporaryError("an hour later", { delay: 3600 });
    return "finally";
  });
  const t0 = Date.now();
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    // Whatever the lifecycle: until the second handler's first failure is stored.
    await cluster.waitFor(
      "kopfexamples",
      "kex1",
      (b) =>
        b?.metadata?.annotations?.["kopf.zalando.org/second"]?.includes('"retries":1') ?? false,
    );
  }, { clock: wallClockAt(t0) });
  assertEquals(calls.list, ["first 0", "second 0"]);

  // An hour later, another operator process.
  let body: RawBody | undefined;
  await whileRunning(registry, async () => {
    body = await cluster.waitFor("kopfexamples", "kex1", handled);
  }, { clock: wallClockAt(t0 + 3600_500) });
  assertEquals(calls.list, ["first 0", "second 0", "second 1"]);
  assertEquals((body?.status as Record<string, unknown>).second, "finally");
  assertEquals(Object.keys(body?.metadata?.annotations ?? {}), [DIFFBASE]);
});

Deno.test("changes made while the operator was down are handled at start, once", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, ({ name }) => calls.add(`create ${name}`));
  on.update("kopfexamples", { registry }, ({ name, old, new: neu }) => {
    const spec = (x: unknown) => JSON.stringify((x as RawBody).spec);
    calls.add(`update ${name} ${spec(old)} → ${spec(neu)}`);
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    await cluster.waitFor("kopfexamples", "kex1", handled);
  });
  cluster.patch("kopfexamples", "kex1", { spec: { field: "changed while down" } });
  cluster.create(kex("kex2"));
  await whileRunning(registry, async () => {
    await cluster.waitFor("kopfexamples", "kex2", handled);
    await cluster.waitFor(
      "kopfexamples",
      "kex1",
      (b) => b?.metadata?.annotations?.[DIFFBASE]?.includes("changed while down") ?? false,
    );
  });
  assertEquals(calls.list.toSorted(), [
    "create kex1",
    "create kex2",
    'update kex1 {"field":"value"} → {"field":"changed while down"}',
  ]);
});

Deno.test("an object mid-cycle under Python Kopf is taken over without re-running its successes", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, function create_fn_1() {
    calls.add("create_fn_1");
  });
  on.create("kopfexamples", { registry }, function create_fn_2({ retry, started }) {
    calls.add(`create_fn_2 retry=${retry} started=${started.toISOString()}`);
  });
  // As written by Kopf: the first handler succeeded, the second failed once and is due.
  const done = '{"started":"2021-03-04T05:06:07.123456+00:00",' +
    '"stopped":"2021-03-04T05:06:07.234567+00:00","purpose":"create","retries":1,' +
    '"success":true,"failure":false}';
  const retrying =
    '{"started":"2021-03-04T05:06:07.345678","delayed":"2021-03-04T05:07:07.345678",' +
    '"purpose":"create","retries":1,"success":false,"failure":false,"message":"boom"}';
  cluster.create(kex("kex1", {}, {
    metadata: {
      annotations: {
        "kopf.zalando.org/create_fn_1": done,
        "kopf.zalando.org/create_fn_2": retrying,
        "kopf.zalando.org/other_operators_fn": '{"started":"2021-03-04T05:06:07.000000+00:00"}',
      },
    },
  }));
  let body: RawBody | undefined;
  await whileRunning(registry, async () => {
    body = await cluster.waitFor("kopfexamples", "kex1", handled);
  });
  assertEquals(calls.list, ["create_fn_2 retry=1 started=2021-03-04T05:06:07.345Z"]);
  // Our records are purged; another operator's record is left alone.
  assertEquals(Object.keys(body?.metadata?.annotations ?? {}).toSorted(), [
    DIFFBASE,
    "kopf.zalando.org/other_operators_fn",
  ]);
});

Deno.test("the status subresource: results via /status, the rest in one merge patch", async () => {
  await using cluster = await startCluster({ status: true });
  const registry = clusterRegistry(cluster);
  on.create("kopfexamples", { registry }, function create_fn({ patch }) {
    patch.metadata.labels.touched = "yes";
    return { ok: true };
  });
  let body: RawBody | undefined;
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    body = await cluster.waitFor(
      "kopfexamples",
      "kex1",
      (b) =>
        handled(b) && (b?.status as Record<string, unknown> | undefined)?.create_fn !== undefined,
    );
  });
  assertEquals((body?.status as Record<string, unknown>).create_fn, { ok: true });
  assertEquals(body?.metadata?.labels, { touched: "yes" });
  assertEquals(patchesOf(cluster, "kex1").toSorted(), [
    "/apis/kopf.dev/v1/namespaces/default/kopfexamples/kex1",
    "/apis/kopf.dev/v1/namespaces/default/kopfexamples/kex1/status",
  ]);
});

Deno.test("rapid changes: each state is handled at most once, the latest one always", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const seen = new Calls<string>();
  on.create("kopfexamples", { registry }, ({ name, spec }) => seen.add(`${name}=${spec.field}`));
  on.update("kopfexamples", { registry }, ({ name, spec }) => seen.add(`${name}=${spec.field}`));
  const names = Array.from({ length: 30 }, (_, i) => `obj${i}`);
  await whileRunning(registry, async () => {
    for (const name of names) cluster.create(kex(name, { field: "v0" }));
    for (let v = 1; v <= 3; v++) {
      for (const name of names) cluster.patch("kopfexamples", name, { spec: { field: `v${v}` } });
      await Promise.resolve();
    }
    for (const name of names) {
      await cluster.waitFor(
        "kopfexamples",
        name,
        (b) => b?.metadata?.annotations?.[DIFFBASE] === '{"spec":{"field":"v3"}}\n',
      );
    }
  });
  assertEquals(new Set(seen.list).size, seen.list.length, `duplicates in ${seen.list}`);
  for (const name of names) assertEquals(seen.list.includes(`${name}=v3`), true, name);
});
