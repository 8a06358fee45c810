/**
 * What a failed wait of a test says besides "timed out": the last lines of the operators
 * that run against the cluster (the operator's output is otherwise shown only with
 * `echo: true`), and the awaited object's state now. Both are bounded, so that a chatty
 * operator or a large object does not drown the message.
 *
 * @module
 */
import type { JsonValue, RawBody } from "../structs/bodies.ts";

/** At most so many of the last output lines go into a message... */
export const TAIL_LINES = 20;
/** ...and at most so many characters of them. */
export const TAIL_CHARS = 4096;
/** A string value of an object longer than this is cut in the object's summary. */
const VALUE_CHARS = 200;
/** The object's summary is cut after so many characters. */
const STATE_CHARS = 2048;

/** A line longer than this is cut in the tail. */
const LINE_CHARS = 500;

/**
 * The last lines of the output (a record may hold several lines: an error's stack), at
 * most {@link TAIL_LINES} and {@link TAIL_CHARS}, each indented; with a line first saying
 * how many earlier ones are left out.
 */
export function outputTail(records: readonly string[]): string {
  const tail: string[] = [];
  let chars = 0;
  let total = 0;
  let full = false;
  for (let r = records.length - 1; r >= 0; r--) {
    const lines = records[r].split("\n");
    total += lines.length;
    for (let l = lines.length - 1; l >= 0 && !full; l--) {
      const line = lines[l].length > LINE_CHARS
        ? `${lines[l].slice(0, LINE_CHARS)}\u2026`
        : lines[l];
      full = tail.length === TAIL_LINES || chars + line.length > TAIL_CHARS;
      if (full) break;
      tail.push(line);
      chars += line.length + 1;
    }
  }
  tail.reverse();
  const omitted = total - tail.length;
  const head = omitted > 0 ? [`  \u2026 ${omitted} earlier line(s) left out`] : [];
  return [...head, ...tail.map((line) => `  | ${line}`)].join("\n");
}

/** A copy of a JSON value with long strings cut. */
function cut(value: JsonValue | undefined): JsonValue | undefined {
  if (typeof value === "string") {
    return value.length > VALUE_CHARS
      ? `${value.slice(0, VALUE_CHARS)}\u2026(${value.length - VALUE_CHARS} more chars)`
      : value;
  }
  if (Array.isArray(value)) return value.map((item) => cut(item) ?? null);
  if (value !== null && typeof value === "object") {
    const copy: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(value)) {
      const short = cut(item);
      if (short !== undefined) copy[key] = short;
    }
    return copy;
  }
  return value;
}

/**
 * The parts of an object that conditions of tests look at: its identity and version,
 * deletion, finalizers, labels, annotations and status -- long values cut, the whole
 * bounded by {@link STATE_CHARS}.
 */
export function objectState(object: RawBody | undefined): string {
  if (object === undefined) return "it does not exist";
  const meta = object.metadata ?? {};
  const summary: Record<string, JsonValue | undefined> = {
    name: meta.name,
    namespace: meta.namespace,
    resourceVersion: meta.resourceVersion,
    generation: meta.generation,
    deletionTimestamp: meta.deletionTimestamp,
    finalizers: meta.finalizers,
    labels: meta.labels,
    annotations: meta.annotations,
    status: object.status as JsonValue | undefined,
  };
  const text = JSON.stringify(cut(summary as JsonValue));
  return text.length > STATE_CHARS
    ? `its state: ${text.slice(0, STATE_CHARS)}\u2026 (cut; ${text.length} chars in all)`
    : `its state: ${text}`;
}

/** Something that reports on itself when a wait on a cluster fails: a `KopfRunner`. */
export interface WaitWitness {
  /** A few lines on its state and its last output. */
  report(): string;
}

/**
 * The witnesses by the address of the API server they talk to: so a runner that logs in
 * with a token of the cluster (not the cluster's own credentials) is found too.
 */
const witnesses = new Map<string, Set<WaitWitness>>();

/** Let the witness report on failed waits on the API server at this address. */
export function addWitness(server: string, witness: WaitWitness): void {
  let set = witnesses.get(server);
  if (set === undefined) witnesses.set(server, set = new Set());
  set.add(witness);
}

/** The witness reports on the server's waits no more (its operator was stopped). */
export function removeWitness(server: string, witness: WaitWitness): void {
  const set = witnesses.get(server);
  set?.delete(witness);
  if (set?.size === 0) witnesses.delete(server);
}

/** The reports of the witnesses of a server, a paragraph each; empty without any. */
export function witnessReports(server: string): string {
  const set = witnesses.get(server);
  if (set === undefined) return "";
  return [...set].map((witness) => `\n${witness.report()}`).join("");
}
