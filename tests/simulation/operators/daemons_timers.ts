/**
 * A daemon and a timer per KopfExample, on a registry of their own (made afresh for each
 * use), noting in memory what they do on virtual time: which daemons run now, and when
 * each object's daemon and timer last did something. The operator's finalizer holds each
 * object until they have stopped.
 */
import { kopf } from "../../../mod.ts";

/** What the daemons and timers did, by object name. */
export interface Activity {
  /** Daemons running now, by object (more than one at once is a defect). */
  readonly running: Map<string, number>;
  /** When (ms of virtual time) each object's daemon last beat. */
  readonly beats: Map<string, number>;
  /** When (ms of virtual time) each object's timer last ran. */
  readonly ticks: Map<string, number>;
}

/** The operator's registry, and its activity (cleared by `clear()` before each seed). */
export function daemonsAndTimers(): { registry: kopf.OperatorRegistry; activity: Activity } {
  const registry = new kopf.OperatorRegistry();
  const activity: Activity = { running: new Map(), beats: new Map(), ticks: new Map() };
  kopf.daemon("kopfexamples", { registry }, async function watcher({ name, stopped }) {
    activity.running.set(name, (activity.running.get(name) ?? 0) + 1);
    try {
      while (!stopped.isSet) {
        activity.beats.set(name, Date.now());
        await stopped.wait(5);
      }
    } finally {
      activity.running.set(name, (activity.running.get(name) ?? 1) - 1);
    }
  });
  kopf.timer("kopfexamples", { registry, interval: 10 }, function ticker({ name }) {
    activity.ticks.set(name, Date.now());
  });
  return { registry, activity };
}
