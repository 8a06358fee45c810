/**
 * `kopf.execute()`: run sub-handlers now, from inside a resource-changing handler, with the
 * same progress tracking, retries and errors as handlers. The handling cycle runs each such
 * handler as a run of its own (`changing_runs.ts`); this takes the current one and runs the
 * sub-handlers in it. (The registration of sub-handlers, `kopf.subhandler()`, is the intents'
 * side.)
 *
 * @module
 */
import { diff } from "../structs/diffs.ts";
import type { ChangingHandler, HandlerFn } from "../intents/handlers.ts";
import { RegistrationError } from "../intents/handler_options.ts";
import { composeId, functionName } from "../intents/ids.ts";
import { checkLifecycle, type LifeCycleFn } from "../intents/lifecycles.ts";
import { matcherOf, type OperatorRegistry } from "../intents/registry.ts";
import type { ChangingKwargs } from "../intents/kwargs.ts";
import type { CauseOverrides } from "../intents/causes.ts";
import { currentChangingRun, type ExecutingRun, type SubhandlerRun } from "./changing_runs.ts";

/**
 * What {@link execute} runs -- functions by id, handler records, or a registry's handlers;
 * none of them: the sub-handlers registered with `kopf.subhandler()` so far -- and how.
 */
export interface ExecuteOptions {
  /** Functions to run as sub-handlers: by id (an object or Map), or a list (ids from names). */
  fns?:
    | Readonly<Record<string, ((kwargs: ChangingKwargs<never, never>) => unknown)>>
    | ReadonlyMap<string, ((kwargs: ChangingKwargs<never, never>) => unknown)>
    | readonly ((kwargs: ChangingKwargs<never, never>) => unknown)[];
  /**
   * Ready handler records (their ids are prefixed with the parent's).
   *
   * @internal handler records are the framework's own; pass `fns` or a `registry`.
   */
  handlers?: readonly ChangingHandler[];
  /** A registry whose resource-changing handlers run as sub-handlers. */
  registry?: OperatorRegistry;
  /**
   * Which of the due sub-handlers run in each handling cycle (e.g.
   * `kopf.lifecycles.allAtOnce`); the operator's lifecycle by default.
   */
  lifecycle?: LifeCycleFn;
  /**
   * Run the sub-handlers for another reason or change than their parent's: e.g.
   * `{ reason: "update", old, new }` (the diff is computed from them if not given).
   */
  cause?: CauseOverrides;
}

function record(fn: HandlerFn, id: string): ChangingHandler {
  return Object.freeze({
    kind: "changing",
    fn,
    id,
    param: undefined,
    registrar: "kopf.execute",
    selector: null,
    reason: null,
    initial: false,
    deleted: false,
    requiresFinalizer: false,
    errors: "temporary",
    timeout: null,
    retries: null,
    backoff: 60,
    labels: undefined,
    annotations: undefined,
    field: undefined,
    value: undefined,
    old: undefined,
    new: undefined,
    when: undefined,
    fieldNeedsChange: false,
    hasCallbacks: false,
    hasFilters: false,
  });
}

const CAUSE_REASONS: ReadonlySet<unknown> = new Set(["create", "update", "delete", "resume"]);

/** The cause's changes as given, checked; with `old`/`new` but no diff, the diff of them. */
function checkCause(cause: CauseOverrides | undefined): CauseOverrides | undefined {
  if (cause === undefined) return undefined;
  if (typeof cause !== "object" || cause === null || Array.isArray(cause)) {
    throw new RegistrationError(
      "kopf.execute(): cause must be an object such as { reason, old, new, diff }.",
    );
  }
  const known = new Set(["reason", "old", "new", "diff"]);
  for (const key of Object.keys(cause)) {
    if (!known.has(key)) {
      throw new RegistrationError(
        `kopf.execute(): cause.${key} is not accepted; give reason, old, new or diff ` +
          "(the object, patch, logger and memo stay the parent's).",
      );
    }
  }
  if (cause.reason !== undefined && !CAUSE_REASONS.has(cause.reason)) {
    throw new RegistrationError(
      `kopf.execute(): cause.reason must be "create", "update", "delete" or "resume", ` +
        `not ${JSON.stringify(cause.reason)}.`,
    );
  }
  if (cause.diff === undefined && (cause.old !== undefined || cause.new !== undefined)) {
    return { ...cause, diff: diff(cause.old ?? null, cause.new ?? null) };
  }
  return cause;
}

/** The running handler; a clear error outside of one. */
function currentRun(): ExecutingRun {
  const run = currentChangingRun();
  if (run === undefined) {
    throw new RegistrationError(
      "kopf.execute() works only inside a resource-changing handler of a running operator " +
        "(it runs sub-handlers of the handler being run).",
    );
  }
  return run;
}

/** The records of the functions given as `fns`, their ids under the parent's. */
function recordsOf(fns: ExecuteOptions["fns"], parentId: string): ChangingHandler[] {
  const entries: [string | undefined, unknown][] = fns === undefined
    ? []
    : Array.isArray(fns)
    ? (fns as unknown[]).map((fn) => [undefined, fn])
    : fns instanceof Map
    ? [...fns.entries()]
    : Object.entries(fns);
  return entries.map(([key, fn]) => {
    if (typeof fn !== "function") {
      throw new RegistrationError(
        `kopf.execute(): fns${
          key === undefined ? "" : `[${JSON.stringify(key)}]`
        } must be a function.`,
      );
    }
    const base = key ?? functionName(fn as HandlerFn);
    if (base === undefined) {
      throw new RegistrationError(
        "kopf.execute(): a function in the fns list has no name; pass fns as { id: fn } instead.",
      );
    }
    return record(fn as HandlerFn, composeId(base, { parent: parentId }));
  });
}

/**
 * Run sub-handlers of the running handler now, with the same progress tracking,
 * retries and errors as handlers; resolves when all are done (or throws as the
 * handling cycle decides, e.g. to retry the parent later).
 *
 * Without `fns`, `handlers` or `registry`, it runs the sub-handlers registered so far
 * with `kopf.subhandler()` or `kopf.register()` (which are otherwise run right after the
 * handler returns) -- once: a second such call does nothing. `lifecycle` chooses which
 * due sub-handlers run per cycle (the operator's lifecycle by default); `cause` runs them
 * for another reason or change than the parent's.
 *
 * @example Run the sub-handlers registered so far, then go on with their results stored
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.create("kopfexamples", async ({ spec, logger }) => {
 *   for (const item of (spec.items as string[] | undefined) ?? []) {
 *     kopf.subhandler({ id: item }, () => logger.info(`preparing ${item}`));
 *   }
 *   await kopf.execute({ lifecycle: kopf.lifecycles.allAtOnce });
 *   logger.info("all items are prepared");
 * });
 * ```
 */
export async function execute(options: ExecuteOptions = {}): Promise<void> {
  if (typeof options !== "object" || options === null) {
    throw new RegistrationError(
      "kopf.execute() takes an object of options: { fns }, { handlers }, { registry }, or none.",
    );
  }
  const { fns, handlers, registry, lifecycle } = options;
  if (lifecycle !== undefined) checkLifecycle(lifecycle, "kopf.execute()'s lifecycle");
  const cause = checkCause(options.cause);
  const run = currentRun();
  const how: SubhandlerRun = { lifecycle, cause };
  if (fns === undefined && handlers === undefined && registry === undefined) {
    // The sub-handlers registered so far, once (the implicit run after the handler too).
    if (run.subexecuted) return;
    run.subexecuted = true;
    await run.execute(run.registered, how);
    return;
  }
  const prefixed = (h: ChangingHandler): ChangingHandler =>
    h.id.startsWith(`${run.parentId}/`)
      ? h
      : Object.freeze({ ...h, id: composeId(h.id, { parent: run.parentId }) });
  const out = recordsOf(fns, run.parentId);
  for (const h of handlers ?? []) out.push(prefixed(h));
  for (const h of registry === undefined ? [] : matcherOf(registry).handlers) {
    if (h.kind === "changing") out.push(prefixed(h));
  }
  await run.execute(out, how);
}
