/**
 * Sub-handlers: handlers registered while a resource-changing handler runs, tracked by
 * the handling cycle like top-level ones (ids `<parent>/<child>`).
 *
 * This module is the registration side. Running them is the handling layer's job: it
 * runs each handler inside {@link subhandlerScope} with a scope that can execute
 * sub-handler records; outside such a scope these functions fail with a clear error.
 *
 * @module
 */
import { AsyncContext } from "../platform/async_context.ts";
import { type Diff, diff } from "../structs/diffs.ts";
import type { ChangingHandler, HandlerFn } from "./handlers.ts";
import { composeId, functionName } from "./ids.ts";
import type { ChangingKwargs } from "./kwargs.ts";
import {
  normalizeOptions,
  type Registrar,
  RegistrationError,
  type SubhandlerOptions,
} from "./handler_options.ts";
import { filtersOf, handlerId, type NoIndices, parseCall, retryOf } from "./registration.ts";
import { OperatorRegistry } from "./registry.ts";
import { checkLifecycle, type LifeCycleFn } from "./lifecycles.ts";
import type { HandlerReason } from "./reasons.ts";

/** What the handling layer provides while a resource-changing handler runs. */
export interface SubhandlerScope {
  /** The id of the running handler: the prefix of its sub-handlers' ids. */
  readonly parentId: string;
  /** Where `kopf.subhandler()` puts the sub-handlers of the running handler. */
  readonly registry: OperatorRegistry;
  /**
   * Whether the sub-handlers registered with `kopf.subhandler()` have been run by
   * `kopf.execute()` without arguments: then they are not run again after the handler.
   */
  subexecuted: boolean;
  /**
   * Run the given sub-handler records to completion, as the handling cycle does with
   * handlers (progress, retries, errors), under the given lifecycle (the operator's by
   * default) and for the cause changed as given. Used by `kopf.execute()`.
   */
  execute(handlers: readonly ChangingHandler[], options?: SubhandlerRun): Promise<void>;
}

/** How {@link SubhandlerScope.execute} runs the sub-handlers. */
export interface SubhandlerRun {
  /** The lifecycle; the operator's if omitted. */
  readonly lifecycle?: LifeCycleFn;
  /** What changes about the parent's cause for the sub-handlers. */
  readonly cause?: ExecuteCause;
}

/**
 * What `kopf.execute({ cause })` changes about the cause its sub-handlers run for; the
 * rest (the object, its patch, logger and memo) stays the parent's.
 */
export interface ExecuteCause {
  /** The reason: selects the sub-handlers by it, and is their `reason` argument. */
  readonly reason?: HandlerReason | "resume";
  /**
   * The object's old state (an essence, a body, or a handler's `body`; `null` for none):
   * field sub-handlers see their field of it.
   */
  readonly old?: object | null;
  /** The object's new state, likewise. */
  readonly new?: object;
  /** The changes from `old` to `new`; computed from them when they are given without it. */
  readonly diff?: Diff;
}

/** The current sub-handler scope; the handling layer runs handlers inside it. */
export const subhandlerScope: AsyncContext<SubhandlerScope> = new AsyncContext<SubhandlerScope>();

/** A sub-handler function; `I` declares the indices it receives. */
export type SubhandlerFn<S, St, I> = (kwargs: ChangingKwargs<S, St> & I) => unknown;

function currentScope(what: string): SubhandlerScope {
  const scope = subhandlerScope.get();
  if (scope === undefined) {
    throw new RegistrationError(
      `kopf.${what}() works only inside a resource-changing handler of a running operator ` +
        "(it adds sub-handlers of the handler being run).",
    );
  }
  return scope;
}

function registerSub(registrar: Registrar, args: readonly unknown[]): HandlerFn {
  const call = parseCall(registrar, args);
  if (call.selectorArgs.length > 0) {
    call.fail("sub-handlers serve their parent's object; remove the selector arguments");
  }
  const scope = currentScope(registrar);
  const norm = normalizeOptions(
    registrar,
    call.options,
    call.fail,
    (v) => v instanceof OperatorRegistry,
  );
  const registry = norm.registry ?? scope.registry;
  const id = handlerId(call, norm, registry, registrar, "sub", true, scope.parentId);
  registry.add({
    kind: "changing",
    fn: call.fn,
    id,
    param: norm.param,
    registrar: `kopf.${registrar}`,
    selector: null,
    reason: null,
    initial: false,
    deleted: false,
    requiresFinalizer: false,
    ...retryOf(norm),
    ...filtersOf(norm),
  });
  return call.fn;
}

/**
 * Register a sub-handler of the running handler (call it inside that handler; the id
 * becomes `<parent>/<id>`). Options: id, param, retry options and filters.
 */
export function subhandler<
  S = Record<string, unknown>,
  St = Record<string, unknown>,
  I extends object = NoIndices,
>(
  ...args: [fn: SubhandlerFn<S, St, I>] | [
    options: SubhandlerOptions<ChangingKwargs<S, St> & I>,
    fn: SubhandlerFn<S, St, I>,
  ]
): SubhandlerFn<S, St, I> {
  return registerSub("subhandler", args) as SubhandlerFn<S, St, I>;
}

/** The same as {@link subhandler}, with the function first. */
export function register<
  S = Record<string, unknown>,
  St = Record<string, unknown>,
  I extends object = NoIndices,
>(
  fn: SubhandlerFn<S, St, I>,
  options: SubhandlerOptions<ChangingKwargs<S, St> & I> = {},
): SubhandlerFn<S, St, I> {
  return registerSub("register", [options, fn]) as SubhandlerFn<S, St, I>;
}

/**
 * What {@link execute} runs — functions by id, handler records, or a registry's handlers;
 * none of them: the sub-handlers registered with {@link subhandler} so far — and how.
 */
export interface ExecuteOptions {
  /** Functions to run as sub-handlers: by id (an object or Map), or a list (ids from names). */
  fns?:
    | Readonly<Record<string, SubhandlerFn<never, never, NoIndices>>>
    | ReadonlyMap<string, SubhandlerFn<never, never, NoIndices>>
    | readonly SubhandlerFn<never, never, NoIndices>[];
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
  cause?: ExecuteCause;
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
function checkCause(cause: ExecuteCause | undefined): ExecuteCause | undefined {
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

/**
 * Run sub-handlers of the running handler now, with the same progress tracking,
 * retries and errors as handlers; resolves when all are done (or throws as the
 * handling cycle decides, e.g. to retry the parent later).
 *
 * Without `fns`, `handlers` or `registry`, it runs the sub-handlers registered so far
 * with {@link subhandler} or {@link register} (which are otherwise run right after the
 * handler returns) — once: a second such call does nothing. `lifecycle` chooses which
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
  const scope = currentScope("execute");
  const run = { lifecycle, cause };
  if (fns === undefined && handlers === undefined && registry === undefined) {
    // The sub-handlers registered so far, once (the implicit run after the handler too).
    if (scope.subexecuted) return;
    scope.subexecuted = true;
    const registered = scope.registry.handlers.filter((h): h is ChangingHandler =>
      h.kind === "changing"
    );
    await scope.execute(registered, run);
    return;
  }
  const out: ChangingHandler[] = [];
  const entries: [string | undefined, unknown][] = fns === undefined
    ? []
    : Array.isArray(fns)
    ? (fns as unknown[]).map((fn) => [undefined, fn])
    : fns instanceof Map
    ? [...fns.entries()]
    : Object.entries(fns);
  for (const [key, fn] of entries) {
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
    out.push(record(fn as HandlerFn, composeId(base, { parent: scope.parentId })));
  }
  const prefixed = (h: ChangingHandler): ChangingHandler =>
    h.id.startsWith(`${scope.parentId}/`)
      ? h
      : Object.freeze({ ...h, id: composeId(h.id, { parent: scope.parentId }) });
  for (const h of handlers ?? []) out.push(prefixed(h));
  for (const h of registry?.handlers ?? []) {
    if (h.kind === "changing") out.push(prefixed(h));
  }
  await scope.execute(out, run);
}
