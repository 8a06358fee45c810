/** examples/10-builtins: pods are deleted after their time, unless deleted before. */
import { assert } from "../assert.ts";
import { clusterWithCrd, exampleKubeconfig, runExample, withEnv } from "./helpers.ts";

function pod(name: string) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: { containers: [{ name: "main", image: "busybox" }] },
  };
}

Deno.test("10-builtins: a pod is killed after the TTL; a pod deleted earlier is spared", async () => {
  await using cluster = await clusterWithCrd({ tls: true });
  const kubeconfig = await exampleKubeconfig("10-builtins", cluster);
  await withEnv("KUBECONFIG", kubeconfig, () =>
    withEnv("POD_TTL_SECONDS", "3", async () => {
      const runner = await runExample("10-builtins", cluster);
      cluster.create(pod("doomed"));
      cluster.create(pod("spared"));
      await runner.waitForOutput("[default/spared] === Pod killing happens in 3s.");
      cluster.delete("pods", "spared");
      await runner.waitForOutput("[default/spared] === Pod killing is cancelled!");
      await cluster.waitFor("pods", "spared", (o) => o === undefined);
      await runner.waitForOutput("[default/doomed] === Pod killing happens NOW!");
      await cluster.waitFor("pods", "doomed", (o) => o === undefined);
      await runner.stop();
      assert(
        !runner.lines.some((l) => l.includes("[default/spared] === Pod killing happens NOW!")),
      );
    }));
});
