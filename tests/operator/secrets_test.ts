/**
 * Secrets stay secret, over HTTP against the fake cluster: the diff-base holds digests of
 * their values, never the values (nor their base64); a changed value is an update, once;
 * a change outside the essence is none; the debug lines and Events show no value; a
 * diff-base that Python Kopf stored with plain values re-runs nothing.
 */
import { assert, assertEquals, assertEventually, assertStringIncludes } from "../assert.ts";
import { on } from "../../src/intents/registration.ts";
import type { OperatorRegistry } from "../../src/intents/registry.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import type { FakeCluster } from "../../src/testing/mod.ts";
import { patternOf, quote } from "../doc_quotes.ts";
import {
  Calls,
  clusterRegistry,
  DIFFBASE,
  handled,
  kex,
  LOGS,
  logsOf,
  startCluster,
  testSettings,
  whileRunning,
} from "./harness.ts";

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
const NOOP = "Something has changed, but not the essence; nothing to do.";

function secret(name: string, stringData: Record<string, string>, extra: RawBody = {}): RawBody {
  return {
    apiVersion: "v1",
    kind: "Secret",
    ...extra,
    metadata: { name, namespace: "default", ...extra.metadata },
    type: "Opaque",
    stringData,
  };
}

/** The value as the API server keeps it in `data`. */
const b64 = (text: string) => btoa(text);

/**
 * Every place a value could leak to: the object's annotations (but kubectl's, which the test
 * writes itself), the log lines, the Events.
 */
function leaks(cluster: FakeCluster, name: string, values: readonly string[]): string[] {
  const { [LAST_APPLIED]: _, ...ours } = cluster.get("secrets", name)?.metadata?.annotations ?? {};
  const annotations = JSON.stringify(ours);
  const events = JSON.stringify(cluster.list("events", { namespace: "default" }));
  const found: string[] = [];
  for (const value of values) {
    for (const form of [value, b64(value)]) {
      if (annotations.includes(form)) found.push(`${form} in the annotations`);
      if (LOGS.some((line) => line.includes(form))) found.push(`${form} in a log line`);
      if (events.includes(form)) found.push(`${form} in an Event`);
    }
  }
  return found;
}

const noops = (name: string) => logsOf(name).filter((line) => line.includes(NOOP)).length;

/**
 * Handlers recording what they see, and a watcher of the states that only a kubectl-like
 * annotation changed: when such a state reaches the operator, the no-op lines logged so
 * far are counted (the event handlers run in the same processing, before the cause).
 */
function recordingHandlers(registry: OperatorRegistry) {
  const calls = new Calls<[string, unknown, unknown]>();
  const baselines = new Map<string, number>();
  on.create("secrets", { registry }, function create_fn({ body }) {
    calls.add(["create", null, body.data]);
  });
  on.update("secrets", { registry }, function update_fn({ new: neu, body, diff }) {
    calls.add(["update", (neu as RawBody).data, body.data]);
    assert(diff.length > 0);
  });
  on.field(
    "secrets",
    { registry, field: "data.password" },
    function password_fn({ old, new: neu }) {
      calls.add(["password", old, neu]);
    },
  );
  on.event("secrets", { registry }, function watch_fn({ body }) {
    const marker = body.metadata?.annotations?.[LAST_APPLIED];
    if (marker !== undefined && !baselines.has(marker)) {
      baselines.set(marker, noops(body.metadata!.name!));
    }
  });
  /** Change only the kubectl annotation and wait until the operator has seen it as no change. */
  const noChange = async (cluster: FakeCluster, name: string, marker: string) => {
    cluster.patch("secrets", name, { metadata: { annotations: { [LAST_APPLIED]: marker } } });
    await assertEventually(
      `the no-op of ${marker}`,
      () => baselines.has(marker) && noops(name) > baselines.get(marker)!,
    );
  };
  return { calls, noChange };
}

Deno.test("a Secret's diff-base keeps digests; one change is one update; nothing leaks", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const { calls, noChange } = recordingHandlers(registry);
  const settings = testSettings({ posting: { enabled: true, level: "debug" } });
  const values = ["s3cr3t-Pa55-first", "s3cr3t-Pa55-second", "admin-user-name"];
  await whileRunning(registry, async () => {
    cluster.create(secret("creds", { password: values[0], user: values[2] }));
    await calls.until(2); // create_fn and password_fn (a field handler runs on creation too)
    const first = await cluster.waitFor("secrets", "creds", handled);
    const stored = first!.metadata!.annotations![DIFFBASE];
    assertStringIncludes(stored, '"password":"kopf-digest:v1:');
    assert(stored.endsWith("}\n"), "Kopf's format: compact JSON and a newline");

    cluster.patch("secrets", "creds", { stringData: { password: values[1] } });
    await calls.until(1, ([what]) => what === "update");
    await cluster.waitFor(
      "secrets",
      "creds",
      (b) => b?.metadata?.annotations?.[DIFFBASE] !== stored && handled(b),
    );
    // kubectl keeps the whole Secret, values and all, in this annotation: never an essence.
    await noChange(cluster, "creds", JSON.stringify({ stringData: { password: values[1] } }));
  }, { settings });

  assertEquals(calls.count(([what]) => what === "create"), 1);
  assertEquals(calls.count(([what]) => what === "update"), 1, JSON.stringify(calls.list));
  assertEquals(calls.count(([what]) => what === "password"), 2);
  // Update handlers see digests in `new` (as in `old` and `diff`), the values in `body`.
  const [, digested, real] = calls.list.find(([what]) => what === "update")!;
  const digestedPassword = (digested as Record<string, string>).password;
  assert(digestedPassword.startsWith("kopf-digest:v1:"), digestedPassword);
  assertEquals((real as Record<string, string>).password, b64(values[1]));
  const [, oldPassword, newPassword] = calls.list.findLast(([what]) => what === "password")!;
  assert(String(oldPassword).startsWith("kopf-digest:v1:") && oldPassword !== newPassword);

  // The debug lines of the diff (one per cycle: a handler per cycle) are there, masked.
  const diffLines = logsOf("creds").filter((line) => line.includes("Updating diff:"));
  assert(diffLines.length > 0);
  // The line docs/handlers-and-causes.md quotes.
  const quoted = await quote("handlers-and-causes.md", "Updating diff: ");
  assert(diffLines.every((line) => patternOf(quoted).test(line)), quoted);
  for (const line of diffLines) {
    assertStringIncludes(line, 'Updating diff: [["change",["data","password"],"***","***"]]');
  }
  assertEquals(leaks(cluster, "creds", values), []);
  const posted = cluster.list("events", { namespace: "default" }).map((e) => e.message);
  assert(posted.some((m) => String(m).startsWith("Updating diff:")), "the diff is posted too");
});

Deno.test("a Secret whose diff-base Kopf stored with plain values re-runs nothing; the values go at once", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const { calls, noChange } = recordingHandlers(registry);
  // What Python Kopf leaves on a Secret it handled: its essence, values included.
  const kopfs = `{"type":"Opaque","data":{"password":"${b64("legacy-Pa55")}"}}\n`;
  cluster.create(secret("legacy", { password: "legacy-Pa55" }, {
    metadata: { annotations: { [DIFFBASE]: kopfs } },
  }));
  await whileRunning(registry, async () => {
    await assertEventually(
      "the resuming of the Secret",
      () => logsOf("legacy").some((line) => line.includes("Resuming is in progress.")),
    );
    // The plain values are replaced by digests at once, with nothing run for them.
    const rewritten = await cluster.waitFor(
      "secrets",
      "legacy",
      (b) => b?.metadata?.annotations?.[DIFFBASE] !== kopfs,
    );
    const digested = rewritten!.metadata!.annotations![DIFFBASE];
    assert(!digested.includes(b64("legacy-Pa55")), digested);
    assertStringIncludes(digested, '"password":"kopf-digest:v1:');
    await noChange(cluster, "legacy", "first");
    assertEquals(calls.list, [], "an unchanged value is no change");
    assertEquals(
      cluster.requests.filter((r) => r.method === "PATCH" && r.path.includes("/secrets/")).length,
      1,
      "one write: the digests in place of the values",
    );

    cluster.patch("secrets", "legacy", { stringData: { password: "changed-Pa55" } });
    await calls.until(1, ([what]) => what === "update");
    await cluster.waitFor(
      "secrets",
      "legacy",
      (b) => b?.metadata?.annotations?.[DIFFBASE] !== digested,
    );
    await noChange(cluster, "legacy", "second");
  });
  assertEquals(calls.list.map(([what]) => what).sort(), ["password", "update"]);
  const stored = cluster.get("secrets", "legacy")!.metadata!.annotations![DIFFBASE];
  assert(!stored.includes(b64("legacy-Pa55")) && !stored.includes(b64("changed-Pa55")), stored);
  assertStringIncludes(stored, '"password":"kopf-digest:v1:');
});

Deno.test("a field listed in sensitiveFields is kept as a digest on any resource", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.field("kopfexamples", { registry, field: "spec.password" }, function password_fn(kwargs) {
    calls.add(`${kwargs.reason} ${String(kwargs.new).slice(0, 15)}`);
  });
  const settings = testSettings({ persistence: { sensitiveFields: ["spec.password"] } });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex-s", { password: "hunter2-first" }));
    await calls.until(1);
    const first = await cluster.waitFor("kopfexamples", "kex-s", handled);
    cluster.patch("kopfexamples", "kex-s", { spec: { password: "hunter2-second" } });
    await calls.until(2);
    const stored = first!.metadata!.annotations![DIFFBASE];
    await cluster.waitFor(
      "kopfexamples",
      "kex-s",
      (b) => b?.metadata?.annotations?.[DIFFBASE] !== stored,
    );
  }, { settings });
  assertEquals(calls.list, ["create kopf-digest:v1:", "update kopf-digest:v1:"]);
  const stored = cluster.get("kopfexamples", "kex-s")!.metadata!.annotations![DIFFBASE];
  assert(!stored.includes("hunter2"), stored);
  assertStringIncludes(stored, '"field":"value"'); // the other fields stay as they are
  assert(!LOGS.some((line) => line.includes("hunter2")));
});
