/**
 * A cause whose handlers run over several cycles (the default lifecycle runs one per cycle)
 * while the object changes between them: the change is handled as an update once the cause
 * completes, not lost in it.
 */
import { assertEquals } from "../assert.ts";
import { on } from "../../src/intents/registration.ts";
import {
  Calls,
  clusterRegistry,
  DIFFBASE,
  handled,
  kex,
  startCluster,
  whileRunning,
} from "./harness.ts";

Deno.test("a change between the cycles of a creation is handled as an update afterwards", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  const valueOf = (spec: unknown) => (spec as { value?: unknown } | null)?.value;
  on.create("kopfexamples", { registry }, function first({ spec }) {
    calls.add(`first ${valueOf(spec)}`);
    // Changed after the first handler has seen it, before the second handler's cycle.
    cluster.patch("kopfexamples", "kex1", { spec: { value: "B" } });
  });
  on.create("kopfexamples", { registry }, function second({ spec }) {
    calls.add(`second ${valueOf(spec)}`);
  });
  on.update("kopfexamples", { registry }, function changed({ old, new: now }) {
    const specOf = (essence: unknown) => (essence as { spec?: unknown } | null)?.spec;
    calls.add(`update ${valueOf(specOf(old))}→${valueOf(specOf(now))}`);
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1", { value: "A" }));
    await calls.until(3);
    await cluster.waitFor("kopfexamples", "kex1", (b) => {
      const base = b?.metadata?.annotations?.[DIFFBASE];
      return handled(b) && base !== undefined && base.includes('"value":"B"');
    });
  });
  assertEquals(calls.list, ["first A", "second B", "update A→B"]);
});
