/**
 * The backlog of the queueing: the objects that wait with unprocessed states (past their
 * batch window: objects within it wait for time, not for a place). Once it reaches its
 * limit, the feeder is asked to wait (see {@link Backlog.congestion}) until it is down to
 * half: the events then stay in the watch streams, and on the server, instead of piling up
 * in memory. The objects of live events are counted apart as well: live events are asked
 * to wait only when those reach the limit ({@link Backlog.liveCongestion}), so that a big
 * listing that fills the backlog does not hold back the changes made meanwhile.
 *
 * @module
 */

/** How an object is counted in the backlog: not, for a live event, for a listing. */
export type Queued = 0 | 1 | 2;
/** Not counted in the backlog. */
export const NOT_QUEUED = 0;
const QUEUED_LIVE = 1;
const QUEUED_LISTED = 2;

/** The count of waiting objects and the feeder's wait; see the module docs. */
export class Backlog {
  readonly #limit: number;
  #size = 0;
  #live = 0;
  #congestion: Congestion | undefined;
  #liveCongestion: Congestion | undefined;

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

  /** While the live events' objects congest it: settles once they are down to half. */
  get liveCongestion(): Promise<void> | undefined {
    return this.#liveCongestion?.promise;
  }

  /**
   * One object more in the backlog (`true`) or one less (`false`), of a live event or not.
   * While stopping, it never congests: the feeder must not be held up by a queueing that
   * takes nothing more.
   */
  count(queued: boolean, stopping: boolean, live: boolean): void {
    const step = queued ? 1 : -1;
    this.#size += step;
    if (live) this.#live += step;
    const half = this.#limit >> 1;
    if (queued && !stopping) {
      if (this.#size >= this.#limit) this.#congestion ??= congestion();
      if (live && this.#live >= this.#limit) this.#liveCongestion ??= congestion();
    } else if (!queued) {
      if (this.#size <= half) this.#congestion = settle(this.#congestion);
      if (this.#live <= half) this.#liveCongestion = settle(this.#liveCongestion);
    }
  }

  /**
   * Count an object as it is now: waiting (`queued`) for a state of a listing (`listed`)
   * or of a live event, or not waiting; `counted` remembers how it was counted before.
   */
  recount(counted: { queued: Queued }, queued: boolean, listed: boolean, stopping: boolean): void {
    const now: Queued = !queued ? NOT_QUEUED : listed ? QUEUED_LISTED : QUEUED_LIVE;
    const before = counted.queued;
    if (now === before) return;
    counted.queued = now;
    if (before !== NOT_QUEUED) this.count(false, stopping, before === QUEUED_LIVE);
    if (now !== NOT_QUEUED) this.count(true, stopping, now === QUEUED_LIVE);
  }

  /** Let the feeders go on, whatever the counts. */
  relieve(): void {
    this.#congestion = settle(this.#congestion);
    this.#liveCongestion = settle(this.#liveCongestion);
  }
}

/** A wait of the feeder, and what ends it. */
interface Congestion {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
}

function congestion(): Congestion {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** End the wait, if there is one; nothing is left of it. */
function settle(congestion: Congestion | undefined): undefined {
  congestion?.resolve();
  return undefined;
}
