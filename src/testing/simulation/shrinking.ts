/**
 * Shrinking a failure: which kinds of faults does a failing seed need? Each kind still on
 * is suppressed in turn -- drawn as before, without effect, so the run stays the seed's own
 * up to where it would have struck -- and stays suppressed if the seed still breaks the
 * same invariant. The seed's own run is unchanged; the shrunk run is a second witness that
 * names the faults that matter.
 *
 * @module
 */
import { FAULT_NAMES, faultWeights, type SimulationFaults } from "./simulation_faults.ts";
import type { ShrunkFailure, SimulationFailure } from "./simulation_types.ts";

type FaultName = keyof SimulationFaults;

/** The failure with the fewest kinds of faults found; see the module. */
export async function shrinkFaults(
  failure: SimulationFailure,
  faults: SimulationFaults | false | undefined,
  suppressed: readonly FaultName[],
  rerun: (suppress: readonly FaultName[]) => Promise<SimulationFailure | undefined>,
): Promise<ShrunkFailure> {
  const weights = faultWeights(faults);
  const suppress = new Set<FaultName>(suppressed);
  let last = failure;
  for (const name of FAULT_NAMES) {
    // Latency is no fault to do without: it orders what is in flight at once.
    if (weights[name] <= 0 || suppress.has(name) || name === "latency") continue;
    const found = await rerun([...suppress, name]);
    if (found !== undefined && found.invariant === failure.invariant) {
      suppress.add(name);
      last = found;
    }
  }
  return {
    suppress: FAULT_NAMES.filter((name) => suppress.has(name)),
    needed: FAULT_NAMES.filter((name) =>
      weights[name] > 0 && !suppress.has(name) && name !== "latency"
    ),
    message: last.message,
    trace: last.trace,
  };
}
