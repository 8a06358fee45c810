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

/** What the handling layer provides while a resource-changing handler runs. */
export interface SubhandlerScope {
  /** The id of the running handler: the prefix of its sub-handlers' ids. */
  readonly parentId: string;
  /** Where `kopf.subhandler()` puts the sub-handlers of the running handler. */
  readonly registry: OperatorRegistry;
  /**
   * Run the given sub-handler records to completion, as the handling cycle does with
   * handlers (progress, retries, errors). Used by `kopf.execute()`.
   */
  execute(handlers: readonly ChangingHandler[]): Promise<void>;
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

/** What {@link execute} runs: functions by id, handler records, or a registry's handlers. */
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

/**
 * Run sub-handlers of the running handler now, with the same progress tracking,
 * retries and errors as handlers; resolves when all are done (or throws as the
 * handling cycle decides, e.g. to retry the parent later).
 */
export async function execute(options: ExecuteOptions): Promise<void> {
  const { fns, handlers, registry } = options ?? {};
  if (fns === undefined && handlers === undefined && registry === undefined) {
    throw new RegistrationError(
      "kopf.execute() needs something to run: give fns, handlers or registry.",
    );
  }
  const scope = currentScope("execute");
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
  await scope.execute(out);
}
