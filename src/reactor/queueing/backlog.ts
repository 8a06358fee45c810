/**
 * The backlog of the queueing: the objects that wait with unprocessed states (past their
 * batch window: objects within it wait for time, not for a place). Once it reaches its
 * limit, the feeder is asked to wait (see {@link Backlog.congestion}) until it is down to
 * half: the events then stay in the watch streams, and on the server, instead of piling up
 * in memory.
 *
 * @module
 */

/** The count of waiting objects and the feeder's wait; see the module docs. */
export class Backlog {
  readonly #limit: number;
  #size = 0;
  #congestion: { readonly promise: Promise<void>; readonly resolve: () => void } | undefined;

  /** A backlog that congests at `limit` objects (at least 1). */
  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  /** How many objects wait now. */
  get size(): number {
    return this.#size;
  }

  /** While congested: settles once the backlog is down to half (or relieved). */
  get congestion(): Promise<void> | undefined {
    return this.#congestion?.promise;
  }

  /**
   * One object more in the backlog (`true`) or one less (`false`). While stopping, it
   * never congests: the feeder must not be held up by a queueing that takes nothing more.
   */
  count(queued: boolean, stopping: boolean): void {
    this.#size += queued ? 1 : -1;
    if (queued && this.#size >= this.#limit && this.#congestion === undefined) {
      if (stopping) return;
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.#congestion = { promise, resolve };
    } else if (!queued && this.#size <= this.#limit >> 1) {
      this.relieve();
    }
  }

  /** Let the feeder go on, whatever the count. */
  relieve(): void {
    this.#congestion?.resolve();
    this.#congestion = undefined;
  }
}
