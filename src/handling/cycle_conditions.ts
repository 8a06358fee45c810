/**
 * The framework's standard conditions after a handling cycle, from where its handlers
 * stand (kstatus' conventions, which Argo CD, Flux and `kubectl wait` follow too):
 *
 * | handlers of the cause                 | Ready                  | Reconciling      | Stalled         |
 * | ------------------------------------- | ---------------------- | ---------------- | --------------- |
 * | all succeeded                         | True `Succeeded`       | --                | --               |
 * | some pending or retrying              | False (their reason)   | True (reason)    | --               |
 * | ... and one failed for good             | False `Failed`         | True (reason)    | --               |
 * | none pending, one failed for good     | False `Failed`         | --                | True `Failed`   |
 * | none at all (nothing to do)           | True `NothingToDo`     | --                | --               |
 *
 * `Reconciling` and `Stalled` are kstatus' abnormal-true conditions: present only while
 * True, as Flux's controllers keep them (kstatus, Argo CD's health checks and `kubectl wait`
 * read an absent one as not true). Written False, they doubled the size of every handled
 * object's conditions on the wire -- in the write, its answer and its watch event, each with
 * their managed fields -- for nothing that any reader tells apart.
 *
 * The reason of handlers still at work is `Retrying` when one of them failed and is retried
 * (the message names it and its error), else `Progressing` (not run yet, or waiting for
 * sub-handlers). `Stalled` turns true only when nothing is left to run, so that it never
 * says "failed" while the handling goes on (kstatus would read the one that comes first).
 *
 * @module
 */

import {
  type ConditionInit,
  conditionProblem,
  type ConditionStatus,
  findType,
} from "../structs/condition_lists.ts";
import type { HandlerFate } from "./handler_states.ts";

/** The types of the three conditions (`settings.conditions`). */
export interface ConditionTypes {
  /** All handlers succeeded. */
  readonly ready: string;
  /** Handlers are pending or retrying. */
  readonly reconciling: string;
  /** A handler failed for good. */
  readonly stalled: string;
}

/** A reason and message, for one or more conditions. */
interface Verdict {
  readonly reason: string;
  readonly message: string;
}

/** At most this many handler ids are named in one message; the rest are counted. */
const NAMED = 5;

/** The conditions after a cycle whose handlers stand as given (see the module docs). */
export function cycleConditions(
  fates: readonly HandlerFate[],
  types: ConditionTypes,
): readonly ConditionInit[] {
  if (fates.length === 0) return idleConditions(types);
  if (fates.every((f) => f.fate === "succeeded")) {
    return succeeded(types, describe(fates, "succeeded"));
  }
  const failed = fates.filter((f) => f.fate === "failed");
  const retrying = fates.filter((f) => f.fate === "retrying");
  const pending = fates.filter((f) => f.fate === "pending");
  const failure: Verdict | undefined = failed.length === 0 ? undefined : {
    reason: "Failed",
    message: describe(failed, "failed"),
  };
  if (failure !== undefined && retrying.length === 0 && pending.length === 0) {
    return [present(types.ready, "False", failure), present(types.stalled, "True", failure)];
  }
  // Not all succeeded, and not only failures: some are retrying or pending.
  const progress: Verdict = retrying.length > 0
    ? { reason: "Retrying", message: describe(retrying, "is retrying") }
    : { reason: "Progressing", message: describe(pending, "is in progress") };
  return [
    present(types.ready, "False", failure ?? progress),
    present(types.reconciling, "True", progress),
  ];
}

/**
 * The conditions of a cycle whose handlers all succeeded, by message: the same few lists for
 * every object's cycle (frozen, shared), made again only if the condition types have been
 * renamed in the settings since.
 */
const successes = new Map<string, readonly ConditionInit[]>();

function succeeded(types: ConditionTypes, message: string): readonly ConditionInit[] {
  const known = successes.get(message);
  if (known !== undefined && known[0].type === types.ready) return known;
  const made = Object.freeze([
    Object.freeze(present(types.ready, "True", { reason: "Succeeded", message })),
  ]);
  // Bounded: messages name handlers (a few per operator), or count them.
  if (successes.size < 1_000) successes.set(message, made);
  return made;
}

/** The conditions of an object that no handler had anything to do with: `Ready` alone. */
export function idleConditions(types: ConditionTypes): ConditionInit[] {
  const idle = { reason: "NothingToDo", message: "No handler had anything to do." };
  return [present(types.ready, "True", idle)];
}

/**
 * The conditions after a cycle with nothing to do (no change of the essence, or no handler
 * for the change): those the object has are kept as they are (a failure stays a failure
 * until a change is handled), stamped with the generation now observed -- but for a
 * `Stalled` that is not True, left out (as versions before kept it False). An object
 * without them yet -- or whose handling was left unfinished (`Reconciling` True), as when a
 * change was undone before its handlers finished -- gets {@link idleConditions}.
 */
export function unchangedConditions(
  current: readonly unknown[],
  types: ConditionTypes,
): ConditionInit[] {
  const ready = findType(current, types.ready);
  const reconciling = findType(current, types.reconciling);
  if (ready === undefined || reconciling?.status === "True") return idleConditions(types);
  const kept: ConditionInit[] = [];
  for (const type of [types.ready, types.stalled]) {
    const condition = findType(current, type);
    if (condition === undefined) continue;
    const { status, reason, message } = condition;
    if (type !== types.ready && status !== "True") continue;
    const init = {
      type,
      status: status as ConditionStatus,
      reason: reason as string,
      message: typeof message === "string" ? message : "",
    };
    // What the API would refuse (written by someone else) is not kept: ours replace it.
    if (conditionProblem(init) !== undefined) return idleConditions(types);
    kept.push(init);
  }
  return kept;
}

/** One of the conditions, as it is set. */
function present(type: string, status: ConditionStatus, verdict: Verdict): ConditionInit {
  return { type, status, reason: verdict.reason, message: verdict.message };
}

/**
 * `Handler 'a' failed: the error.` for one handler; for several, the first with its
 * error and the others by name: `Handlers 'a', 'b' failed; 'a': the error.` An error of
 * the framework's own about the handler (`Handler 'a' has exceeded 3 retries.`) is told
 * as it is.
 */
function describe(fates: readonly HandlerFate[], what: string): string {
  const first = fates[0];
  const own = first.message?.startsWith(`Handler '${first.id}' `) === true;
  if (fates.length === 1) {
    if (own) return first.message!;
    if (first.message === null) return plainMessage(first.id, what);
    return `Handler '${first.id}' ${what}: ${first.message}`;
  }
  const named = fates.slice(0, NAMED).map((f) => `'${f.id}'`).join(", ");
  const more = fates.length > NAMED ? ` and ${fates.length - NAMED} more` : "";
  const plural = what.replace(/^is /, "are ");
  const detail = first.message === null
    ? "."
    : own
    ? `; ${first.message}`
    : `; '${first.id}': ${first.message}`;
  return `Handlers ${named}${more} ${plural}${detail}`;
}

/**
 * The messages naming one handler and no detail, by what is said and the handler's id: made
 * once, not per object -- every object's conditions would otherwise hold a copy of the same
 * text while it waits to be written (thousands of them in a burst).
 */
const plainMessages = new Map<string, Map<string, string>>();

function plainMessage(id: string, what: string): string {
  let byId = plainMessages.get(what);
  if (byId === undefined) plainMessages.set(what, byId = new Map());
  let message = byId.get(id);
  if (message === undefined) byId.set(id, message = `Handler '${id}' ${what}.`);
  return message;
}
