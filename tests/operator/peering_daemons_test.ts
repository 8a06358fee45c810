/**
 * Peering and daemons: an operator paused for a peer of a higher priority stops its
 * daemons, and spawns them again when it resumes.
 */
import { assert, assertEventually } from "../assert.ts";
import { daemon, on } from "../../src/intents/registration.ts";
import { clusterRegistry, kex, peeringCluster, startOperator, testSettings } from "./harness.ts";

Deno.test("a paused operator stops its daemons and spawns them again when it resumes", async () => {
  await using cluster = await peeringCluster();
  cluster.create(kex("accompanied"));

  const events: string[] = [];
  const lowRegistry = clusterRegistry(cluster);
  daemon("kopfexamples", { registry: lowRegistry }, async ({ name, stopped }) => {
    events.push(`started ${name}`);
    await stopped.wait();
    events.push(`stopped ${name}: ${stopped.reason}`);
  });
  const settings = (priority: number) =>
    testSettings({ peering: { lifetime: 2, priority }, batching: { exitTimeout: 1 } });
  const low = await startOperator(lowRegistry, { standalone: false, settings: settings(5) });
  try {
    await assertEventually("the daemon to start", () => events.includes("started accompanied"));

    const highRegistry = clusterRegistry(cluster);
    on.create("kopfexamples", { registry: highRegistry }, () => {});
    const high = await startOperator(highRegistry, { standalone: false, settings: settings(10) });
    try {
      await assertEventually(
        "the daemon to stop",
        () => events.some((e) => e.startsWith("stopped")),
      );
      assert(events[1].includes("pausing"), events.join("; "));
    } finally {
      await high.stop();
    }
    await assertEventually("the daemon to start again", () => events.length >= 3);
    assert(events[2] === "started accompanied", events.join("; "));
  } finally {
    await low.stop();
  }
});
