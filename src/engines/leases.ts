/**
 * Leases (`coordination.k8s.io/v1`) as locks, compatible with client-go's resource lock,
 * so that an operator and a Go controller read each other's records the same way.
 *
 * The record is the Lease's spec: `holderIdentity` (empty when released),
 * `leaseDurationSeconds`, `acquireTime` and `renewTime` (MicroTime: RFC 3339 with
 * microseconds) and `leaseTransitions` (incremented whenever the holder changes).
 *
 * Whether a record has expired is judged by this process's own clock, never by the times
 * in the record (the clocks of the replicas may differ): a record is still valid until
 * `leaseDurationSeconds` after this process last saw it change. Writes are updates with
 * the `resourceVersion` read, so that of two replicas racing for a lease, one wins and
 * the other gets a 409 and tries again later.
 *
 * @module
 */
import type { RawBody } from "../structs/bodies.ts";
import { type Clock, realClock } from "../structs/clock.ts";
import { Resource } from "../structs/resources.ts";
import type { ApiClient } from "../client/api.ts";
import { APIConflictError, APINotFoundError } from "../client/api_errors.ts";
import { createObject, deleteObject, getObject, replaceObject } from "../client/objects.ts";

/** The Lease resource. */
export const LEASES: Resource = new Resource({
  group: "coordination.k8s.io",
  version: "v1",
  plural: "leases",
  kind: "Lease",
  singular: "lease",
  namespaced: true,
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
});

/** How often {@link LeaseLock.deleteOwn} re-reads a Lease written meanwhile. */
const OWN_DELETE_ATTEMPTS = 3;

/** A lease's record, as client-go's `LeaderElectionRecord`. */
export interface LeaseRecord {
  /** Who holds it; empty when nobody does (released). */
  readonly holderIdentity: string;
  /** How long the holder may go without renewing, in seconds. */
  readonly leaseDurationSeconds: number;
  /** When the current holder acquired it (MicroTime). */
  readonly acquireTime?: string;
  /** When the current holder last renewed it (MicroTime). */
  readonly renewTime?: string;
  /** How many times the holder has changed. */
  readonly leaseTransitions: number;
}

/** A time as a Lease's MicroTime: RFC 3339 in UTC with six fractional digits. */
export function formatMicroTime(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** The record of a Lease object (missing fields as client-go reads them: empty, zero). */
export function recordOf(lease: RawBody): LeaseRecord {
  const spec = (lease.spec ?? {}) as Record<string, unknown>;
  const number = (value: unknown) => typeof value === "number" ? value : 0;
  return {
    holderIdentity: typeof spec.holderIdentity === "string" ? spec.holderIdentity : "",
    leaseDurationSeconds: number(spec.leaseDurationSeconds),
    ...(typeof spec.acquireTime === "string" ? { acquireTime: spec.acquireTime } : {}),
    ...(typeof spec.renewTime === "string" ? { renewTime: spec.renewTime } : {}),
    leaseTransitions: number(spec.leaseTransitions),
  };
}

function sameRecord(a: LeaseRecord | undefined, b: LeaseRecord): boolean {
  return a !== undefined && a.holderIdentity === b.holderIdentity &&
    a.leaseDurationSeconds === b.leaseDurationSeconds && a.acquireTime === b.acquireTime &&
    a.renewTime === b.renewTime && a.leaseTransitions === b.leaseTransitions;
}

/** Options of {@link LeaseLock}. */
export interface LeaseLockOptions {
  /** The API client. */
  readonly api: ApiClient;
  /** The Lease's namespace. */
  readonly namespace: string;
  /** The Lease's name. */
  readonly name: string;
  /** This replica's identity: the holder it writes. */
  readonly identity: string;
  /** Seconds a holder may go without renewing before others may take the lease. */
  readonly leaseDuration: number;
  /** Labels of the Lease when this lock creates it. */
  readonly labels?: Readonly<Record<string, string>>;
  /** The clock of the expiries (the real one by default). */
  readonly clock?: Clock;
}

/**
 * One Lease as a lock: {@link LeaseLock.tryAcquireOrRenew} takes it when it is free, ours
 * or expired, and {@link LeaseLock.release} gives it back so that another replica can
 * take it at once. Not safe for concurrent calls: one owner calls it in turn.
 */
export class LeaseLock {
  readonly #api: ApiClient;
  readonly #namespace: string;
  readonly #clock: Clock;
  readonly #labels: Readonly<Record<string, string>> | undefined;
  /** The Lease's name. */
  readonly name: string;
  /** This replica's identity. */
  readonly identity: string;
  /** The lease duration this replica writes, in seconds. */
  readonly leaseDuration: number;
  #observed: LeaseRecord | undefined;
  /** When (this clock's seconds) the record was last seen to change. */
  #observedAt = 0;
  #version: string | undefined;

  /** A lock over the Lease; nothing is read or written until used. */
  constructor(options: LeaseLockOptions) {
    this.#api = options.api;
    this.#namespace = options.namespace;
    this.name = options.name;
    this.identity = options.identity;
    this.leaseDuration = options.leaseDuration;
    this.#labels = options.labels;
    this.#clock = options.clock ?? realClock;
  }

  /** The record as last read or written; `undefined` before the first call. */
  get observed(): LeaseRecord | undefined {
    return this.#observed;
  }

  /** Whether this replica held the lease as of the last read or write. */
  get held(): boolean {
    return this.#observed?.holderIdentity === this.identity;
  }

  /**
   * Whether another replica's hold on the lease is valid now: it holds it, and its record
   * changed less than its lease duration ago (by this clock).
   */
  heldByAnother(): boolean {
    const record = this.#observed;
    if (record === undefined || record.holderIdentity === "" || this.held) return false;
    const duration = record.leaseDurationSeconds > 0 ? record.leaseDurationSeconds : 0;
    return this.#observedAt + duration > this.#clock.now();
  }

  /**
   * Take note of the Lease as read elsewhere (e.g. in a listing of several), so that its
   * expiry counts from when it was first seen in this state, not from the next attempt.
   */
  observe(lease: RawBody): void {
    this.#observe(recordOf(lease), lease.metadata?.resourceVersion);
  }

  #observe(record: LeaseRecord, version: string | undefined): void {
    if (!sameRecord(this.#observed, record)) {
      this.#observed = record;
      this.#observedAt = this.#clock.now();
    }
    this.#version = version;
  }

  /**
   * Take the lease if it is free, ours, or expired; renew it if ours. True if this replica
   * holds it afterwards. API errors (other than the 404 of a lease to create and the 409
   * of a lost race, which are false) are thrown for the caller to report and retry.
   */
  async tryAcquireOrRenew(signal?: AbortSignal): Promise<boolean> {
    const now = formatMicroTime(this.#clock.wall());
    const current = await this.#read(signal);
    if (current === undefined) {
      const record: LeaseRecord = {
        holderIdentity: this.identity,
        leaseDurationSeconds: this.leaseDuration,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: 0,
      };
      try {
        const created = await createObject(this.#api, LEASES, {
          apiVersion: LEASES.apiVersion,
          kind: LEASES.kind,
          metadata: {
            name: this.name,
            namespace: this.#namespace,
            ...(this.#labels ? { labels: { ...this.#labels } } : {}),
          },
          spec: { ...record },
        }, { signal });
        this.#observe(record, created.metadata?.resourceVersion);
        return true;
      } catch (creating) {
        if (creating instanceof APIConflictError) return false; // created by another meanwhile
        throw creating;
      }
    }
    const old = recordOf(current);
    this.#observe(old, current.metadata?.resourceVersion);
    if (this.heldByAnother()) return false;
    const ours = old.holderIdentity === this.identity;
    const record: LeaseRecord = {
      holderIdentity: this.identity,
      leaseDurationSeconds: this.leaseDuration,
      acquireTime: ours && old.acquireTime ? old.acquireTime : now,
      renewTime: now,
      leaseTransitions: ours ? old.leaseTransitions : old.leaseTransitions + 1,
    };
    return await this.#write(current, record, signal);
  }

  /**
   * Give the lease back if this replica holds it: an empty holder and a one-second
   * duration, as client-go writes on release, so that any other replica takes it at once.
   * True if released (or not ours anyway).
   */
  async release(signal?: AbortSignal): Promise<boolean> {
    if (!this.held) return true;
    const current = await this.#read(signal);
    if (current === undefined) return true;
    const old = recordOf(current);
    this.#observe(old, current.metadata?.resourceVersion);
    if (old.holderIdentity !== this.identity) return true; // taken over already
    const now = formatMicroTime(this.#clock.wall());
    return await this.#write(current, {
      holderIdentity: "",
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: old.leaseTransitions,
    }, signal);
  }

  /** The Lease as it is now; `undefined` if there is none. */
  async #read(signal?: AbortSignal): Promise<RawBody | undefined> {
    try {
      return await getObject(this.#api, LEASES, { name: this.name, namespace: this.#namespace }, {
        signal,
      });
    } catch (error) {
      if (error instanceof APINotFoundError) return undefined;
      throw error;
    }
  }

  async #write(current: RawBody, record: LeaseRecord, signal?: AbortSignal): Promise<boolean> {
    const spec = { ...(current.spec as Record<string, unknown> | undefined), ...record };
    try {
      const written = await replaceObject(
        this.#api,
        LEASES,
        {
          name: this.name,
          namespace: this.#namespace,
        },
        { ...current, spec } as RawBody,
        { signal },
      );
      this.#observe(record, written.metadata?.resourceVersion);
      return record.holderIdentity === this.identity || record.holderIdentity === "";
    } catch (error) {
      if (error instanceof APIConflictError) return false; // another replica wrote first
      throw error;
    }
  }

  /** Seconds (this clock's) since the record was last seen to change; 0 before any. */
  unchangedFor(): number {
    return this.#observed === undefined ? 0 : this.#clock.now() - this.#observedAt;
  }

  /**
   * Delete the Lease if it is still as last seen (a precondition on its
   * `resourceVersion`): a Lease written meanwhile is kept. True if it is gone.
   */
  async delete(signal?: AbortSignal): Promise<boolean> {
    try {
      await deleteObject(this.#api, LEASES, { name: this.name, namespace: this.#namespace }, {
        signal,
        ...(this.#version !== undefined
          ? { preconditions: { resourceVersion: this.#version } }
          : {}),
      });
      this.#observed = undefined;
      return true;
    } catch (error) {
      if (error instanceof APINotFoundError) return true;
      if (error instanceof APIConflictError) return false;
      throw error;
    }
  }

  /**
   * Delete the Lease if this replica holds it as it is now on the server, whatever this
   * lock last saw: a write cut off by a stop may have landed all the same (the request
   * reached the server, the answer never came back), so the lock's own view can be stale
   * or empty. True if no Lease of this replica's remains; a few conflicts are re-read.
   */
  async deleteOwn(signal?: AbortSignal): Promise<boolean> {
    for (let attempt = 0; attempt < OWN_DELETE_ATTEMPTS; attempt++) {
      const current = await this.#read(signal);
      if (current === undefined) return true;
      this.#observe(recordOf(current), current.metadata?.resourceVersion);
      if (!this.held) return true;
      if (await this.delete(signal)) return true;
    }
    return false;
  }

  /** The `resourceVersion` last read or written, for tests and messages. */
  get resourceVersion(): string | undefined {
    return this.#version;
  }
}
