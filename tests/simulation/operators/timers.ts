/**
 * A timer every 60 seconds per KopfExample, on a registry of its own, counting its runs by
 * object in memory: how a day of simulated time is checked.
 */
import { kopf } from "../../../mod.ts";

/** The operator's registry, and its timers' runs by object name. */
export function countedTimers(): { registry: kopf.OperatorRegistry; runs: Map<string, number> } {
  const registry = new kopf.OperatorRegistry();
  const runs = new Map<string, number>();
  kopf.timer("kopfexamples", { registry, interval: 60 }, function minutely({ name }) {
    runs.set(name, (runs.get(name) ?? 0) + 1);
  });
  return { registry, runs };
}
