/** `kopf run --priority`, `--dev` and `--peering`: they reach the operator's peering record. */
import { parseAllDocuments } from "yaml";
import { assertEquals, assertStringIncludes } from "../assert.ts";
import { kopf } from "../../mod.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { FakeCluster, KopfRunner } from "../../src/testing/mod.ts";

async function peeringCluster(): Promise<FakeCluster> {
  const cluster = await FakeCluster.start();
  const manifest = await Deno.readTextFile(new URL("../../examples/peering.yaml", import.meta.url));
  for (const document of parseAllDocuments(manifest)) cluster.create(document.toJSON());
  return cluster;
}

function priorities(body: RawBody | undefined): number[] {
  return Object.values((body?.status ?? {}) as Record<string, { priority: number }>)
    .map((record) => record.priority);
}

function registry(): kopf.OperatorRegistry {
  const registry = new kopf.OperatorRegistry();
  kopf.on.create("v1", "configmaps", { registry }, function noop() {});
  return registry;
}

Deno.test("--dev peers with priority 666 in the default KopfPeering of the namespace", async () => {
  await using cluster = await peeringCluster();
  cluster.create({
    apiVersion: "kopf.dev/v1",
    kind: "KopfPeering",
    metadata: { namespace: "default", name: "default" },
  });
  const runner = await KopfRunner.start(["run", "--dev", "-n", "default"], {
    registry: registry(),
    cluster,
  });
  const body = await cluster.waitFor(
    "kopfpeerings",
    "default",
    (b) => priorities(b).length === 1,
    { namespace: "default" },
  );
  assertEquals(priorities(body), [666]);
  await runner.stop();
  assertEquals(priorities(cluster.get("kopfpeerings", "default", { namespace: "default" })), []);
});

Deno.test("--peering and --priority choose the ClusterKopfPeering and the priority with -A", async () => {
  await using cluster = await peeringCluster();
  cluster.create({
    apiVersion: "kopf.dev/v1",
    kind: "ClusterKopfPeering",
    metadata: { name: "team" },
  });
  const runner = await KopfRunner.start(["run", "--peering", "team", "--priority", "42", "-A"], {
    registry: registry(),
    cluster,
  });
  const body = await cluster.waitFor(
    "clusterkopfpeerings",
    "team",
    (b) => priorities(b).length === 1,
  );
  assertEquals(priorities(body), [42]);
  await runner.stop();
  assertEquals(runner.exitCode, 0);
});

Deno.test("--peering with an absent object waits for it and says how to create it", async () => {
  await using cluster = await peeringCluster();
  const runner = await KopfRunner.start(["run", "--peering", "absent", "-n", "default"], {
    registry: registry(),
    cluster,
  });
  await runner.waitForOutput(/The mandatory peering object KopfPeering "absent" in "default"/);
  assertStringIncludes(runner.output, "kubectl apply -f -");
  await runner.stop();
  assertEquals(runner.exitCode, 0);
});
