/**
 * The replicas of `kopf manifests --leader-election` / `--shards` on a fake cluster with
 * RBAC, as the generated ServiceAccount with the Deployment's arguments: the generated
 * rules let them elect, shard, hand over and clean up, and nothing is refused; without
 * the Leases' rules, they are.
 */
import { parseAllDocuments } from "yaml";
import { assert, assertEquals } from "../assert.ts";
import type { RawBody } from "../../mod.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { manifestsOf } from "../../src/cli/manifests.ts";
import { forbiddenRequests } from "../examples/helpers.ts";
import {
  holderOf,
  installCrd,
  KIND,
  LEASE,
  type Replica,
  REPLICA_OPERATOR,
  startReplica,
  until,
} from "./replicas.ts";

const CRD = new URL("../../examples/crd.yaml", import.meta.url).pathname;
const ENV = { REPLICA_TIMINGS: "4,3,0.5", REPLICA_HANDLER_MS: "0" };

/**
 * Deploy the manifests' RBAC to the cluster (leaving out the Lease rules if asked), and
 * return the kubeconfig of the ServiceAccount and the Deployment's arguments.
 */
async function deploy(
  cluster: FakeCluster,
  flags: { leaderElection?: boolean; shards?: number },
  options: { withoutLeases?: boolean } = {},
): Promise<{ kubeconfig: string; args: string[] }> {
  const yaml = await manifestsOf([REPLICA_OPERATOR], {
    namespace: ["default"],
    crd: [CRD],
    name: "replicas",
    ...flags,
  });
  let args: string[] = [];
  for (const document of parseAllDocuments(yaml)) {
    const object = document.toJS() as RawBody;
    if (object.kind === "Deployment") {
      // deno-lint-ignore no-explicit-any
      const container = (object.spec as any).template.spec.containers[0];
      args = (container.args as string[]).filter((arg, i, all) =>
        arg !== "--liveness" && all[i - 1] !== "--liveness"
      );
      continue;
    }
    if (options.withoutLeases && object.metadata?.name === "replicas-leases") continue;
    cluster.create(object);
  }
  const token = cluster.serviceAccountToken("default", "replicas");
  return { kubeconfig: await cluster.writeKubeconfig(undefined, { token }), args };
}

async function handledAll(cluster: FakeCluster, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    cluster.create({ ...KIND, metadata: { name: `obj-${i}`, namespace: "default" } });
  }
  await until(
    "the objects handled",
    () => {
      return [...Array(count).keys()].every((i) => {
        const status = cluster.get(KIND, `obj-${i}`)?.status as Record<string, unknown> | undefined;
        return status?.create !== undefined;
      });
    },
    60,
    100,
  );
}

Deno.test({
  name: "the generated RBAC lets leader-election replicas elect, hand over and release",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using cluster = await FakeCluster.start({ rbac: true });
    await installCrd(cluster);
    const { kubeconfig, args } = await deploy(cluster, { leaderElection: true });
    assert(args.includes("--leader-election"), String(args));
    await using a = startReplica("replica-a", kubeconfig, args, ENV);
    await until("replica-a to lead", () => holderOf(cluster, "replicas") === "replica-a", 30);
    await using b = startReplica("replica-b", kubeconfig, args, ENV);
    await until("replica-b on standby", () => b.logged(/On standby/), 30);
    await handledAll(cluster, 10);
    a.kill("SIGTERM");
    assertEquals(await a.exited(), 0, a.log);
    await until("replica-b to take over", () => holderOf(cluster, "replicas") === "replica-b", 10);
    b.kill("SIGTERM");
    assertEquals(await b.exited(), 0, b.log);
    assertEquals(holderOf(cluster, "replicas"), "", "released at the end");
    assertEquals(forbiddenRequests(cluster), []);
  },
});

Deno.test({
  name: "the generated RBAC lets sharding replicas split the work and delete their memberships",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using cluster = await FakeCluster.start({ rbac: true });
    await installCrd(cluster);
    const { kubeconfig, args } = await deploy(cluster, { shards: 2 });
    const replicas: Replica[] = ["replica-0", "replica-1"].map((name) =>
      startReplica(name, kubeconfig, args, ENV)
    );
    try {
      await until("both shards held by different replicas", () => {
        const holders = [0, 1].map((i) => holderOf(cluster, `replicas-shard-${i}`));
        return holders.every((h) => h?.startsWith("replica-")) && holders[0] !== holders[1];
      }, 30);
      await handledAll(cluster, 20);
      for (const replica of replicas) replica.kill("SIGTERM");
      for (const replica of replicas) assertEquals(await replica.exited(), 0, replica.log);
      const members = cluster.list(LEASE).filter((l) => l.metadata?.name?.includes("-member-"));
      assertEquals(members, [], "the memberships are deleted at a graceful stop");
      assertEquals(forbiddenRequests(cluster), []);
    } finally {
      for (const replica of replicas) await replica[Symbol.asyncDispose]();
    }
  },
});

Deno.test({
  name: "without the generated Lease rules, the replicas are refused",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using cluster = await FakeCluster.start({ rbac: true });
    await installCrd(cluster);
    const { kubeconfig, args } = await deploy(cluster, { leaderElection: true }, {
      withoutLeases: true,
    });
    await using a = startReplica("replica-a", kubeconfig, args, ENV);
    await until("a refusal", () => forbiddenRequests(cluster).length > 0, 30);
    assert(
      forbiddenRequests(cluster).every((r) => r.includes("/leases")),
      String(forbiddenRequests(cluster)),
    );
    await until("the refusal logged", () => a.logged(/leases/), 30);
  },
});
