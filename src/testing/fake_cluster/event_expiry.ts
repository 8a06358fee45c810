/**
 * Events expire, as kube-apiserver's `--event-ttl` makes them (1 hour by default): each
 * write of an Event (core `v1` or `events.k8s.io`) attaches it to an etcd lease of that
 * TTL, and when the lease runs out etcd deletes it -- a real deletion, which watchers see
 * as `DELETED` and the history records, whatever finalizers the Event has. Without it, a
 * cluster under an operator's churn grows by every Event ever posted.
 *
 * kube-apiserver reuses a lease for writes within min(10% of the TTL, 60 s) of each other
 * and grants it for that much longer, so an Event goes between the TTL and the TTL plus
 * that after its last write. The sweep here keeps the same bound: it runs when the oldest
 * Event is due, but never sooner than that granularity after the last one -- so a cluster
 * with many Events wakes at most every minute (or every tenth of a short TTL), and one
 * with none never.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { UsageError } from "../../structs/errors.ts";
import { typeKey } from "../../catalog/resource_types.ts";
import { metaOf } from "./metadata.ts";
import type { Store } from "./store.ts";

/** The TTL of Events when none is given, in seconds: kube-apiserver's default. */
export const DEFAULT_EVENT_TTL = 3600;

/** The resources whose objects expire: both APIs of Events. */
const EXPIRING = new Set([typeKey("", "events"), typeKey("events.k8s.io", "events")]);

/** The most an Event outlives its TTL, as kube-apiserver's lease reuse allows. */
const MAX_GRANULARITY_MS = 60_000;
/** The least time between sweeps, for very short TTLs (tests). */
const MIN_GRANULARITY_MS = 10;

/** setTimeout() fires at once beyond 2^31-1 ms (24.8 days): longer waits are re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Where an Event is, and when it was last written (ms on the monotonic clock). */
interface Written {
  readonly typeKey: string;
  readonly namespace: string;
  readonly name: string;
  readonly at: number;
}

/** The TTL of Events, checked: seconds, 0 or more (0: they never expire). */
export function eventTtlOf(ttl: number | undefined): number {
  if (ttl === undefined) return DEFAULT_EVENT_TTL;
  if (!(ttl >= 0) || !Number.isFinite(ttl)) {
    throw new UsageError(
      `FakeCluster's eventTtl must be a number of seconds, 0 or more (0: Events never expire), not ${ttl}.`,
    );
  }
  return ttl;
}

/** Deletes the Events of a store a TTL after their last write. */
export class EventExpiry {
  /**
   * The Events by key, in the order of their last writes: each write moves its Event to
   * the end, so the due ones are always first (the TTL is one for all).
   */
  readonly #written = new Map<string, Written>();
  readonly #ttlMs: number;
  readonly #granularityMs: number;
  readonly #unlisten: () => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #sweeping = false;
  #stopped = false;

  /**
   * @param ttl seconds from an Event's last write to its deletion; 0 never deletes.
   * @param expired called after a sweep deleted Events (the controllers settle then).
   * @param now the monotonic time in milliseconds.
   */
  constructor(
    readonly store: Store,
    ttl: number,
    readonly expired: () => void = () => {},
    readonly now: () => number = () => performance.now(),
  ) {
    this.#ttlMs = ttl * 1000;
    this.#granularityMs = Math.max(
      MIN_GRANULARITY_MS,
      Math.min(this.#ttlMs / 10, MAX_GRANULARITY_MS),
    );
    if (!(ttl > 0)) {
      this.#unlisten = () => {};
      return;
    }
    // Events loaded from a state file live a TTL from the start, as etcd renews the
    // leases it holds when it starts again.
    for (const key of EXPIRING) {
      for (const object of store.list(key)) this.#wrote(key, object);
    }
    this.#unlisten = store.listen((change) => {
      if (!EXPIRING.has(change.typeKey)) return;
      if (change.type === "DELETED") this.#written.delete(keyOf(change.typeKey, change.object));
      else this.#wrote(change.typeKey, change.object);
    });
    this.#arm();
  }

  /** How many Events are waiting to expire. */
  get size(): number {
    return this.#written.size;
  }

  /** Stop expiring: the timer is cleared, and no change is followed any more. */
  stop(): void {
    this.#stopped = true;
    this.#unlisten();
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #wrote(key: string, object: JsonObject): void {
    const meta = metaOf(object);
    const written: Written = {
      typeKey: key,
      namespace: String(meta.namespace ?? ""),
      name: String(meta.name),
      at: this.now(),
    };
    const id = keyOf(key, object);
    this.#written.delete(id); // to the end: the last written
    this.#written.set(id, written);
    this.#arm();
  }

  /** Set the timer for the first Event due, unless set (or sweeping, or stopped). */
  #arm(): void {
    if (this.#timer !== undefined || this.#sweeping || this.#stopped) return;
    const first = this.#written.values().next();
    if (first.done) return;
    const due = first.value.at + this.#ttlMs - this.now();
    const delay = Math.min(Math.max(due, this.#granularityMs), MAX_TIMER_MS);
    this.#timer = setTimeout(() => this.#sweep(), delay);
  }

  /** Delete the Events due now; then set the timer for the next. */
  #sweep(): void {
    this.#timer = undefined;
    const deadline = this.now() - this.#ttlMs;
    let deleted = 0;
    this.#sweeping = true;
    try {
      for (const [id, written] of this.#written) {
        if (written.at > deadline) break;
        this.#written.delete(id);
        const object = this.store.get(written.typeKey, written.namespace, written.name);
        if (object === undefined) continue;
        // As etcd deletes it: the last state, at the deletion's resourceVersion.
        const resourceVersion = String(this.store.nextResourceVersion());
        const last = { ...object, metadata: { ...metaOf(object), resourceVersion } };
        this.store.remove(written.typeKey, last);
        deleted++;
      }
    } finally {
      this.#sweeping = false;
    }
    try {
      if (deleted) this.expired();
    } finally {
      this.#arm();
    }
  }
}

function keyOf(key: string, object: JsonObject): string {
  const meta = metaOf(object);
  return `${key} ${meta.namespace ?? ""}/${meta.name}`;
}
