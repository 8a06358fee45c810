/**
 * A burst of the example resource's objects (`examples/crd.yaml`), as the benches that time a
 * controller's handling make it.
 */
import type { FakeCluster } from "../../../src/testing/mod.ts";

/**
 * Create `count` KopfExamples named `<prefix><i>` as fast as the cluster takes them, yielding
 * every 50 so that the server streams their events meanwhile, as a real API server would.
 */
export async function createBurst(
  cluster: FakeCluster,
  count: number,
  prefix: string,
): Promise<void> {
  for (let i = 0; i < count; i++) {
    cluster.create({
      apiVersion: "kopf.dev/v1",
      kind: "KopfExample",
      metadata: { name: `${prefix}${i}` },
    });
    if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
