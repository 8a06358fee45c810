/**
 * The progress of handlers across handling cycles: which have succeeded, failed, are
 * retrying or sleeping, and what to persist about them — Kopf's semantics and formats.
 *
 * Pure and immutable: every change returns a new {@link State}; storage is reached only
 * through the given progress storage (which fills a patch), never the API directly.
 *
 * A handling cycle uses it so (a sketch; the names stand for the cycle's own values):
 *
 * ```ts ignore
 * let state = await State.fromStorage({ body, storage, handlers });  // what was persisted
 * state = state.withPurpose(reason).withHandlers(handlers);          // these are in play now
 * const due = state.selectAwakened(handlers);                        // not finished, not sleeping
 * // ... invoke some of `due`, collecting an Outcome per handler id ...
 * state = state.withOutcomes(outcomes);
 * deliverResults(outcomes, patch);                                   // results → status.<id>
 * if (state.done) await state.purge({ body, patch, storage, handlers });
 * else await state.store({ body, patch, storage });                  // and sleep state.delay s
 * ```
 *
 * @module
 */

import { isMapping, jsonEqual } from "../structs/dicts.ts";
import { PermanentError, StoredStateError } from "../structs/errors.ts";
import type { RawBody } from "../structs/bodies.ts";
import { type Clock, realClock } from "../structs/clock.ts";
import { Patch } from "../structs/patches.ts";
import { isThenable } from "../structs/thenables.ts";
import type {
  ProgressRecord,
  ProgressStorage,
  StoragePatch,
} from "../settings/progress_storages.ts";

/** Anything with a handler id: handler records, or `{ id }`. */
export interface HandlerRef {
  /** The handler id, e.g. `create_fn` or `create_fn/sub1`. */
  readonly id: string;
}

/** What one invocation of one handler ended with. */
export interface Outcome {
  /** Whether the handler is done for good (succeeded, or failed permanently). */
  readonly final: boolean;
  /** Seconds until the next attempt, for non-final outcomes; `null`/absent for "at once". */
  readonly delay?: number | null;
  /** The handler's return value; delivered to `status.<id>` unless `undefined`. */
  readonly result?: unknown;
  /** The error it raised, if any (its message is persisted). */
  readonly error?: unknown;
  /** The ids of sub-handlers it ran, at all depths, so they are purged with it. */
  readonly subrefs?: readonly string[];
}

/** Counts of handlers by their fate. */
export interface StateCounters {
  /** Succeeded for good. */
  readonly success: number;
  /** Failed for good. */
  readonly failure: number;
  /** Neither yet. */
  readonly running: number;
}

/**
 * Where a handler of the cycle stands: `succeeded` or `failed` for good; `retrying` after an
 * error (it is run again); `pending` while it has not run yet, or waits for its sub-handlers.
 */
export type HandlerFateKind = "succeeded" | "failed" | "retrying" | "pending";

/** A handler of the cycle, where it stands, and its last error's message (if any). */
export interface HandlerFate {
  /** The handler id. */
  readonly id: string;
  /** Where it stands. */
  readonly fate: HandlerFateKind;
  /** The last error's message: of the failure, or of the error it is retried after. */
  readonly message: string | null;
}

const MICROS_PER_SECOND = 1_000_000;

/** No sub-handlers: shared by the states without any (frozen, as states keep their lists). */
const NO_SUBREFS: readonly string[] = Object.freeze([]);

/** Epoch microseconds from the clock's wall time (in fractional milliseconds). */
function nowMicros(clock: Clock): number {
  return Math.round(clock.wall() * 1000);
}

/**
 * A time as Python's `datetime.isoformat(timespec="microseconds")` prints an aware UTC
 * time: `2020-12-31T23:59:59.123456+00:00`.
 */
export function formatIso8601(micros: number): string {
  const fraction = ((micros % MICROS_PER_SECOND) + MICROS_PER_SECOND) % MICROS_PER_SECOND;
  const seconds = (micros - fraction) / MICROS_PER_SECOND;
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  return `${base}.${String(fraction).padStart(6, "0")}+00:00`;
}

const ISO8601 =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Epoch microseconds of an ISO-8601 time as Kopf writes it (and as older Kopf versions
 * did: without a zone, meaning UTC), or `null` if the text is not such a time.
 */
export function parseIso8601(text: string): number | null {
  const m = ISO8601.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const ms = Date.UTC(+y, +mo - 1, +d, +h, +mi, s ? +s : 0);
  if (Number.isNaN(ms)) return null;
  let micros = ms * 1000 + (frac ? Number(frac.slice(0, 6).padEnd(6, "0")) : 0);
  if (zone && zone.toUpperCase() !== "Z") {
    const sign = zone[0] === "-" ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    const offset = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || "0");
    micros -= sign * offset * 60 * MICROS_PER_SECOND;
  }
  return micros;
}

/** Python's `str(exception)`: the message of an error, or the thrown value as text. */
function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/** Python's sort order of strings: by code points (not UTF-16 units). */
function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const ca = ia.next();
    const cb = ib.next();
    if (ca.done || cb.done) return ca.done ? (cb.done ? 0 : -1) : 1;
    const diff = ca.value.codePointAt(0)! - cb.value.codePointAt(0)!;
    if (diff !== 0) return diff;
  }
}

function sortedUnique(ids: Iterable<string>): string[] {
  return [...new Set(ids)].sort(compareCodePoints);
}

function readTime(record: ProgressRecord, field: "started" | "stopped" | "delayed", id: string) {
  const value = record[field];
  if (value === undefined || value === null) return null;
  const micros = typeof value === "string" ? parseIso8601(value) : null;
  if (micros === null) {
    throw new StoredStateError(
      `The progress record of handler ${JSON.stringify(id)} has a bad ${field} time ` +
        `${JSON.stringify(value)}; fix or delete the record to let the handler continue.`,
    );
  }
  return micros;
}

/** The fields of a {@link HandlerState}. */
export interface HandlerStateFields {
  /** Whether the handler takes part in this cycle (counts for `done` and delays). */
  readonly active: boolean;
  /** When it was first attempted, in epoch microseconds. */
  readonly started: number;
  /** When it finished for good, in epoch microseconds; `null` while running. */
  readonly stopped: number | null;
  /** When to attempt it next, in epoch microseconds; `null` for "at once" (or finished). */
  readonly delayed: number | null;
  /** The reason it runs for (create, update, ...); `null` when unknown. */
  readonly purpose: string | null;
  /** Attempts made so far. */
  readonly retries: number;
  /** Succeeded for good. */
  readonly success: boolean;
  /** Failed for good. */
  readonly failure: boolean;
  /** The last error's message. */
  readonly message: string | null;
  /** Ids of its sub-handlers at all depths, sorted. */
  readonly subrefs: readonly string[];
  /** The record as it was read from storage, to skip writing unchanged ones. */
  readonly origin: ProgressRecord | null;
}

/** The state of one handler: immutable; each change returns a new one. */
export class HandlerState implements HandlerStateFields {
  readonly active: boolean;
  readonly started: number;
  readonly stopped: number | null;
  readonly delayed: number | null;
  readonly purpose: string | null;
  readonly retries: number;
  readonly success: boolean;
  readonly failure: boolean;
  readonly message: string | null;
  readonly subrefs: readonly string[];
  readonly origin: ProgressRecord | null;
  /** The clock that "now" comes from. */
  readonly clock: Clock;

  /** A state from its fields (see {@link HandlerState.fromScratch} and `fromStorage`). */
  constructor(fields: HandlerStateFields, clock: Clock) {
    this.active = fields.active;
    this.started = fields.started;
    this.stopped = fields.stopped;
    this.delayed = fields.delayed;
    this.purpose = fields.purpose;
    this.retries = fields.retries;
    this.success = fields.success;
    this.failure = fields.failure;
    this.message = fields.message;
    // Another state's (frozen) list is shared, not copied: states change often, subrefs rarely.
    this.subrefs = Object.isFrozen(fields.subrefs)
      ? fields.subrefs
      : Object.freeze([...fields.subrefs]);
    this.origin = fields.origin;
    this.clock = clock;
    Object.freeze(this);
  }

  /** A handler about to run for the first time. */
  static fromScratch(clock: Clock, purpose: string | null = null): HandlerState {
    return new HandlerState({
      active: true,
      started: nowMicros(clock),
      stopped: null,
      delayed: null,
      purpose,
      retries: 0,
      success: false,
      failure: false,
      message: null,
      subrefs: NO_SUBREFS,
      origin: null,
    }, clock);
  }

  /** A handler as persisted (by us or by Python Kopf); inactive until selected. */
  static fromStorage(record: ProgressRecord, clock: Clock, id = "?"): HandlerState {
    return new HandlerState({
      active: false,
      started: readTime(record, "started", id) ?? nowMicros(clock),
      stopped: readTime(record, "stopped", id),
      delayed: readTime(record, "delayed", id),
      purpose: record.purpose ? String(record.purpose) : null,
      retries: typeof record.retries === "number" ? record.retries : 0,
      success: record.success === true,
      failure: record.failure === true,
      message: typeof record.message === "string" ? record.message : null,
      subrefs: Array.isArray(record.subrefs)
        ? Object.freeze(record.subrefs.map(String))
        : NO_SUBREFS,
      origin: record,
    }, clock);
  }

  /** Succeeded or failed for good. */
  get finished(): boolean {
    return this.success || this.failure;
  }

  /** Not finished, and its next attempt is in the future. */
  get sleeping(): boolean {
    return !this.finished && this.delayed !== null && this.delayed > nowMicros(this.clock);
  }

  /** Not finished and not sleeping: due to run now. */
  get awakened(): boolean {
    return !this.finished && !this.sleeping;
  }

  /** Seconds since the first attempt. */
  get runtime(): number {
    return (nowMicros(this.clock) - this.started) / MICROS_PER_SECOND;
  }

  /** When the first attempt was, as a `Date` (millisecond precision). */
  get startedAt(): Date {
    return new Date(Math.floor(this.started / 1000));
  }

  /** Seconds until the next attempt: 0 when due now, `null` when finished. */
  get delay(): number | null {
    if (this.finished) return null;
    if (this.delayed === null) return 0;
    return Math.max(0, (this.delayed - nowMicros(this.clock)) / MICROS_PER_SECOND);
  }

  /** The record to persist, in Kopf's field order, with `null` for the unknown fields. */
  forStorage(): ProgressRecord {
    return {
      started: formatIso8601(this.started),
      stopped: this.stopped === null ? null : formatIso8601(this.stopped),
      delayed: this.delayed === null ? null : formatIso8601(this.delayed),
      purpose: this.purpose,
      retries: this.retries,
      success: this.success,
      failure: this.failure,
      message: this.message,
      subrefs: this.subrefs.length ? [...this.subrefs] : null,
    };
  }

  /** The record as the object would hold it after storing (no `null` fields). */
  asInStorage(): ProgressRecord {
    return withoutNulls(this.forStorage());
  }

  #with(changes: Partial<HandlerStateFields>): HandlerState {
    return new HandlerState({ ...this, ...changes }, this.clock);
  }

  /** The same state, taking part in this cycle. */
  asActive(): HandlerState {
    return this.active ? this : this.#with({ active: true });
  }

  /** The same state with another purpose. */
  withPurpose(purpose: string | null): HandlerState {
    return this.#with({ purpose });
  }

  /** The state after one more attempt that ended with `outcome`. */
  withOutcome(outcome: Outcome): HandlerState {
    const now = nowMicros(this.clock);
    const failed = outcome.error !== undefined && outcome.error !== null;
    const delay = outcome.delay;
    // All the fields in one literal, not a spread of this state: this runs per handler call.
    return new HandlerState({
      active: this.active,
      started: this.started,
      stopped: this.stopped ?? (outcome.final ? now : null),
      delayed: delay === undefined || delay === null
        ? null
        : now + Math.round(delay * MICROS_PER_SECOND),
      purpose: this.purpose,
      retries: this.retries + 1,
      success: outcome.final && !failed,
      failure: outcome.final && failed,
      message: failed ? messageOf(outcome.error) : null,
      subrefs: this.subrefs.length === 0 && !outcome.subrefs?.length
        ? this.subrefs
        : Object.freeze(sortedUnique([...this.subrefs, ...(outcome.subrefs ?? [])])),
      origin: this.origin,
    }, this.clock);
  }
}

/** Options of {@link State.fromStorage}. */
export interface StateLoadOptions {
  /** The object as last seen. */
  readonly body: RawBody;
  /** Where progress is kept (`settings.persistence.progressStorage`). */
  readonly storage: ProgressStorage;
  /** The handlers whose records to read (the relevant ones for the cause). */
  readonly handlers: Iterable<HandlerRef>;
  /** The clock; the real one by default. */
  readonly clock?: Clock;
}

/** Options of {@link State.store} and {@link State.purge}. */
export interface StateStoreOptions {
  /** The object as last seen. */
  readonly body: RawBody;
  /** The patch to fill. */
  readonly patch: StoragePatch;
  /** Where progress is kept. */
  readonly storage: ProgressStorage;
}

/** Options of {@link State.purge}. */
export interface StatePurgeOptions extends StateStoreOptions {
  /** Our handlers: their records (and their sub-handlers') are removed. */
  readonly handlers: Iterable<HandlerRef>;
}

/** Given as the states by {@link State}'s own derivations, which set the map right after. */
const DERIVED: Iterable<[string, HandlerState]> = Object.freeze([]);
const NO_STATES: ReadonlyMap<string, HandlerState> = new Map();
/** The default of {@link State.withPurpose}: no handlers to re-purpose. */
const NO_HANDLERS: Iterable<HandlerRef> = Object.freeze([]);

function withoutNulls(record: ProgressRecord): ProgressRecord {
  const out: Record<string, unknown> = {};
  for (const key in record) {
    const value = record[key as keyof ProgressRecord];
    if (value !== null) out[key] = value;
  }
  return out as ProgressRecord;
}

/**
 * Add the id to the list unless it is there: a search while the list is short (a set costs
 * more for the few handlers an object usually has), then the set given back (kept by the
 * caller for the next ids).
 */
function addId(ids: string[], seen: Set<string> | undefined, id: string): Set<string> | undefined {
  if (seen === undefined ? ids.includes(id) : seen.has(id)) return seen;
  ids.push(id);
  if (seen !== undefined) seen.add(id);
  else if (ids.length > SHORT_LIST) return new Set(ids);
  return seen;
}

/** Up to this many ids, a search of the list costs less than a set of them. */
const SHORT_LIST = 16;

/** The handlers' ids, each once, in their order. */
function uniqueIds(handlers: Iterable<HandlerRef>): string[] {
  const ids: string[] = [];
  let seen: Set<string> | undefined;
  // Indexed when a list (as always in the cycles): no iterator and result per handler.
  if (Array.isArray(handlers)) {
    for (let i = 0; i < handlers.length; i++) seen = addId(ids, seen, handlers[i].id);
  } else {
    for (const handler of handlers) seen = addId(ids, seen, handler.id);
  }
  return ids;
}

/** A copy of the map, without an iterator and a pair per entry as `new Map(map)` makes. */
function copyOf<K, V>(map: ReadonlyMap<K, V>): Map<K, V> {
  const copy = new Map<K, V>();
  map.forEach((value, key) => copy.set(key, value));
  return copy;
}

/** Add the record read for the handler, if there is one, as its state. */
function addLoaded(
  states: Map<string, HandlerState>,
  id: string,
  record: ProgressRecord | null | undefined,
  clock: Clock,
): void {
  if (record !== null && record !== undefined) {
    states.set(id, HandlerState.fromStorage(record, clock, id));
  }
}

/**
 * The states of the handlers of one object in one handling cycle: immutable; each change
 * returns a new state. Iterates as `[id, HandlerState]` pairs in a stable order.
 */
export class State implements Iterable<[string, HandlerState]> {
  #states: ReadonlyMap<string, HandlerState>; // set once: by the constructor, or right after
  /** The reason the current cycle runs for, if set. */
  readonly purpose: string | null;
  /** The clock that "now" comes from. */
  readonly clock: Clock;

  /** A state of the given handler states. */
  constructor(
    states: Iterable<[string, HandlerState]> = [],
    options: { purpose?: string | null; clock?: Clock } = {},
  ) {
    this.#states = states === DERIVED ? NO_STATES : new Map(states);
    this.purpose = options.purpose ?? null;
    this.clock = options.clock ?? realClock;
    Object.freeze(this);
  }

  /** An empty state (nothing persisted, e.g. for event handlers). */
  static fromScratch(options: { clock?: Clock } = {}): State {
    return new State([], options);
  }

  /**
   * The persisted states of the given handlers; those with no record are left out. The
   * state itself when the storage answers at once (as the built-in ones do), so that a
   * cycle takes no turn of the event loop for it; else a promise of it.
   */
  static fromStorage(options: StateLoadOptions): State | Promise<State> {
    const clock = options.clock ?? realClock;
    const { storage, body } = options;
    const states = new Map<string, HandlerState>();
    const ids = uniqueIds(options.handlers);
    for (let i = 0; i < ids.length; i++) {
      const fetched = storage.fetch({ key: ids[i], body });
      if (isThenable(fetched)) return State.#loadRest(options, states, ids, i, fetched);
      addLoaded(states, ids[i], fetched, clock);
    }
    return State.#loaded(states, clock);
  }

  /** The rest of {@link fromStorage} once a storage has answered with a promise. */
  static async #loadRest(
    options: StateLoadOptions,
    states: Map<string, HandlerState>,
    ids: readonly string[],
    from: number,
    pending: PromiseLike<ProgressRecord | null>,
  ): Promise<State> {
    const clock = options.clock ?? realClock;
    addLoaded(states, ids[from], await pending, clock);
    for (let i = from + 1; i < ids.length; i++) {
      const fetched = options.storage.fetch({ key: ids[i], body: options.body });
      addLoaded(states, ids[i], isThenable(fetched) ? await fetched : fetched, clock);
    }
    return State.#loaded(states, clock);
  }

  static #loaded(states: Map<string, HandlerState>, clock: Clock): State {
    const state = new State(DERIVED, { clock });
    state.#states = states;
    return state;
  }

  /** A state of the given states, taking the map over rather than copying it. */
  #derive(states: ReadonlyMap<string, HandlerState>, purpose = this.purpose): State {
    const derived = new State(DERIVED, { purpose, clock: this.clock });
    derived.#states = states;
    return derived;
  }

  /** How many handlers have a state. */
  get size(): number {
    return this.#states.size;
  }

  /** The state of a handler, if it has one. */
  get(id: string): HandlerState | undefined {
    return this.#states.get(id);
  }

  /** Whether a handler has a state. */
  has(id: string): boolean {
    return this.#states.has(id);
  }

  /** The handler ids with a state. */
  ids(): string[] {
    return [...this.#states.keys()];
  }

  /** `[id, HandlerState]` pairs. */
  [Symbol.iterator](): Iterator<[string, HandlerState]> {
    return this.#states[Symbol.iterator]();
  }

  /** The same states for a cycle of another purpose; the given handlers take it on too. */
  withPurpose(purpose: string | null, handlers: Iterable<HandlerRef> = NO_HANDLERS): State {
    // The map is never changed once set: a new purpose alone shares it.
    if (handlers === NO_HANDLERS) return this.#derive(this.#states, purpose);
    const states = copyOf(this.#states);
    // An id given twice is re-purposed twice, to the same.
    for (const { id } of handlers) {
      const state = states.get(id);
      if (state === undefined) {
        throw new Error(`Handler ${JSON.stringify(id)} has no state to re-purpose.`);
      }
      states.set(id, state.withPurpose(purpose));
    }
    return this.#derive(states, purpose);
  }

  /** The given handlers take part in this cycle: new ones start from scratch. */
  withHandlers(handlers: Iterable<HandlerRef>): State {
    const states = copyOf(this.#states);
    // An id given twice finds its state active already: nothing changes the second time.
    // Indexed when a list (as always in the cycles): no iterator and result per handler.
    if (Array.isArray(handlers)) {
      for (let i = 0; i < handlers.length; i++) this.#activate(states, handlers[i].id);
    } else {
      for (const { id } of handlers) this.#activate(states, id);
    }
    return this.#derive(states);
  }

  #activate(states: Map<string, HandlerState>, id: string): void {
    const state = states.get(id);
    states.set(id, state ? state.asActive() : HandlerState.fromScratch(this.clock, this.purpose));
  }

  /** The states after the given outcomes (by handler id); unknown ids are a bug. */
  withOutcomes(outcomes: ReadonlyMap<string, Outcome> | Record<string, Outcome>): State {
    const byId: ReadonlyMap<string, Outcome> = outcomes instanceof Map
      ? outcomes
      : new Map(Object.entries(outcomes));
    const states = copyOf(this.#states);
    let unknown: string[] | undefined;
    // No iterator and pair per outcome (this runs per object).
    byId.forEach((outcome, id) => {
      const state = states.get(id);
      if (state === undefined) (unknown ??= []).push(id);
      else states.set(id, state.withOutcome(outcome));
    });
    if (unknown !== undefined) {
      throw new Error(
        `Outcomes for handlers without a state: ${unknown.join(", ")}; call withHandlers() first.`,
      );
    }
    return this.#derive(states);
  }

  /** Only the handlers that have not succeeded (failed, retrying, or not run yet). */
  withoutSuccesses(): State {
    return new State([...this.#states].filter(([, state]) => !state.success), {
      clock: this.clock,
    });
  }

  /** The given handlers that are due now: not finished and not sleeping, in their order. */
  selectAwakened<H extends HandlerRef>(handlers: Iterable<H>): H[] {
    const due: H[] = [];
    for (const handler of handlers) if (this.#states.get(handler.id)?.awakened) due.push(handler);
    return due;
  }

  /** Whether every handler taking part in this cycle is finished (true when none are). */
  get done(): boolean {
    for (const state of this.#states.values()) {
      if (state.active && !state.finished) return false;
    }
    return true;
  }

  /** The handlers of this cycle's purpose (or of unknown purpose), counted by fate. */
  get counts(): StateCounters {
    const counts = { success: 0, failure: 0, running: 0 };
    for (const state of this.#states.values()) {
      if (this.purpose === null || state.purpose === null || state.purpose === this.purpose) {
        count(counts, state);
      }
    }
    return counts;
  }

  /** Whether there are handlers left from cycles of other purposes (see {@link extras}). */
  get hasExtras(): boolean {
    for (const state of this.#states.values()) {
      if (state.purpose !== null && state.purpose !== this.purpose) return true;
    }
    return false;
  }

  /** The handlers left from cycles of other purposes, counted by fate, by purpose. */
  get extras(): Map<string, StateCounters> {
    const byPurpose = new Map<string, StateCounters>();
    for (const state of this.#states.values()) {
      if (state.purpose !== null && state.purpose !== this.purpose) {
        let counts = byPurpose.get(state.purpose);
        if (counts === undefined) {
          byPurpose.set(state.purpose, counts = { success: 0, failure: 0, running: 0 });
        }
        count(counts, state);
      }
    }
    return byPurpose;
  }

  /**
   * Where each handler taking part in this cycle stands (see {@link HandlerFate}), in the
   * order of the states.
   */
  get fates(): HandlerFate[] {
    const fates: HandlerFate[] = [];
    this.#states.forEach((state, id) => {
      if (!state.active) return;
      const message = state.message === "" ? null : state.message;
      const fate: HandlerFateKind = state.success
        ? "succeeded"
        : state.failure
        ? "failed"
        : message !== null
        ? "retrying"
        : "pending";
      fates.push({ id, fate, message });
    });
    return fates;
  }

  /** Seconds until each unfinished handler of this cycle is due (0 when due now). */
  get delays(): number[] {
    const delays: number[] = [];
    for (const state of this.#states.values()) {
      if (state.active && !state.finished) delays.push(state.delay ?? 0);
    }
    return delays;
  }

  /** Seconds until the next handler of this cycle is due; `null` when none is pending. */
  get delay(): number | null {
    const delays = this.delays;
    return delays.length ? Math.min(...delays) : null;
  }

  /**
   * Put the changed records into the patch (unchanged ones are not rewritten): at once (no
   * promise) when the storage writes at once, as the built-in ones do.
   */
  store(options: StateStoreOptions): void | Promise<void> {
    let pending: Promise<void> | undefined;
    this.#states.forEach((state, id) => {
      const record = state.forStorage();
      if (state.origin !== null && jsonEqual(withoutNulls(record), state.origin)) return;
      // Once a storage answers with a promise, the rest is written after it, in order.
      if (pending !== undefined) {
        pending = pending.then(() => storeRecord(options, id, record));
      } else {
        const stored = storeRecord(options, id, record);
        if (isThenable(stored)) pending = Promise.resolve(stored as PromiseLike<void>);
      }
    });
    return pending === undefined
      ? flush(options.storage)
      : pending.then(() => flush(options.storage));
  }

  /**
   * Remove the records of our handlers, of any other handler in this state, and of all
   * their sub-handlers — and nothing else (other operators' records stay): at once (no
   * promise) when the storage purges at once, as the built-in ones do.
   */
  purge({ body, patch, storage, handlers }: StatePurgeOptions): void | Promise<void> {
    const keys = uniqueIds(handlers); // in this order, each once
    let seen = keys.length > SHORT_LIST ? new Set(keys) : undefined;
    // No iterator and pair per state (this runs per object).
    this.#states.forEach((state, id) => {
      seen = addId(keys, seen, id);
      const subrefs = state.subrefs;
      for (let i = 0; i < subrefs.length; i++) seen = addId(keys, seen, subrefs[i]);
    });
    // The built-in storages purge at once: only promises are awaited (a turn per key).
    for (let i = 0; i < keys.length; i++) {
      const purged = storage.purge({ key: keys[i], body, patch });
      if (isThenable(purged)) return purgeRest(purged, keys, i + 1, { body, patch, storage });
    }
    return flush(storage);
  }
}

/** Write one handler's record (see {@link State.store}). */
function storeRecord(
  { body, patch, storage }: StateStoreOptions,
  key: string,
  record: ProgressRecord,
): void | PromiseLike<void> {
  return storage.store({ key, record, body, patch });
}

/** Flush the storage: a promise only if the storage gives one. */
function flush(storage: ProgressStorage): void | Promise<void> {
  const flushed = storage.flush();
  if (isThenable(flushed)) return Promise.resolve(flushed).then(() => {});
}

/** The rest of {@link State.purge} once a storage has answered with a promise. */
async function purgeRest(
  pending: unknown,
  keys: readonly string[],
  from: number,
  { body, patch, storage }: StateStoreOptions,
): Promise<void> {
  await pending;
  for (let i = from; i < keys.length; i++) {
    const purged = storage.purge({ key: keys[i], body, patch });
    if (isThenable(purged)) await purged;
  }
  await flush(storage);
}

function count(counts: { success: number; failure: number; running: number }, state: HandlerState) {
  if (state.success) counts.success++;
  if (state.failure) counts.failure++;
  if (!state.finished) counts.running++;
}

/**
 * Deliver handlers' results into the patch: a returned object is merged into
 * `status.<id>`, any other value (except `undefined`) replaces it; failures deliver nothing.
 * The results are copied (see {@link plainResult}) unless `copied` says they already are
 * private plain copies.
 */
export function deliverResults(
  outcomes: ReadonlyMap<string, Outcome> | Record<string, Outcome>,
  patch: StoragePatch,
  copied: boolean = false,
): void {
  const entries = outcomes instanceof Map ? outcomes : Object.entries(outcomes);
  for (const [id, outcome] of entries) {
    const failed = outcome.error !== undefined && outcome.error !== null;
    if (failed || outcome.result === undefined) continue;
    const status = patch instanceof Patch
      ? patch.status
      : ((patch as Record<string, unknown>).status ??= {}) as Record<string, unknown>;
    const result = copied ? outcome.result : copyResult(id, outcome.result);
    const current = status[id];
    status[id] = isMapping(result) ? { ...(isMapping(current) ? current : {}), ...result } : result;
  }
}

/** The result as {@link plainResult} copies it, refusing what cannot be stored clearly. */
function copyResult(id: string, result: unknown): unknown {
  try {
    return plainResult(result);
  } catch (error) {
    throw new TypeError(
      `The result of handler ${JSON.stringify(id)} cannot be stored in the status ` +
        `(${messageOf(error)}); return plain JSON data (objects, arrays, strings, numbers).`,
    );
  }
}

/**
 * The result as it goes to the status: a private plain copy (made once; the delivery takes
 * it as it is). When it cannot be stored (e.g. a function or a bigint), the handler fails
 * for good with a message saying so, rather than failing every cycle after it.
 */
export function storableResult(result: unknown): unknown {
  try {
    return plainResult(result); // views of the body (`return spec`) become data
  } catch (error) {
    throw new PermanentError(
      `its result cannot be stored in the status (${
        error instanceof Error ? error.message : String(error)
      }); return plain JSON data (objects, arrays, strings, numbers, booleans, null)`,
    );
  }
}

/**
 * A deep copy of a handler's result as plain data, in one walk: views of the body become
 * the data they show; other objects (dates, class instances) are cloned structurally.
 * Throws what cannot be stored in the status: functions, symbols, bigints, cycles.
 */
export function plainResult(value: unknown): unknown {
  return copyPlain(value, []);
}

function copyPlain(value: unknown, ancestors: object[]): unknown {
  switch (typeof value) {
    case "function":
    case "symbol":
    case "bigint":
      throw new TypeError(`a ${typeof value} cannot be stored`);
    case "object":
      if (value === null) return value;
      break;
    default:
      return value;
  }
  if (ancestors.includes(value)) throw new TypeError("a circular structure cannot be stored");
  const isArray = Array.isArray(value);
  const proto = Object.getPrototypeOf(value);
  if (!isArray && proto !== Object.prototype && proto !== null) {
    JSON.stringify(value); // throws as serialising the status would (e.g. for a bigint)
    return structuredClone(value); // throws for what cannot be cloned (e.g. functions)
  }
  ancestors.push(value);
  let copy: unknown;
  if (isArray) {
    const items = value as readonly unknown[];
    const out: unknown[] = [];
    for (let i = 0; i < items.length; i++) out.push(copyPlain(items[i], ancestors));
    copy = out;
  } else {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      out[key] = copyPlain((value as Record<string, unknown>)[key], ancestors);
    }
    copy = out;
  }
  ancestors.pop();
  return copy;
}
