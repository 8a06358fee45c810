/**
 * The progress of handlers across handling cycles: which have succeeded, failed, are
 * retrying or sleeping, and what to persist about them -- Kopf's semantics and formats.
 * This module holds the states of all the handlers of one object ({@link State}); one
 * handler's state and record are in `handler_progress.ts`, the delivery of results to the
 * status (`deliverResults`) in `handler_results.ts`.
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
 * deliverResults(outcomes, patch);                                   // results -> status.<id>
 * if (state.done) await state.purge({ body, patch, storage, handlers });
 * else await state.store({ body, patch, storage });                  // and sleep state.delay s
 * ```
 *
 * @module
 */

import { jsonEqual } from "../structs/dicts.ts";
import type { RawBody } from "../structs/bodies.ts";
import { type Clock, realClock } from "../structs/clock.ts";
import { isThenable } from "../structs/thenables.ts";
import type {
  ProgressRecord,
  ProgressStorage,
  StoragePatch,
} from "../settings/progress_storages.ts";
import { HandlerState, type Outcome, withoutNulls } from "./handler_progress.ts";

/** Anything with a handler id: handler records, or `{ id }`. */
export interface HandlerRef {
  /** The handler id, e.g. `create_fn` or `create_fn/sub1`. */
  readonly id: string;
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
 * The states of the handlers of one object in one handling cycle: immutable (read-only
 * fields, not frozen: see {@link HandlerState}); each change returns a new state. Iterates as
 * `[id, HandlerState]` pairs in a stable order.
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
   * their sub-handlers -- and nothing else (other operators' records stay): at once (no
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
