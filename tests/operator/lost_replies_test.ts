/**
 * Replies lost after the write (the API server applied a patch, then the connection broke
 * before the answer): the operator converges, and no handler that succeeded runs again
 * because a reply was lost.
 */
import { assertEquals } from "../assert.ts";
import { on } from "../../src/intents/registration.ts";
import {
  Calls,
  clusterRegistry,
  handled,
  kex,
  startCluster,
  testSettings,
  whileRunning,
} from "./harness.ts";

const COUNT = 20;

Deno.test("with half of the patch replies lost, every object is handled once and converges", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, function create_fn({ name }) {
    calls.add(name!);
    return "done";
  });
  on.delete("kopfexamples", { registry }, function delete_fn({ name }) {
    calls.add(`delete ${name}`);
  });
  cluster.faults.loseReplies({ share: 0.5, verbs: ["patch"] });
  const names = Array.from({ length: COUNT }, (_, i) => `lost-${i}`);
  const settings = testSettings({ networking: { errorBackoffs: [0.05, 0.1, 0.2] } });
  await whileRunning(registry, async () => {
    for (const name of names) cluster.create(kex(name));
    for (const name of names) await cluster.waitFor("kopfexamples", name, handled);
    for (const name of names) cluster.delete("kopfexamples", name);
    for (const name of names) {
      await cluster.waitFor("kopfexamples", name, (o) => o === undefined);
    }
  }, { settings });
  const lost = cluster.requests.filter((r) => r.verb === "patch").length;
  for (const name of names) {
    assertEquals(calls.count((c) => c === name), 1, `${name} created once`);
    assertEquals(calls.count((c) => c === `delete ${name}`), 1, `${name} deleted once`);
  }
  // The fault really hit: patches were sent again (more than the handling needs).
  assertEquals(lost > COUNT * 3, true, `${lost} patches for ${COUNT} objects`);
});

Deno.test("a finalizer's release refused with 503 is resolved by reading, not left for later", async () => {
  // The guarded release may not be sent again as it was (its answer might come after the
  // work), so the operator reads the object and tries anew: the object goes at once, not
  // after the error delays — and a stop right then would not lose the handler's success.
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.delete("kopfexamples", { registry }, function delete_fn({ name }) {
    calls.add(`delete ${name}`);
  });
  // Error delays far longer than the test: only an immediate resolution can get there.
  const settings = testSettings({ batching: { errorDelays: [600] } });
  await whileRunning(registry, async () => {
    cluster.create(kex("held"));
    await cluster.waitFor(
      "kopfexamples",
      "held",
      (o) => (o?.metadata?.finalizers ?? []).length > 0,
    );
    cluster.faults.failRequests({ share: 1, status: 503, verbs: ["patch"], times: 1 });
    cluster.delete("kopfexamples", "held");
    await cluster.waitFor("kopfexamples", "held", (o) => o === undefined, { timeout: 10 });
  }, { settings });
  assertEquals(calls.list, ["delete held"]);
  const failed = cluster.requests.filter((r) => r.verb === "patch" && r.status === 503);
  assertEquals(failed.length, 1, "the fault really hit the release");
});
