/**
 * Sharding: the objects are split into a fixed number of shards by a stable hash of their
 * uid, and each shard is handled by the one replica that holds its Lease -- so that several
 * replicas share the work, and no object is ever handled by two of them at once.
 *
 * - Each replica keeps a membership Lease of its own (`<name>-member-<hash>`), renewed like
 *   a leader's. The live members are those whose Lease has changed within its duration
 *   (by this replica's clock).
 * - Each shard's owner is chosen among the live members by rendezvous hashing with
 *   bounded loads ({@link assignShards}): every replica computes the same choice, the
 *   shares are even, and a member coming or going moves few shards besides its own.
 * - A replica acquires the Leases of the shards it should own (`<name>-shard-<n>`) when
 *   they are free or expired, and renews them. A shard it should no longer own is handed
 *   over: its objects stop being handled here first (running handlers finish, daemons and
 *   timers exit), then its Lease is released, and only then can the new owner take it.
 * - A shard Lease that cannot be renewed for `renewDeadline` is lost: its objects stop
 *   being handled before anyone else may take it (`leaseDuration` after the last renewal).
 * - A replica that dies stops renewing: its membership and its shards expire after the
 *   lease duration, and the survivors take its shards over. A member Lease left unchanged
 *   for {@link STALE_MEMBER_FACTOR} lease durations is deleted by whichever replica sees
 *   it so, and a replica that stops gracefully deletes its own: the Leases of replaced
 *   pods do not pile up.
 *
 * One listing of the coordination's Leases per retry period keeps every replica's view of
 * all members and shards current, so that expiries count from when a Lease last changed,
 * not from when this replica first wanted it.
 *
 * @module
 */
import { Channel } from "../structs/channels.ts";
import type { RawBody } from "../structs/bodies.ts";
import { type Clock, realClock, sleep } from "../structs/clock.ts";
import { FailureStreak } from "../structs/failure_streaks.ts";
import type { Logger } from "../structs/loggers.ts";
import { summarizeError } from "../structs/log_formats.ts";
import type { ApiClient } from "../client/api.ts";
import { listObjects } from "../client/objects.ts";
import { LeaseLock, LEASES } from "./leases.ts";
import {
  type Coordination,
  type CoordinationChange,
  Handover,
  type LeaseTimings,
} from "./leader_election.ts";

/** The label of the Leases of one coordination: its name. */
export const COORDINATION_LABEL = "kopf.dev/coordination";
/** The label that tells members' Leases from shards'. */
export const ROLE_LABEL = "kopf.dev/role";

/** FNV-1a, 32 bits: a stable, well-spread hash of a string. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/**
 * MurmurHash3's finalizer: FNV-1a alone barely mixes a change in the last characters
 * (member names often differ only there), which would skew the rendezvous choice.
 */
function mix(hash: number): number {
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** The shard of an object: by its uid (by its namespace and name if it has none yet). */
export function shardOf(body: RawBody, shards: number): number {
  const meta = body.metadata ?? {};
  const key = meta.uid ?? `${meta.namespace ?? ""}/${meta.name ?? ""}`;
  return fnv1a(key) % shards;
}

/**
 * The owner of each shard among the members (by index; empty without members): rendezvous
 * hashing with bounded loads -- each shard goes to the member that scores highest for it
 * among those below their fair share (the count divided by the members, some rounded up
 * so that the shares add up). Every replica computes the same from the same members, whatever their order; the
 * shares stay even (3 shards over 3 replicas: one each, which plain rendezvous hashing
 * does not promise), and a member coming or going moves few shards besides its own.
 */
export function assignShards(count: number, members: readonly string[]): string[] {
  if (members.length === 0) return [];
  const sorted = [...new Set(members)].sort();
  // Each member takes `base` shards, and `extra` of them one more.
  const base = Math.floor(count / sorted.length);
  let extra = count % sorted.length;
  const load = new Map(sorted.map((member) => [member, 0]));
  const owners: string[] = [];
  for (let shard = 0; shard < count; shard++) {
    let best: string | undefined;
    let bestScore = -1;
    for (const member of sorted) {
      const taken = load.get(member)!;
      if (taken > base || (taken === base && extra === 0)) continue;
      const score = mix(fnv1a(`${shard}\u0000${member}`));
      if (score > bestScore) {
        best = member;
        bestScore = score;
      }
    }
    owners.push(best!);
    const taken = load.get(best!)! + 1;
    load.set(best!, taken);
    if (taken > base) extra--;
  }
  return owners;
}

/** Options of {@link ShardCoordinator}. */
export interface ShardCoordinatorOptions {
  /** The API client. */
  readonly api: ApiClient;
  /** The Leases' namespace. */
  readonly namespace: string;
  /** The coordination's name: the prefix of its Leases. */
  readonly name: string;
  /** This replica's identity. */
  readonly identity: string;
  /** How many shards the objects are split into. */
  readonly shards: number;
  /** The timings. */
  readonly timings: LeaseTimings;
  /** Where to report. */
  readonly logger: Logger;
  /** The clock of the pauses and expiries (the real one by default). */
  readonly clock?: Clock;
  /** Randomness for the jitter (for tests). */
  readonly random?: () => number;
}

type ShardState = "free" | "held" | "handing-over" | "lost";

interface Shard {
  readonly index: number;
  readonly lock: LeaseLock;
  state: ShardState;
  /** When (the clock's seconds) it was last renewed while held. */
  renewedAt: number;
}

const JITTER_FACTOR = 1.2;

/** How many lease durations a member's Lease stays unchanged before it is deleted. */
export const STALE_MEMBER_FACTOR = 4;

/** One replica's part in the sharding; see the module docs. */
export class ShardCoordinator implements Coordination {
  readonly #api: ApiClient;
  readonly #namespace: string;
  readonly #name: string;
  readonly #identity: string;
  readonly #count: number;
  readonly #timings: LeaseTimings;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #changes = new Channel<CoordinationChange>();
  readonly #member: LeaseLock;
  readonly #shards: Shard[];
  /** The shards whose objects are handled here: the hot path's set. */
  readonly #owned = new Set<number>();
  /** Member Leases by name, as last listed, with when they last changed. */
  readonly #members = new Map<string, LeaseLock>();
  readonly #handovers = new Set<Promise<void>>();
  #running: Promise<void> | undefined;

  /** A member-to-be; nothing happens until {@link ShardCoordinator.run}. */
  constructor(options: ShardCoordinatorOptions) {
    this.#api = options.api;
    this.#namespace = options.namespace;
    this.#name = options.name;
    this.#identity = options.identity;
    this.#count = options.shards;
    this.#timings = options.timings;
    this.#logger = options.logger;
    this.#clock = options.clock ?? realClock;
    this.#random = options.random ?? Math.random;
    this.#member = this.#lock(
      `${options.name}-member-${fnv1a(options.identity).toString(16)}`,
      "member",
    );
    this.#shards = Array.from({ length: options.shards }, (_, index) => ({
      index,
      lock: this.#lock(`${options.name}-shard-${index}`, "shard"),
      state: "free" as ShardState,
      renewedAt: 0,
    }));
  }

  /** The changes of the shards held; see {@link Coordination.changes}. */
  get changes(): AsyncIterable<CoordinationChange> {
    return this.#changes;
  }

  #lock(name: string, role: string, identity = this.#identity): LeaseLock {
    return new LeaseLock({
      api: this.#api,
      namespace: this.#namespace,
      name,
      identity,
      leaseDuration: this.#timings.leaseDuration,
      labels: { [COORDINATION_LABEL]: this.#name, [ROLE_LABEL]: role },
      clock: this.#clock,
    });
  }

  /** The shards this replica handles now, sorted. */
  get owned(): number[] {
    return [...this.#owned].sort((a, b) => a - b);
  }

  /** Whether this replica handles any shard now. */
  get active(): boolean {
    return this.#owned.size > 0;
  }

  /** Whether the object's shard is handled here now. */
  owns(body: RawBody): boolean {
    return this.#owned.has(shardOf(body, this.#count));
  }

  /** Take part until the signal aborts (the Leases are kept: see `release`). */
  run(signal: AbortSignal): Promise<void> {
    this.#running ??= this.#run(signal);
    return this.#running;
  }

  async #run(signal: AbortSignal): Promise<void> {
    const streak = new FailureStreak({
      logger: this.#logger,
      what: `The sharding ${this.#name}`,
      clock: this.#clock,
    });
    let rounds = 0;
    while (!signal.aborted) {
      try {
        await this.#round(signal, rounds++);
        streak.succeeded();
      } catch (error) {
        if (signal.aborted) break;
        streak.failed({ reason: summarizeError(error), retryIn: this.#timings.retryPeriod });
      }
      // Shards whose renewal failed for too long are lost, whatever else failed.
      this.#expireHeld();
      const pause = this.#timings.retryPeriod * (1 + this.#random() * JITTER_FACTOR);
      if (!await sleep(pause, signal, this.#clock)) break;
    }
  }

  /** One round: membership, the view of all Leases, then each shard. */
  async #round(signal: AbortSignal, round: number): Promise<void> {
    const timeout = new AbortController();
    const cancel = this.#clock.schedule(this.#timings.renewDeadline, () => timeout.abort());
    const attempt = AbortSignal.any([signal, timeout.signal]);
    try {
      await this.#member.tryAcquireOrRenew(attempt);
      const listed = await listObjects(this.#api, LEASES, {
        namespace: this.#namespace,
        labelSelector: `${COORDINATION_LABEL}=${this.#name}`,
        signal: attempt,
      });
      const members = this.#liveMembers(listed.items);
      await this.#deleteStaleMembers(attempt);
      for (const lease of listed.items) {
        const shard = this.#shards.find((s) => s.lock.name === lease.metadata?.name);
        if (shard !== undefined && shard.state === "free") shard.lock.observe(lease);
      }
      // The first round only announces this replica: the others are seen before choosing.
      if (round === 0) return;
      let gained = false;
      const owners = assignShards(this.#count, members);
      for (const shard of this.#shards) {
        const wanted = owners[shard.index] === this.#identity;
        gained = await this.#step(shard, wanted, attempt) || gained;
      }
      if (gained) this.#changes.send({ type: "gained" });
    } finally {
      cancel();
    }
  }

  /** The identities of the live members, this replica included. */
  #liveMembers(leases: readonly RawBody[]): string[] {
    const live = new Set<string>([this.#identity]);
    const seen = new Set<string>();
    for (const lease of leases) {
      const labels = lease.metadata?.labels ?? {};
      const name = lease.metadata?.name;
      if (labels[ROLE_LABEL] !== "member" || name === undefined) continue;
      seen.add(name);
      let lock = this.#members.get(name);
      if (lock === undefined) {
        // A lock only to judge the member's record; this replica never writes it.
        lock = this.#lock(name, "member", "");
        this.#members.set(name, lock);
      }
      lock.observe(lease);
      const holder = lock.observed?.holderIdentity;
      if (holder && lock.heldByAnother()) live.add(holder);
    }
    for (const name of [...this.#members.keys()]) if (!seen.has(name)) this.#members.delete(name);
    return [...live].sort();
  }

  /** Delete the member Leases of replicas long gone (see the module docs). */
  async #deleteStaleMembers(signal: AbortSignal): Promise<void> {
    const stale = STALE_MEMBER_FACTOR * Math.max(1, this.#timings.leaseDuration);
    for (const [name, lock] of this.#members) {
      if (name === this.#member.name || lock.unchangedFor() < stale) continue;
      try {
        if (await lock.delete(signal)) {
          this.#members.delete(name);
          this.#logger.debug(`The Lease ${name} of a member long gone is deleted.`);
        }
      } catch (error) {
        if (signal.aborted) throw error;
        this.#logger.debug(`The stale Lease ${name} is not deleted: ${summarizeError(error)}`);
      }
    }
  }

  /** Move one shard toward what it should be; true if it was gained. */
  async #step(shard: Shard, wanted: boolean, signal: AbortSignal): Promise<boolean> {
    switch (shard.state) {
      case "held":
        if (wanted) await this.#renew(shard, signal);
        else this.#handOver(shard);
        return false;
      case "handing-over":
        await this.#renew(shard, signal); // kept until its objects are let go
        return false;
      case "lost":
        return false; // let go in the background; free again afterwards
      case "free":
        if (!wanted) return false;
        if (await shard.lock.tryAcquireOrRenew(signal)) {
          shard.state = "held";
          shard.renewedAt = this.#clock.now();
          this.#owned.add(shard.index);
          this.#logger.info(
            `Handling the shard ${shard.index} of ${this.#count}: the Lease ${shard.lock.name} ` +
              "is acquired.",
          );
          return true;
        }
        return false;
    }
  }

  async #renew(shard: Shard, signal: AbortSignal): Promise<boolean> {
    try {
      if (await shard.lock.tryAcquireOrRenew(signal)) {
        shard.renewedAt = this.#clock.now();
        return true;
      }
    } catch (error) {
      this.#logger.warning(
        `Renewing the Lease ${shard.lock.name} failed (${summarizeError(error)}); retrying in ` +
          `${this.#timings.retryPeriod}s; the shard is lost if not renewed for ` +
          `${this.#timings.renewDeadline}s.`,
      );
    }
    return false;
  }

  /** Shards not renewed for the renew deadline are lost: let their objects go at once. */
  #expireHeld(): void {
    const now = this.#clock.now();
    for (const shard of this.#shards) {
      if (shard.state !== "held" && shard.state !== "handing-over") continue;
      if (shard.renewedAt + this.#timings.renewDeadline > now) continue;
      const handing = shard.state === "handing-over";
      shard.state = "lost";
      this.#owned.delete(shard.index);
      this.#logger.error(
        `The shard ${shard.index} is lost: its Lease ${shard.lock.name} could not be renewed ` +
          `for ${this.#timings.renewDeadline}s; its objects are not handled here any more.`,
      );
      if (!handing) {
        const deadline = shard.renewedAt + this.#timings.leaseDuration;
        this.#background(this.#letGo(deadline).finally(() => (shard.state = "free")));
      }
    }
  }

  /** Let a shard go to its new owner: stop handling its objects, then release its Lease. */
  #handOver(shard: Shard): void {
    shard.state = "handing-over";
    this.#owned.delete(shard.index);
    this.#logger.info(
      `Handing the shard ${shard.index} over: its objects are let go, then its Lease ` +
        `${shard.lock.name} is released.`,
    );
    const deadline = this.#clock.now() + this.#timings.leaseDuration;
    this.#background((async () => {
      await this.#letGo(deadline);
      if (shard.state !== "handing-over") return; // lost meanwhile: nothing to release
      try {
        await shard.lock.release();
      } catch (error) {
        this.#logger.warning(
          `Releasing the Lease ${shard.lock.name} failed (${summarizeError(error)}); it ` +
            `expires in ${this.#timings.leaseDuration}s.`,
        );
      }
      shard.state = "free";
    })());
  }

  /** Announce that objects stop being this replica's; resolve once they are let go. */
  #letGo(deadline: number): Promise<void> {
    const handover = new Handover(deadline);
    this.#changes.send({ type: "losing", handover });
    return handover.completed;
  }

  #background(task: Promise<void>): void {
    this.#handovers.add(task);
    void task.finally(() => this.#handovers.delete(task));
  }

  /** Give back every shard and the membership: the last step of a graceful stop. */
  async release(): Promise<void> {
    this.#owned.clear();
    await Promise.all([...this.#handovers]);
    this.#changes.close();
    const timeout = new AbortController();
    const cancel = this.#clock.schedule(this.#timings.renewDeadline, () => timeout.abort());
    try {
      const held = this.#shards.filter((s) => s.state === "held" || s.state === "handing-over");
      const giveBack = async (lock: LeaseLock, how: (signal: AbortSignal) => Promise<boolean>) => {
        try {
          if (!await how(timeout.signal)) {
            this.#logger.warning(
              `The Lease ${lock.name} kept changing while being released; it expires in ` +
                `${this.#timings.leaseDuration}s.`,
            );
          }
        } catch (error) {
          this.#logger.warning(
            `Releasing the Lease ${lock.name} failed (${summarizeError(error)}); it expires ` +
              `in ${this.#timings.leaseDuration}s.`,
          );
        }
      };
      // The shards' Leases stay (their names are reused); this replica's membership goes,
      // read afresh: a renewal the stop cut off may have been written all the same.
      await Promise.all([
        ...held.map((s) => giveBack(s.lock, (signal) => s.lock.release(signal))),
        giveBack(this.#member, (signal) => this.#member.deleteOwn(signal)),
      ]);
      for (const shard of held) shard.state = "free";
      if (held.length > 0) {
        this.#logger.info(`The shards ${held.map((s) => s.index).join(", ")} are released.`);
      }
    } finally {
      cancel();
    }
  }
}
