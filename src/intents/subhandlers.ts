/**
 * Sub-handlers: handlers registered while a resource-changing handler runs, tracked by
 * the handling cycle like top-level ones (ids `<parent>/<child>`).
 *
 * This module is the registration side: `kopf.subhandler()` and `kopf.register()` add
 * records to the running handler's sub-registry, found in {@link subhandlerScope}. Running
 * them -- after the handler, or now with `kopf.execute()` -- is the handling layer's job; it
 * sets the scope around each resource-changing handler. Outside such a scope these
 * functions fail with a clear error.
 *
 * @module
 */
import { AsyncContext } from "../platform/async_context.ts";
import type { Logger } from "../structs/loggers.ts";
import { normalizeOptions } from "./option_normalizing.ts";
import { type Registrar, RegistrationError } from "./handler_options.ts";
import type { OnNamespace } from "./on_namespace.ts";
import { filtersOf, handlerId, parseCall, retryOf } from "./registration_calls.ts";
import { addHandler, OperatorRegistry } from "./registry.ts";

/**
 * The running resource-changing handler, as the registration of its sub-handlers sees it:
 * data only, set by the handling layer around the handler's call.
 */
export interface SubhandlerScope {
  /** The id of the running handler: the prefix of its sub-handlers' ids. */
  readonly parentId: string;
  /** Where warnings about the sub-handlers' registration go (the object's logger). */
  readonly logger: Logger;
  /**
   * The sub-handlers registered so far; made by the first registration (most handlers
   * register none, and cost no registry).
   */
  registry: OperatorRegistry | undefined;
}

/** The current sub-handler scope; the handling layer runs handlers inside it. */
export const subhandlerScope: AsyncContext<SubhandlerScope> = new AsyncContext<SubhandlerScope>();

/** The scope of the running handler; a clear error outside of one. */
export function currentSubhandlerScope(what: string): SubhandlerScope {
  const scope = subhandlerScope.get();
  if (scope === undefined) {
    throw new RegistrationError(
      `kopf.${what}() works only inside a resource-changing handler of a running operator ` +
        "(it adds sub-handlers of the handler being run).",
    );
  }
  return scope;
}

/** The running handler's sub-registry, made when first needed. */
function subRegistry(scope: SubhandlerScope): OperatorRegistry {
  return scope.registry ??= new OperatorRegistry({
    onWarning: (message) => scope.logger.warning(message),
  });
}

function registerSub(registrar: Registrar, args: readonly unknown[]): unknown {
  const call = parseCall(registrar, args);
  if (call.selectorArgs.length > 0) {
    call.fail("sub-handlers serve their parent's object; remove the selector arguments");
  }
  const scope = currentSubhandlerScope(registrar);
  const norm = normalizeOptions(registrar, call.options, call.fail);
  const registry = norm.registry ?? subRegistry(scope);
  const id = handlerId(call, norm, registry, registrar, "sub", true, scope.parentId);
  addHandler(registry, {
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
 * becomes `<parent>/<id>`). Options: id, param, retry options and filters. The
 * sub-handlers run right after the handler returns, or when it calls `kopf.execute()`;
 * each is tracked, retried and reported like a handler.
 *
 * @example One sub-handler per item of the spec, each retried on its own
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.create("kopfexamples", ({ spec }) => {
 *   for (const item of (spec.items as string[] | undefined) ?? []) {
 *     kopf.subhandler({ id: item, retries: 3 }, async ({ logger }) => {
 *       logger.info(`provisioning ${item}`);
 *       await fetch(`https://example.com/provision/${item}`, { method: "POST" });
 *     });
 *   }
 * });
 * ```
 */
export const subhandler: OnNamespace["subhandler"] =
  ((...args: unknown[]): unknown => registerSub("subhandler", args)) as OnNamespace["subhandler"];

/**
 * The same as {@link subhandler}, with the function first (Kopf's `kopf.register`).
 *
 * @example Register named functions as sub-handlers, the second one only for a field's change
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * function createBucket({ name }: { name?: string }) {
 *   return { bucket: `b-${name}` };
 * }
 * function resizeBucket({ spec }: { spec: Record<string, unknown> }) {
 *   return { size: spec.size };
 * }
 * kopf.on.update("kopfexamples", () => {
 *   kopf.register(createBucket);
 *   kopf.register(resizeBucket, { field: "spec.size" });
 * });
 * ```
 */
export const register: OnNamespace["register"] =
  ((fn: unknown, options: unknown = {}): unknown =>
    registerSub("register", [options, fn])) as OnNamespace["register"];
