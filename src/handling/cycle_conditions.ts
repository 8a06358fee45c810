/**
 * The framework's standard conditions after a handling cycle, from where its handlers
 * stand (kstatus' conventions, which Argo CD, Flux and `kubectl wait` follow too):
 *
 * | handlers of the cause                 | Ready                  | Reconciling      | Stalled         |
 * | ------------------------------------- | ---------------------- | ---------------- | --------------- |
 * | all succeeded                         | True `Succeeded`       | False            | False           |
 * | some pending or retrying              | False (their reason)   | True (reason)    | False           |
 * | … and one failed for good             | False `Failed`         | True (reason)    | False           |
 * | none pending, one failed for good     | False `Failed`         | False `Failed`   | True `Failed`   |
 * | none at all (nothing to do)           | True `NothingToDo`     | False            | False           |
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

/** The three conditions after a cycle whose handlers stand as given. */
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
    return three(types, ["False", failure], ["False", failure], ["True", failure]);
  }
  // Not all succeeded, and not only failures: some are retrying or pending.
  const progress: Verdict = retrying.length > 0
    ? { reason: "Retrying", message: describe(retrying, "is retrying") }
    : { reason: "Progressing", message: describe(pending, "is in progress") };
  return three(types, ["False", failure ?? progress], ["True", progress], ["False", progress]);
}

/**
 * The conditions of a cycle whose handlers all succeeded, by message: the same few lists for
 * every object's cycle (frozen, shared), made again only if the condition types have been
 * renamed in the settings since.
 */
const successes = new Map<string, readonly ConditionInit[]>();

function succeeded(types: ConditionTypes, message: string): readonly ConditionInit[] {
  const known = successes.get(message);
  if (
    known !== undefined && known[0].type === types.ready &&
    known[1].type === types.reconciling && known[2].type === types.stalled
  ) return known;
  const success = { reason: "Succeeded", message };
  const made = Object.freeze(
    three(types, ["True", success], ["False", success], ["False", success]).map((c) =>
      Object.freeze(c)
    ),
  );
  // Bounded: messages name handlers (a few per operator), or count them.
  if (successes.size < 1_000) successes.set(message, made);
  return made;
}

/** The three conditions of an object that no handler had anything to do with. */
export function idleConditions(types: ConditionTypes): ConditionInit[] {
  const idle = { reason: "NothingToDo", message: "No handler had anything to do." };
  return three(types, ["True", idle], ["False", idle], ["False", idle]);
}

/**
 * The three conditions after a cycle with nothing to do (no change of the essence, or no
 * handler for the change): those the object has are kept as they are (a failure stays a
 * failure until a change is handled), stamped with the generation now observed; an object
 * without them yet — or whose handling was left unfinished, as when a change was undone
 * before its handlers finished — gets {@link idleConditions}.
 */
export function unchangedConditions(
  current: readonly unknown[],
  types: ConditionTypes,
): ConditionInit[] {
  const ready = findType(current, types.ready);
  const reconciling = findType(current, types.reconciling);
  if (ready === undefined || reconciling?.status === "True") return idleConditions(types);
  const kept: ConditionInit[] = [];
  for (const type of [types.ready, types.reconciling, types.stalled]) {
    const condition = findType(current, type);
    if (condition === undefined) continue;
    const { status, reason, message } = condition;
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

function three(
  types: ConditionTypes,
  ready: readonly [ConditionStatus, Verdict],
  reconciling: readonly [ConditionStatus, Verdict],
  stalled: readonly [ConditionStatus, Verdict],
): ConditionInit[] {
  return [
    { type: types.ready, status: ready[0], ...ready[1] },
    { type: types.reconciling, status: reconciling[0], ...reconciling[1] },
    { type: types.stalled, status: stalled[0], ...stalled[1] },
  ];
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
 * once, not per object — every object's conditions would otherwise hold a copy of the same
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
