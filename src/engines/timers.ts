/**
 * The schedule of one timer for one object: what `kopf.timer` does between the runs of
 * its function, as Kopf documents it.
 *
 * - `initialDelay`: the first run waits this long after the object is first seen (once).
 * - `idle`: a run waits until the object has been unchanged for this long (every new
 *   state of the object, the first one included, starts the quiet period again).
 * - `interval`: after a successful run, the next one comes this long after the end of the
 *   run; with `sharp`, on the grid of the interval counted from the run's start, so that
 *   a slow function does not shift the schedule.
 * - With `idle` but no `interval`, a timer runs once per quiet period: after a run, it
 *   waits for the object to change and then to be quiet again.
 * - Errors: a temporary error (or an arbitrary one retried per the `errors` option) sets
 *   the next attempt after its delay (or the `backoff`), overriding the schedule; the
 *   interval counts only after a success. A permanent failure (including exceeded
 *   `retries` or `timeout`) stops the timer for good for this object.
 * - A timer never overlaps with itself; stopping it wakes its waits, and lets a run in
 *   progress finish.
 *
 * The engine (see `daemons.ts`) provides the waits, the runs and the object's idle state.
 *
 * @module
 */

import type { TimerHandler } from "../intents/handlers.ts";
import type { Outcome } from "../handling/handler_progress.ts";

/** What the schedule of one timer needs from the engine. */
export interface TimerRun {
  /** The timer. */
  readonly handler: TimerHandler;
  /** Seconds on the engine's monotonic clock. */
  now(): number;
  /** Wait `seconds`, or less if the timer is stopped meanwhile. */
  sleep(seconds: number): Promise<void>;
  /** Whether the timer is asked to stop. */
  readonly stopped: boolean;
  /** When the object last changed, on the same clock. */
  readonly changedAt: number;
  /** Run the function once, with `fresh` when a new cycle of retries begins. */
  attempt(fresh: boolean): Promise<Outcome>;
}

/**
 * Run the timer's schedule until it is stopped, fails for good, or (without interval and
 * idling) has run once successfully. Resolves to `true` when the timer ended on its own.
 */
export async function runTimer(run: TimerRun): Promise<boolean> {
  const { handler } = run;
  if (handler.initialDelay !== null && handler.initialDelay > 0) {
    await run.sleep(handler.initialDelay);
  }
  let fresh = true;
  while (!run.stopped) {
    if (handler.idle !== null) {
      // The quiet period moves on with every change: sleep again until it has passed. What
      // is left is computed once: \`now - changedAt < idle\` may hold while the rounded
      // \`changedAt + idle - now\` is 0, and a sleep of 0 would spin.
      for (;;) {
        const left = run.changedAt + handler.idle - run.now();
        if (run.stopped || !(left > 0)) break;
        await run.sleep(left);
      }
      if (run.stopped) break;
    }
    const started = run.now();
    const outcome = await run.attempt(fresh);
    fresh = outcome.final;
    if (!outcome.final) {
      await run.sleep(outcome.delay ?? 0);
      continue;
    }
    if (outcome.error !== undefined && outcome.error !== null) return true; // failed for good
    if (handler.interval !== null && handler.sharp) {
      const passed = run.now() - started;
      await run.sleep(handler.interval - (passed % handler.interval));
    } else if (handler.interval !== null) {
      await run.sleep(handler.interval);
    } else if (handler.idle !== null) {
      // Once per quiet period: wait for a change after this run's start.
      while (!run.stopped && run.changedAt <= started) await run.sleep(handler.idle);
    } else {
      return true; // neither interval nor idling: a single run
    }
  }
  return false;
}
