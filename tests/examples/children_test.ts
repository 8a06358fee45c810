/** examples/02-children: a pod per object, adopted by it, gone with it. */
import { assert, assertEquals } from "../assert.ts";
import {
  clusterWithCrd,
  exampleKubeconfig,
  KIND,
  manifest,
  NAME,
  runExample,
  settled,
  withEnv,
} from "./helpers.ts";

Deno.test("02-children: the child pod is owned, labelled, named and listed in status", async () => {
  // @kubernetes/client-node (used by the example) insists on TLS.
  await using cluster = await clusterWithCrd({ tls: true });
  const kubeconfig = await exampleKubeconfig("02-children", cluster);
  await withEnv("KUBECONFIG", kubeconfig, async () => {
    const runner = await runExample("02-children", cluster);
    const parent = cluster.create(await manifest("obj.yaml"));
    const handled = await cluster.waitFor(KIND, NAME, settled);
    const status = (handled?.status as { createFn: { children: string[] } }).createFn;

    const pods = cluster.list("pods");
    assertEquals(pods.length, 1);
    const pod = pods[0];
    assertEquals(status.children, [pod.metadata?.uid]);
    assert(String(pod.metadata?.name).startsWith(`${NAME}-`), String(pod.metadata?.name));
    assertEquals(pod.metadata?.namespace, "default");
    assertEquals(pod.metadata?.labels, {
      somelabel: "somevalue",
      "kopf.zalando.org/owner-kind": "KopfExample.kopf.dev",
    });
    const owners = pod.metadata?.ownerReferences ?? [];
    assertEquals(owners.map((o) => [o.kind, o.name, o.uid, o.controller] as unknown[]), [
      ["KopfExample", NAME, parent.metadata?.uid as string, true],
    ]);
    const container =
      (pod.spec as { containers: { env: unknown; args: string[] }[] }).containers[0];
    assertEquals(container.env, [{ name: "FIELD", value: "value" }]);
    assert(container.args[0].includes("sleep 1m"), container.args[0]);

    cluster.delete(KIND, NAME);
    await cluster.waitFor(KIND, NAME, (o) => o === undefined);
    await cluster.waitFor("pods", String(pod.metadata?.name), (o) => o === undefined);
    await runner.stop();
    assertEquals(runner.exitCode, 0);
  });
});
