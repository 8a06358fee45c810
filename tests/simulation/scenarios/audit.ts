/**
 * One audit per object: each audited ConfigMap's create handler writes one audit
 * ConfigMap. Holds while the operator never crashes; a crash between the audit's write and
 * the handler's stored success runs the handler again, and the object has two audits —
 * the at-least-once nature of handlers, which a scenario with crashes shows.
 */
import type { Simulation } from "../../../src/testing/mod.ts";
import { AUDIT_OF, AUDITED_LABELS } from "../operators/audit.ts";

export const operator = "tests/simulation/operators/audit.ts";

export async function scenario(sim: Simulation): Promise<void> {
  for (let i = 0; i < 10; i++) {
    sim.cluster.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `audited-${i}`, namespace: "default", labels: { ...AUDITED_LABELS } },
    });
    await sim.sleep(sim.random() * 3);
  }
  await sim.sleep(60);
}

export const invariants = [
  function oneAuditPerObject(sim: Simulation): string | undefined {
    const all = sim.cluster.list("configmaps", { namespace: "default" });
    const wrong = all.filter((c) => c.metadata?.labels?.audited === AUDITED_LABELS.audited)
      .map((c) => {
        const name = c.metadata?.name;
        return [name, all.filter((a) => a.metadata?.labels?.[AUDIT_OF] === name).length] as const;
      })
      .filter(([, audits]) => audits !== 1);
    return wrong.length === 0
      ? undefined
      : wrong.map(([name, audits]) => `${name} has ${audits} audits`).join("; ");
  },
];

/** Crashes do break it (see the module): CI runs the operator without them. */
export const faults = { crashes: false };

export const ciSeeds = 20;
