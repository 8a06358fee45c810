/**
 * The backlog of the queueing: the objects that wait with unprocessed states (past their
 * batch window: objects within it wait for time, not for a place). Once it reaches its
 * limit, the listings' feeders are asked to wait (see {@link Backlog.congestion}) until it
 * is down to half: their states then stay in the watch streams, and on the server, instead
 * of piling up in memory.
 *
 * The objects of live events are counted apart, against a limit of their own, the burst
 * limit ({@link Backlog.liveCongestion}), far higher. Not for the listings' sake only (a
 * big listing that fills the backlog must not hold back the changes made meanwhile), but
 * for fairness across tenants: a watch of all namespaces tells of every tenant's changes in
 * one stream, in the order they were made. Held at the backlog's limit, such a watch would
 * leave a tenant's changes made a second after another tenant's burst of 20,000 unread
 * behind it, whatever the places' order; the fair turns of the places (`places.ts`) can
 * serve only what has been read. So a burst is taken in, its states kept until processed
 * (their bodies, a worker and a wait each), and waits in its tenant's turns; the watch waits
 * only beyond the burst limit, which bounds that memory. Counting per tenant instead would
 * not help: the stream cannot be read past the burst without taking the burst in. (A real
 * API server does not keep a stream for a watcher that stops reading for long either: once
 * the watcher's buffer is full past a short timeout, it closes the watch -- kube-apiserver's
 * `cacheWatcher.add` in `apiserver/pkg/storage/cacher/cache_watcher.go` -- and the operator
 * lists everything again.)
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
  readonly #burstLimit: () => number;
  #size = 0;
  #live = 0;
  #congestion: Congestion | undefined;
  #liveCongestion: Congestion | undefined;

  /**
   * A backlog that congests at `limit` objects (at least 1), and for live events at
   * `burstLimit` of theirs (read when counted, so that a changed setting takes effect).
   */
  constructor(limit: number, burstLimit: () => number = () => limit) {
    this.#limit = Math.max(1, limit);
    this.#burstLimit = burstLimit;
  }

  /** How many objects wait now. */
  get size(): number {
    return this.#size;
  }

  /** While congested: settles once the backlog is down to half (or relieved). */
  get congestion(): Promise<void> | undefined {
    return this.#congestion?.promise;
  }

  /** While the live events' objects reach the burst limit: settles once down to half. */
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
    if (queued && !stopping) {
      if (this.#size >= this.#limit) this.#congestion ??= congestion();
      if (live && this.#live >= Math.max(1, this.#burstLimit())) {
        this.#liveCongestion ??= congestion();
      }
    } else if (!queued) {
      if (this.#size <= this.#limit >> 1) this.#congestion = settle(this.#congestion);
      if (this.#liveCongestion !== undefined && this.#live <= this.#burstLimit() >> 1) {
        this.#liveCongestion = settle(this.#liveCongestion);
      }
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
