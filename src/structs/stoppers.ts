/**
 * The stop-flag of daemons (`stopped` in their arguments) and the side that sets it.
 *
 * @module
 */

/** The stop-flag a daemon receives as `stopped`. */
export interface DaemonStopped {
  /** Whether the daemon has been asked to stop. */
  readonly isSet: boolean;
  /** Why it has been asked to stop, or `null` while it has not. */
  readonly reason:
    | "done"
    | "filters-mismatch"
    | "resource-deleted"
    | "operator-pausing"
    | "operator-exiting"
    | "daemon-signalled"
    | "daemon-cancelled"
    | null;
  /** Aborted when the daemon must stop: pass it to `fetch` and friends. */
  readonly signal: AbortSignal;
  /**
   * Wait until stopped or until `seconds` pass (forever if omitted); resolves to
   * whether the daemon is stopped. Use it instead of sleeping.
   */
  wait(seconds?: number): Promise<boolean>;
}

/** Sets the stop-flag; the engines keep it, daemons see it as {@link DaemonStopped}. */
export class DaemonStopper implements DaemonStopped {
  readonly #controller: AbortController = new AbortController();
  #reason: DaemonStopped["reason"] = null;

  get isSet(): boolean {
    return this.#reason !== null;
  }

  get reason(): DaemonStopped["reason"] {
    return this.#reason;
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Ask the daemon to stop (the first reason is kept). */
  stop(reason: NonNullable<DaemonStopped["reason"]>): void {
    if (this.#reason !== null) return;
    this.#reason = reason;
    this.#controller.abort(new Error(`The daemon is stopping: ${reason}.`));
  }

  wait(seconds?: number): Promise<boolean> {
    if (this.isSet) return Promise.resolve(true);
    if (seconds !== undefined && !(Number.isFinite(seconds) && seconds >= 0)) {
      return Promise.reject(
        new TypeError(`stopped.wait() takes seconds \u2265 0, got ${seconds}.`),
      );
    }
    return new Promise((resolvePromise) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        this.signal.removeEventListener("abort", done);
        resolvePromise(this.isSet);
      };
      this.signal.addEventListener("abort", done, { once: true });
      if (seconds !== undefined) timer = setTimeout(done, seconds * 1000);
    });
  }
}
