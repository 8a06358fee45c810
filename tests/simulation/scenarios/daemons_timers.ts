/**
 * Daemons and timers: each KopfExample has a daemon (beating every 5 s) and a timer (every
 * 10 s); some objects are deleted while these run. Deleted objects are gone (the finalizer
 * released once the daemon stopped) and nothing of theirs runs after their deletion;
 * living objects have exactly one daemon running, and their timer still ticks.
 */
import type { Simulation } from "../../../src/testing/mod.ts";
import { CRD, KEX, kopfExample } from "../kopf_examples.ts";
import { daemonsAndTimers } from "../operators/daemons_timers.ts";

const { registry, activity } = daemonsAndTimers();

export const operator = registry;

export const resources = [CRD];

/** When (ms of virtual time) each deleted object's deletion was asked (this seed's run). */
const deletedAt = new Map<string, number>();

/** Seconds after its deletion that an object's daemon or timer may still act: the watch's lag. */
const GRACE = 30;

export async function scenario(sim: Simulation): Promise<void> {
  for (const map of [activity.running, activity.beats, activity.ticks, deletedAt]) map.clear();
  const names = Array.from({ length: 8 }, (_, i) => `busy-${i}`);
  for (const name of names) {
    sim.cluster.create(kopfExample(name));
    await sim.sleep(sim.random());
  }
  await sim.sleep(30);
  for (const name of names.filter((_, i) => i % 2 === 0)) {
    sim.cluster.delete(KEX, name, { namespace: "default" });
    deletedAt.set(name, Date.now());
    await sim.sleep(sim.random() * 10);
  }
  await sim.sleep(60);
}

export const invariants = [
  function stoppedWithTheirObjects(sim: Simulation): string | undefined {
    const problems: string[] = [];
    const now = Date.now();
    for (const [name, at] of deletedAt) {
      if (sim.cluster.get(KEX, name, { namespace: "default" })) problems.push(`${name} exists`);
      if ((activity.running.get(name) ?? 0) !== 0) problems.push(`${name}: its daemon runs`);
      for (const [what, last] of [["daemon", activity.beats], ["timer", activity.ticks]] as const) {
        const when = last.get(name);
        if (when !== undefined && when > at + GRACE * 1000) {
          problems.push(`${name}: its ${what} ran ${(when - at) / 1000} s after its deletion`);
        }
      }
    }
    for (const kex of sim.cluster.list(KEX, { namespace: "default" })) {
      const name = String(kex.metadata?.name);
      const running = activity.running.get(name) ?? 0;
      if (running !== 1) problems.push(`${name}: ${running} daemons run`);
      const tick = activity.ticks.get(name);
      if (tick === undefined || now - tick > 60_000) problems.push(`${name}: its timer stopped`);
    }
    return problems.length ? problems.join("; ") : undefined;
  },
];

export const ciSeeds = 15;
