/**
 * The stages of a bench child's start, stamped in the child and read by `startup.ts`: when
 * its first module was evaluated (this one, imported first: everything before it is Deno
 * starting and preparing the module graph), when its own imports were done, when it called
 * the operator, and when it was ready. The child prints them on one line before `READY`:
 *
 *     STAGES {"evaluated":1796...,"imported":1796...,"operator":1796...,"ready":1796...}
 *
 * Times are milliseconds since the epoch (`performance.timeOrigin + performance.now()`), so
 * that the parent, which took the spawn's time the same way, subtracts them.
 *
 * @module
 */

/** The stages a child stamps, in the order they come. */
export const STAGES = ["evaluated", "imported", "operator", "ready"] as const;
/** One stage of {@link STAGES}. */
export type Stage = typeof STAGES[number];

/** What a child's line says, after its prefix. */
const PREFIX = "STAGES ";

/** The stamps of this process, by stage. */
const stamps: Partial<Record<Stage, number>> = {};

/** Stamp a stage now. */
export function stamp(stage: Stage): void {
  stamps[stage] = performance.timeOrigin + performance.now();
}

/** Print the stamps so far on one line (see the module docs). */
export function printStages(): void {
  console.log(PREFIX + JSON.stringify(stamps));
}

/**
 * The stages of a child's line, in ms after `spawned`; `undefined` if the line is not one
 * of {@link printStages}. Stages it did not stamp (a floor has no operator) are left out; a
 * value that is not a number fails with the line named.
 */
export function stagesOf(
  line: string,
  spawned: number,
): Partial<Record<Stage, number>> | undefined {
  if (!line.startsWith(PREFIX)) return undefined;
  const parsed = JSON.parse(line.slice(PREFIX.length)) as Record<string, unknown>;
  const stages: Partial<Record<Stage, number>> = {};
  for (const stage of STAGES) {
    const at = parsed[stage];
    if (at === undefined) continue;
    if (typeof at !== "number" || !Number.isFinite(at)) {
      throw new Error(`The stage ${stage} of the line ${JSON.stringify(line)} is not a time.`);
    }
    stages[stage] = at - spawned;
  }
  return stages;
}

// Imported first by a child, this module's evaluation is the first of its modules.
stamp("evaluated");
