/** examples/16-indexing: indices of pods, seen by a timer of KopfExamples and by the probes. */
import { assertEquals } from "../assert.ts";
import type { RawBody } from "../../mod.ts";
import { clusterWithCrd, KIND, manifest, NAME, runExample } from "./helpers.ts";

function pod(name: string, labels: Record<string, string>): RawBody {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", labels },
    spec: { containers: [{ name: "main", image: "busybox" }] },
  };
}

Deno.test("16-indexing: the timer sees the pods listed at start, indexed, and the probes count them", async () => {
  await using cluster = await clusterWithCrd();
  cluster.create(pod("pod-a", { app: "web" }));
  cluster.create(pod("pod-b", { app: "web", tier: "front" }));
  cluster.patch("pods", "pod-a", { status: { phase: "Running" } }, {
    namespace: "default",
    subresource: "status",
  });
  cluster.create(await manifest("obj.yaml")); // handled only once the pods are indexed
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 }); // a free port
  const port = listener.addr.port;
  listener.close();
  const runner = await runExample("16-indexing", cluster, {
    args: [`--liveness=http://127.0.0.1:${port}/healthz`],
  });
  try {
    await runner.waitForOutput(
      `[default/${NAME}] Pods by label: app=web: pod-a, pod-b; tier=front: pod-b`,
    );
    const running = (o?: RawBody) =>
      (o?.status as { runningPods?: unknown } | undefined)?.runningPods;
    const body = await cluster.waitFor(KIND, NAME, (o) => running(o) !== undefined);
    assertEquals(running(body), ["pod-a"]);
    const probed = await fetch(`http://127.0.0.1:${port}/healthz`);
    assertEquals(await probed.json(), {
      podCount: 2,
      podNames: ["default/pod-a", "default/pod-b"],
    });
  } finally {
    await runner.stop();
  }
});
