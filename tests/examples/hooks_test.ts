/**
 * examples/13-hooks: the startup handlers (one retried), the login handler of the example,
 * the probes reporting the pods' background tasks, and the cleanup stopping them.
 */
import { assert, assertEquals } from "../assert.ts";
import type { RawBody } from "../../mod.ts";
import { KopfRunner } from "../../src/testing/runner.ts";
import { clusterWithCrd, exampleFile, withEnv } from "./helpers.ts";

function pod(name: string): RawBody {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: { containers: [{ name: "main", image: "busybox" }] },
  };
}

Deno.test("13-hooks: startup, login, probes, a background task per pod, and cleanup", async () => {
  await using cluster = await clusterWithCrd();
  const kubeconfig = await cluster.writeKubeconfig(); // what the example's login reads
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 }); // a free port
  const port = listener.addr.port;
  listener.close();
  cluster.create(pod("pod-a"));
  await withEnv("KUBECONFIG", kubeconfig, async () => {
    const runner = await KopfRunner.start([
      "run",
      "--standalone",
      "-A",
      "--verbose",
      `--liveness=http://127.0.0.1:${port}/healthz`,
      exampleFile("13-hooks"),
    ]);
    try {
      await runner.waitForOutput("[default/pod-a] Served by the background task.");
      const probed = await fetch(`http://127.0.0.1:${port}/healthz`);
      assertEquals(await probed.json(), {
        tasksCount: 1,
        monitoredObjects: { default: ["pod-a"] },
      });
    } finally {
      await runner.stop();
    }
    assertEquals(runner.exitCode, 0);
    const count = (text: string) => runner.lines.filter((l) => l.includes(text)).length;
    assertEquals(count("Going to succeed in"), 3, runner.output);
    assertEquals(count("Starting retried..."), 1);
    assertEquals(count("Initialising the registry of pod tasks..."), 1);
    assertEquals(count("Logging in with the kubeconfig..."), 1);
    assertEquals(count("All pod tasks are requested to stop..."), 1);
    assertEquals(count("[default/pod-a] Serving is finished by request."), 1);
    const order = ["Starting retried...", "Served by the background task.", "Cleaning up..."]
      .map((text) => runner.lines.findIndex((l) => l.includes(text)));
    assert(order[0] < order[1] && order[1] < order[2], runner.output);
  });
});
