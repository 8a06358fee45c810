/**
 * Children kept in step (examples/18-children): each KopfExample owns a ConfigMap
 * `<name>-config` holding its `spec.field`. Parents come, their fields change, their
 * children are deleted or edited by someone else; each child comes back as its parent
 * says, owned by it.
 *
 * With crashes and restarts: the example's resume handler puts back a child deleted or
 * edited while no operator ran. A child deleted or edited after that, before the children's
 * watch of the new operator has listed, is known all the same: the operator knows the state
 * its own write answered (or that a listing cut short had shown), so the next complete
 * listing tells of the change (seeds 30, 68 and 746 lost such children before).
 */
import type { Simulation } from "../../../src/testing/mod.ts";
import { CRD, KEX, kopfExample } from "../kopf_examples.ts";

export const operator = "examples/18-children/example.ts";

export const resources = [CRD];

export async function scenario(sim: Simulation): Promise<void> {
  const names = Array.from({ length: 6 }, (_, i) => `parent-${i}`);
  for (const name of names) {
    sim.cluster.create(kopfExample(name, { field: "first" }));
    await sim.sleep(sim.random());
  }
  await sim.sleep(20);
  for (const [i, name] of names.entries()) {
    const child = `${name}-config`;
    if (i % 3 === 0 && sim.cluster.get("configmaps", child)) {
      sim.cluster.delete("configmaps", child);
    }
    if (i % 3 === 1 && sim.cluster.get("configmaps", child)) {
      sim.cluster.patch("configmaps", child, { data: { field: "drifted" } });
    }
    if (i % 2 === 0) sim.cluster.patch(KEX, name, { spec: { field: "second" } });
    await sim.sleep(sim.random() * 5);
  }
  await sim.sleep(60);
}

export const invariants = [
  function childrenAsParentsSay(sim: Simulation): string | undefined {
    const problems = sim.cluster.list(KEX, { namespace: "default" }).flatMap((parent) => {
      const name = parent.metadata?.name;
      const child = sim.cluster.get("configmaps", `${name}-config`);
      if (child === undefined) return [`${name}: no child`];
      const field = (parent.spec as { field?: string }).field;
      const data = child.data as Record<string, string> | undefined;
      const owned = child.metadata?.ownerReferences?.some((o) => o.uid === parent.metadata?.uid);
      return [
        ...(data?.field === field ? [] : [`${name}: child holds ${data?.field}, not ${field}`]),
        ...(owned ? [] : [`${name}: child not owned`]),
      ];
    });
    return problems.length ? problems.join("; ") : undefined;
  },
];

export const ciSeeds = 15;
