/**
 * examples/99-all-at-once: creation (events, a retried handler, an owned pod seen by the
 * event handler), an update with its diff and field change, and the deletion.
 */
import { assert, assertEquals } from "../assert.ts";
import {
  clusterWithCrd,
  KIND,
  LAST_HANDLED,
  manifest,
  NAME,
  runExample,
  settled,
  waitForEvents,
} from "./helpers.ts";

Deno.test("99-all-at-once: every handler of the example does its part", async () => {
  await using cluster = await clusterWithCrd();
  // The example's own API client logs in with kopf.loginWithDefaults(): under KopfRunner,
  // as the runner's operator does (the example's service account), with no kubeconfig.
  const runner = await runExample("99-all-at-once", cluster);
  try {
    cluster.create(await manifest("obj.yaml"));
    const created = await cluster.waitFor(KIND, NAME, settled);
    const status = created?.status as Record<string, Record<string, unknown>>;
    assertEquals(status.create1, { "job1-status": 100 });
    assertEquals(status.create2, { "job2-status": 100 });
    const pods = cluster.list("pods", { labelSelector: "application=kopf-example-99" });
    assertEquals(pods.map((p) => p.metadata?.name), [status.createPod.pod]);
    assertEquals(pods[0].metadata?.ownerReferences?.[0]?.name, NAME);
    await runner.waitForOutput(`[default/${status.createPod.pod}] This pod is special for us.`);
    await runner.waitForOutput("Handler 'create2' failed with an exception. Will retry in 1s.");
    await waitForEvents(
      cluster,
      NAME,
      (events) =>
        events.includes("Normal AnyReason: Handled by create1.") &&
        events.includes("Warning SomeReason: Cannot do something."),
    );

    cluster.patch(KIND, NAME, { spec: { items: ["item3"] } });
    await cluster.waitFor(
      KIND,
      NAME,
      (o) => settled(o) && o!.metadata!.annotations![LAST_HANDLED].includes("item3"),
    );
    await runner.waitForOutput('Handling the field: ["item1","item2"] -> ["item3"]');
    const diff = await runner.waitForOutput("Handling the diff:");
    assert(diff.includes('"item3"'), diff);

    cluster.delete(KIND, NAME);
    await cluster.waitFor(KIND, NAME, (o) => o === undefined);
    await runner.waitForOutput("Deleting: the pod goes with the object");
    await cluster.waitFor("pods", String(status.createPod.pod), (o) => o === undefined);
  } finally {
    await runner.stop();
  }
  assertEquals(runner.exitCode, 0);
});
