/**
 * The progress of one handler across handling cycles ({@link HandlerState}): whether it has
 * succeeded, failed, is retrying or sleeping, and the record it is persisted as -- Kopf's
 * fields and its ISO-8601 times, as Python Kopf writes and reads them.
 *
 * Apart from the states of all the handlers of an object (`handler_states.ts`), which
 * gather these and load and store them through a progress storage.
 *
 * @module
 */

import { StoredStateError } from "../structs/errors.ts";
import type { Clock } from "../structs/clock.ts";
import type { ProgressRecord } from "../settings/progress_storages.ts";

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
export function messageOf(error: unknown): string {
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

/**
 * The state of one handler: immutable (its fields read-only; not frozen, which costs a call
 * into the runtime per state, several per object); each change returns a new one.
 */
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
    // Another state's (frozen) list is shared, not copied: states change often, subrefs rarely
    // (and are mostly none: no question asked of the runtime then).
    const subrefs = fields.subrefs;
    this.subrefs = subrefs.length === 0
      ? NO_SUBREFS
      : Object.isFrozen(subrefs)
      ? subrefs
      : Object.freeze([...subrefs]);
    this.origin = fields.origin;
    this.clock = clock;
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

/** The record without its `null` fields, as the object holds it once stored. */
export function withoutNulls(record: ProgressRecord): ProgressRecord {
  const out: Record<string, unknown> = {};
  for (const key in record) {
    const value = record[key as keyof ProgressRecord];
    if (value !== null) out[key] = value;
  }
  return out as ProgressRecord;
}
