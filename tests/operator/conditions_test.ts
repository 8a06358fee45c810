/**
 * The standard status conditions over HTTP against the fake cluster: `Ready`, `Reconciling`
 * and `Stalled` after each handling cycle of a custom resource, with `observedGeneration`,
 * in the cycle's own write; judged as kstatus (and so Flux, Argo CD's generic health, and
 * `kubectl wait`) would judge them.
 */
import { assert, assertEquals, assertNotEquals } from "../assert.ts";
import { on } from "../../src/intents/registration.ts";
import { setCondition } from "../../src/kits/conditions.ts";
import { PermanentError, TemporaryError } from "../../src/structs/errors.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import type { FakeCluster } from "../../src/testing/mod.ts";
import { StatusProgressStorage } from "../../src/settings/object_progress_storages.ts";
import { StatusDiffBaseStorage } from "../../src/settings/diffbase_storages.ts";
import { available } from "../platform/commands.ts";
import { wallClockAt } from "../clocks.ts";
import {
  Calls,
  clusterRegistry,
  freePort,
  handled,
  kex,
  patchesOf,
  startCluster,
  testSettings,
  whileRunning,
} from "./harness.ts";

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  observedGeneration?: number;
  lastTransitionTime: string;
}

interface Status {
  conditions?: Condition[];
  observedGeneration?: number;
  [key: string]: unknown;
}

function statusOf(body: RawBody | undefined): Status {
  return (body?.status ?? {}) as Status;
}

/** The condition of the type, if the object has one. */
function condition(body: RawBody | undefined, type: string): Condition | undefined {
  return statusOf(body).conditions?.find((c) => c.type === type);
}

/** Whether the condition of the type has the status (and, if given, the reason). */
function has(type: string, status: string, reason?: string) {
  return (body: RawBody | undefined): boolean => {
    const found = condition(body, type);
    return found?.status === status && (reason === undefined || found.reason === reason);
  };
}

/**
 * The status kstatus computes for a custom resource, by the rules its README documents:
 * being deleted is Terminating; an observed generation other than the object's is
 * InProgress; `Stalled=True` is Failed; `Reconciling=True` is InProgress; `Ready=False`
 * is InProgress; `Ready=True` (or no conditions at all) is Current.
 */
function kstatus(body: RawBody | undefined): "Current" | "InProgress" | "Failed" | "Terminating" {
  if (body?.metadata?.deletionTimestamp) return "Terminating";
  const status = statusOf(body);
  const generation = body?.metadata?.generation;
  if (status.observedGeneration !== undefined && status.observedGeneration !== generation) {
    return "InProgress";
  }
  if (has("Stalled", "True")(body)) return "Failed";
  if (has("Reconciling", "True")(body)) return "InProgress";
  if (has("Ready", "False")(body)) return "InProgress";
  return "Current";
}

/** Every condition names the object's generation, and so does the status. */
function assertObserved(body: RawBody | undefined): void {
  const generation = body?.metadata?.generation;
  assert(typeof generation === "number");
  assertEquals(statusOf(body).observedGeneration, generation);
  for (const c of statusOf(body).conditions ?? []) {
    assertEquals(c.observedGeneration, generation, `${c.type}'s observedGeneration`);
  }
}

/** A pause: for requests in flight to be logged, or for writes that should not come. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The PATCH requests to the object made in a while after the ones in flight are logged
 * (a request is logged once answered, after the change it made is seen): none expected.
 */
async function laterWrites(cluster: FakeCluster, name: string): Promise<string[]> {
  await pause(200);
  const before = patchesOf(cluster, name).length;
  await pause(500);
  return patchesOf(cluster, name).slice(before);
}

/** Ready is True, and the cycle's last write (the diff-base) is done. */
function readyAndHandled(body: RawBody | undefined): boolean {
  return has("Ready", "True")(body) && handled(body);
}

Deno.test("a successful create: Ready, for the object's generation; kstatus Current; no more writes", async () => {
  await using cluster = await startCluster({ status: true });
  const registry = clusterRegistry(cluster);
  on.create("kopfexamples", { registry }, function create_fn() {
    return { done: true };
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("ok"));
    const body = await cluster.waitFor("kopfexamples", "ok", readyAndHandled);
    assertEquals(
      statusOf(body).conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        ["Ready", "True", "Succeeded", "Handler 'create_fn' succeeded."],
      ],
      "Reconciling and Stalled are there only while True",
    );
    assertObserved(body);
    assertEquals(body?.metadata?.generation, 1);
    assertEquals(statusOf(body).create_fn, { done: true });
    assertEquals(kstatus(body), "Current");
    // The event of our own write finds the conditions right: nothing more is written.
    assertEquals(await laterWrites(cluster, "ok"), []);
  });
});

Deno.test("a temporary error: Reconciling with its reason, not Ready; then success: Ready", async () => {
  await using cluster = await startCluster({ status: true });
  const registry = clusterRegistry(cluster);
  let offset = 0; // the wall time's, moved by the test
  const clock = wallClockAt(() => Date.now() + offset);
  const calls = new Calls<number>();
  on.create("kopfexamples", { registry }, function flaky({ retry }) {
    calls.add(retry);
    if (retry === 0) throw new TemporaryError("the database is not up yet", { delay: 0.3 });
    offset += 60_000; // a minute later, as the wall clock says
    return { done: true };
  });
  await whileRunning(registry, async () => {
    const retrying = cluster.waitFor("kopfexamples", "flaky", has("Reconciling", "True"));
    cluster.create(kex("flaky"));
    const first = await retrying;
    const message = "Handler 'flaky' is retrying: the database is not up yet";
    assertEquals(condition(first, "Reconciling")?.reason, "Retrying");
    assertEquals(condition(first, "Reconciling")?.message, message);
    assertEquals(condition(first, "Ready")?.status, "False");
    assertEquals(condition(first, "Ready")?.reason, "Retrying");
    assertEquals(condition(first, "Ready")?.message, message);
    assertEquals(condition(first, "Stalled"), undefined, "not stalled: no Stalled");
    assertObserved(first);
    assertEquals(kstatus(first), "InProgress");

    const done = await cluster.waitFor("kopfexamples", "flaky", has("Ready", "True"));
    assertEquals(condition(done, "Reconciling"), undefined, "done: Reconciling gone");
    assertEquals(condition(done, "Stalled"), undefined);
    assertNotEquals(
      condition(done, "Ready")?.lastTransitionTime,
      condition(first, "Ready")?.lastTransitionTime,
      "Ready changed its status: a new transition time",
    );
    const readySince = Date.parse(condition(done, "Ready")!.lastTransitionTime);
    const retryingSince = Date.parse(condition(first, "Ready")!.lastTransitionTime);
    assert(readySince - retryingSince >= 59_000, `${readySince - retryingSince} ms later`);
    assertObserved(done);
    assertEquals(kstatus(done), "Current");
  }, { clock });
  assertEquals(calls.list, [0, 1]);
});

Deno.test("a permanent error: Stalled and not Ready, with the handler and its message; kstatus Failed", async () => {
  await using cluster = await startCluster({ status: true });
  const registry = clusterRegistry(cluster);
  on.create("kopfexamples", { registry }, function create_fn() {
    throw new PermanentError("spec.size must be positive");
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("broken"));
    const body = await cluster.waitFor(
      "kopfexamples",
      "broken",
      (b) => has("Stalled", "True")(b) && handled(b),
    );
    const message = "Handler 'create_fn' failed: spec.size must be positive";
    assertEquals(
      statusOf(body).conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        ["Ready", "False", "Failed", message],
        ["Stalled", "True", "Failed", message],
      ],
    );
    assertObserved(body);
    assertEquals(kstatus(body), "Failed");
    assertEquals(await laterWrites(cluster, "broken"), []);
  });
});

Deno.test("exhausted retries: Stalled with the framework's message", async () => {
  await using cluster = await startCluster({ status: true });
  const registry = clusterRegistry(cluster);
  on.create("kopfexamples", { registry, retries: 1, backoff: 0.05 }, function create_fn() {
    throw new Error("no luck");
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("tired"));
    const body = await cluster.waitFor("kopfexamples", "tired", has("Stalled", "True"));
    assertEquals(
      condition(body, "Stalled")?.message,
      "Handler 'create_fn' has exceeded 1 retries.",
    );
    assertEquals(kstatus(body), "Failed");
  });
});

Deno.test("a change of the spec: the conditions and the status follow the new generation", async () => {
  await using cluster = await startCluster({ status: true });
  const registry = clusterRegistry(cluster);
  on.create("kopfexamples", { registry }, function create_fn() {
    return "created";
  });
  on.update("kopfexamples", { registry }, function update_fn() {
    return "updated";
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("gen"));
    const created = await cluster.waitFor("kopfexamples", "gen", has("Ready", "True"));
    assertEquals(statusOf(created).observedGeneration, 1);
    cluster.patch("kopfexamples", "gen", { spec: { field: "changed" } }, { namespace: "default" });
    const changed = cluster.get("kopfexamples", "gen", { namespace: "default" });
    assertEquals(changed?.metadata?.generation, 2);
    assertEquals(kstatus(changed), "InProgress", "generation 2 is not observed yet");
    const updated = await cluster.waitFor(
      "kopfexamples",
      "gen",
      (b) => statusOf(b).update_fn === "updated" && statusOf(b).observedGeneration === 2,
    );
    assertObserved(updated);
    assertEquals(condition(updated, "Ready")?.message, "Handler 'update_fn' succeeded.");
    assertEquals(
      condition(updated, "Ready")?.lastTransitionTime,
      condition(created, "Ready")?.lastTransitionTime,
      "Ready stayed True",
    );
    assertEquals(kstatus(updated), "Current");
  });
});

Deno.test("the handlers' own conditions and other controllers' stay in place, in the same write", async () => {
  await using cluster = await startCluster({ status: true });
  cluster.create(kex("own"));
  const theirs = { type: "Theirs", status: "True", reason: "Elsewhere", message: "not ours" };
  const stored = cluster.get("kopfexamples", "own", { namespace: "default" })!;
  cluster.replace({ ...stored, status: { conditions: [theirs] } }, { subresource: "status" });
  const registry = clusterRegistry(cluster);
  on.create("kopfexamples", { registry }, function create_fn({ patch, body }) {
    setCondition({ patch, body }, {
      type: "DatabaseReady",
      status: "True",
      reason: "Provisioned",
      message: "accepting connections",
    });
    return { done: true };
  });
  await whileRunning(registry, async () => {
    const body = await cluster.waitFor("kopfexamples", "own", readyAndHandled);
    const conditions = statusOf(body).conditions ?? [];
    assertEquals(conditions.map((c) => c.type), [
      "Theirs",
      "DatabaseReady",
      "Ready",
    ]);
    assertEquals(conditions[0], theirs, "another controller's condition is untouched");
    assertEquals(conditions[1].observedGeneration, 1);
    assertEquals(
      [conditions[1].status, conditions[1].reason, conditions[1].message],
      ["True", "Provisioned", "accepting connections"],
    );
    // The one create cycle: its result, the handler's condition and ours go in one request
    // to the status; the diff-base in one to the object.
    await pause(200);
    assertEquals(patchesOf(cluster, "own").length, 2);
  });
});

/**
 * A create handler with a result: the common single-handler cycle. Its writes as the fake
 * cluster counts them, and as the operator counts them (`kopf_patches_total`).
 */
async function createOnce(subresource: boolean, enabled: boolean, outcomes = false) {
  await using cluster = await startCluster({ status: subresource });
  const registry = clusterRegistry(cluster);
  on.create("kopfexamples", { registry }, function only() {
    return { done: true };
  });
  const settings = testSettings({ conditions: { enabled }, applying: { outcomes } });
  const metrics = `http://127.0.0.1:${freePort()}/metrics`;
  let body: RawBody | undefined;
  let counted: number | undefined;
  await whileRunning(registry, async () => {
    cluster.create(kex("once"));
    body = await cluster.waitFor("kopfexamples", "once", (b) => handled(b));
    await pause(300); // nothing more comes
    const text = await (await fetch(metrics)).text();
    const series = 'kopf_patches_total{resource="kopfexamples.kopf.dev"} ';
    const line = text.split("\n").find((l) => l.startsWith(series));
    counted = line === undefined ? undefined : Number(line.slice(series.length));
  }, { settings, metricsEndpoint: metrics });
  return { writes: patchesOf(cluster, "once"), counted, body };
}

for (const subresource of [true, false]) {
  const where = subresource ? "with" : "without";
  Deno.test(`a create cycle costs the same writes with conditions as without, ${where} the status subresource`, async () => {
    const on = await createOnce(subresource, true);
    const off = await createOnce(subresource, false);
    const applied = await createOnce(subresource, true, true);
    assertEquals(on.writes, off.writes);
    assertEquals(applied.writes, on.writes, "by server-side apply: the same requests");
    assertEquals(on.writes.length, subresource ? 2 : 1);
    assertEquals([on.counted, off.counted, applied.counted], Array(3).fill(on.writes.length));
    assert(has("Ready", "True")(on.body));
    assert(has("Ready", "True")(applied.body));
    // Off: the status exactly as Kopf writes it.
    assertEquals(off.body?.status, { only: { done: true } });
  });
}

Deno.test("without a status subresource: the conditions name the generation their write makes; no loop", async () => {
  await using cluster = await startCluster({ status: false });
  const registry = clusterRegistry(cluster);
  on.create("kopfexamples", { registry }, function create_fn({ retry }) {
    if (retry === 0) throw new TemporaryError("not yet", { delay: 0.1 });
    return { done: true };
  });
  on.update("kopfexamples", { registry }, function update_fn() {
    return "updated";
  });
  await whileRunning(registry, async () => {
    const retrying = cluster.waitFor("kopfexamples", "bare", has("Reconciling", "True"));
    cluster.create(kex("bare"));
    const first = await retrying;
    // The API server counts a change of the status as a generation without the subresource.
    assertEquals(first?.metadata?.generation, 2);
    assertObserved(first);
    const done = await cluster.waitFor("kopfexamples", "bare", readyAndHandled);
    assertObserved(done);
    assertEquals(kstatus(done), "Current");
    assertEquals(await laterWrites(cluster, "bare"), []);
    const generation = done!.metadata!.generation!;
    cluster.patch("kopfexamples", "bare", { spec: { field: "changed" } }, { namespace: "default" });
    const updated = await cluster.waitFor(
      "kopfexamples",
      "bare",
      (b) => statusOf(b).update_fn === "updated",
    );
    assertEquals(updated?.metadata?.generation, generation + 2, "the spec's, then the status'");
    assertObserved(updated);
    assertEquals(kstatus(updated), "Current");
    assertEquals(await laterWrites(cluster, "bare"), []);
  });
});

Deno.test("with the progress and diff-base in the status: conditions ride in its one write per cycle", async () => {
  await using cluster = await startCluster({ status: true });
  const registry = clusterRegistry(cluster);
  on.create("kopfexamples", { registry }, function create_fn({ retry }) {
    if (retry === 0) throw new TemporaryError("not yet", { delay: 0.1 });
    return { done: true };
  });
  const settings = testSettings({
    persistence: {
      progressStorage: new StatusProgressStorage(),
      diffbaseStorage: new StatusDiffBaseStorage(),
    },
  });
  await whileRunning(registry, async () => {
    const retrying = cluster.waitFor("kopfexamples", "st", has("Reconciling", "True"));
    cluster.create(kex("st"));
    const first = await retrying;
    assert((statusOf(first).kopf as { progress?: unknown })?.progress !== undefined);
    // One write per cycle: the diff-base comes with Ready.
    const done = await cluster.waitFor("kopfexamples", "st", has("Ready", "True"));
    assertObserved(done);
    assertEquals(kstatus(done), "Current");
    await pause(300); // nothing more comes
    // Two cycles (the retry, the success): one request each, to the status only.
    assertEquals(patchesOf(cluster, "st"), [
      "/apis/kopf.dev/v1/namespaces/default/kopfexamples/st/status",
      "/apis/kopf.dev/v1/namespaces/default/kopfexamples/st/status",
    ]);
  }, { settings });
});

Deno.test("built-in resources get no conditions: their status belongs to Kubernetes", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls();
  on.create("configmaps", { registry }, function create_fn() {
    calls.add("created");
  });
  await whileRunning(registry, async () => {
    cluster.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "plain", namespace: "default" },
      data: { a: "1" },
    });
    const body = await cluster.waitFor("configmaps", "plain", handled, {});
    assertEquals(body?.status, undefined);
    await pause(300);
    const now = cluster.get("configmaps", "plain", { namespace: "default" });
    assertEquals(now?.status, undefined);
  });
  assertEquals(calls.list, ["created"]);
});

Deno.test("an object handled before conditions existed gets them once, with nothing to do", async () => {
  await using cluster = await startCluster({ status: true });
  const registry = clusterRegistry(cluster);
  on.create("kopfexamples", { registry }, function create_fn() {
    return { done: true };
  });
  // An older version (Kopf-compatible status): handled, no conditions.
  await whileRunning(registry, async () => {
    cluster.create(kex("old"));
    await cluster.waitFor("kopfexamples", "old", handled);
  }, { settings: testSettings({ conditions: { enabled: false } }) });
  const before = patchesOf(cluster, "old").length;
  assertEquals(statusOf(cluster.get("kopfexamples", "old", { namespace: "default" })), {
    create_fn: { done: true },
  });
  await whileRunning(registry, async () => {
    const body = await cluster.waitFor("kopfexamples", "old", has("Ready", "True"));
    assertEquals(condition(body, "Ready")?.reason, "NothingToDo");
    assertEquals(kstatus(body), "Current");
    assertObserved(body);
    await pause(300);
  });
  assertEquals(patchesOf(cluster, "old").length, before + 1, "one write, to the status");
  // And once only: the next start finds them right.
  await whileRunning(registry, async () => {
    await pause(500);
  });
  assertEquals(patchesOf(cluster, "old").length, before + 1);
});

Deno.test("a deletion writes no conditions: those of the last change stay", async () => {
  await using cluster = await startCluster({ status: true });
  const registry = clusterRegistry(cluster);
  const deletions = new Calls<number>();
  on.create("kopfexamples", { registry }, function create_fn() {
    return "created";
  });
  on.delete("kopfexamples", { registry }, function delete_fn({ retry }) {
    deletions.add(retry);
    if (retry === 0) throw new TemporaryError("draining", { delay: 0.3 });
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("del"));
    const created = await cluster.waitFor("kopfexamples", "del", has("Ready", "True"));
    const gone = cluster.waitFor("kopfexamples", "del", (b) => b === undefined);
    cluster.delete("kopfexamples", "del", { namespace: "default" });
    await deletions.until(1);
    // The retry's progress is stored: the deletion's first cycle is written.
    const retrying = await cluster.waitFor(
      "kopfexamples",
      "del",
      (b) => b?.metadata?.annotations?.["kopf.zalando.org/delete_fn"] !== undefined,
    );
    assertEquals(statusOf(retrying).conditions, statusOf(created).conditions);
    assertEquals(kstatus(retrying), "Terminating");
    await gone;
  });
  assertEquals(deletions.list, [0, 1]);
});

const hasKubectl = await available("kubectl", ["version", "--client"]);

Deno.test({
  name: "kubectl wait --for=condition=Ready returns once the operator handled the object",
  ignore: !hasKubectl,
  fn: async () => {
    await using cluster = await startCluster({ status: true });
    const registry = clusterRegistry(cluster);
    on.create("kopfexamples", { registry }, async function create_fn() {
      await pause(300);
      return { done: true };
    });
    const dir = await Deno.makeTempDir({ prefix: "kopf-conditions-" });
    try {
      const kubeconfig = await cluster.writeKubeconfig(`${dir}/kubeconfig`);
      await whileRunning(registry, async () => {
        cluster.create(kex("waited"));
        const output = await new Deno.Command("kubectl", {
          args: [
            `--kubeconfig=${kubeconfig}`,
            `--cache-dir=${dir}/cache`,
            "wait",
            "--for=condition=Ready",
            "kex/waited",
            "--namespace=default",
            "--timeout=30s",
          ],
          stdout: "piped",
          stderr: "piped",
        }).output();
        const err = new TextDecoder().decode(output.stderr);
        assertEquals(output.code, 0, err);
        assertEquals(
          new TextDecoder().decode(output.stdout).trim(),
          "kopfexample.kopf.dev/waited condition met",
        );
        const body = cluster.get("kopfexamples", "waited", { namespace: "default" });
        assert(has("Ready", "True")(body));
        assertEquals(statusOf(body).create_fn, { done: true });
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
