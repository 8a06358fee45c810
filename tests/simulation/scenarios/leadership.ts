/**
 * A change of leadership: two replicas with leader election; the leader is stopped now and
 * then (and replicas crash), and the other takes over. Objects created and changed on the
 * way are handled to their last spec by whichever leads, and one Lease names one holder.
 */
import { kopf } from "../../../mod.ts";
import type { Simulation } from "../../../src/testing/mod.ts";
import { CRD, KEX, kopfExample } from "../kopf_examples.ts";

export const operator = "tests/simulation/operators/updates.ts";

export const resources = [CRD];

export const replicas = 2;

export const settings = (() => {
  const settings = new kopf.OperatorSettings();
  settings.leadership.leaderElection = true;
  return settings;
})();

/** Takeovers several times as often as by default: a few per seed. */
export const faults = { takeovers: 20 };

export async function scenario(sim: Simulation): Promise<void> {
  for (let i = 0; i < 6; i++) {
    sim.cluster.create(kopfExample(`led-${i}`, { field: "first" }));
    await sim.sleep(20 + sim.random() * 20);
    sim.cluster.patch(KEX, `led-${i}`, { spec: { field: "second" } });
  }
  await sim.sleep(120);
}

export const invariants = [
  function handledByTheLeader(sim: Simulation): string | undefined {
    const behind = sim.cluster.list(KEX, { namespace: "default" }).flatMap((kex) => {
      const seen = (kex.status as { seen?: unknown } | undefined)?.seen;
      return seen === "second" ? [] : [`${kex.metadata?.name} saw ${JSON.stringify(seen)}`];
    });
    return behind.length ? behind.join("; ") : undefined;
  },
  function oneHolder(sim: Simulation): string | undefined {
    const leases = sim.cluster.list("leases.coordination.k8s.io", { namespace: "default" });
    const holders = leases.map((lease) =>
      (lease.spec as { holderIdentity?: string } | undefined)?.holderIdentity
    );
    return holders.length === 1 && /^operator-[12]$/.test(String(holders[0]))
      ? undefined
      : `the Leases name ${JSON.stringify(holders)}`;
  },
];

export const ciSeeds = 10;
