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
