/**
 * The registration API: `kopf.on.*`, `kopf.daemon`, `kopf.timer`, `kopf.index`. Each
 * takes an optional selector, optional options and the function (always last), adds a
 * handler record to a registry and returns the function.
 *
 * The functions' types are in `registrar_types.ts`, the documented type of `kopf.on` in
 * `on_namespace.ts`.
 *
 * @module
 */
import type { ConnectionInfo } from "../structs/credentials.ts";
import { child } from "./child_registration.ts";
import type { Selector } from "../structs/resource_selectors.ts";
import type { HandlerFilters } from "./filters.ts";
import type { Handler, HandlerFn } from "./handlers.ts";
import { type NormalizedOptions, normalizeOptions } from "./option_normalizing.ts";
import type { Registrar } from "./handler_options.ts";
import type { OnNamespace } from "./on_namespace.ts";
import type { Activity, HandlerReason } from "./reasons.ts";
import type { ActivityRegistrar, ResourceRegistrar } from "./registrar_types.ts";
import { addHandler, getDefaultRegistry } from "./registry.ts";
import {
  describeArgs,
  filtersOf,
  handlerId,
  parseCall,
  retryOf,
  selectorOf,
} from "./registration_calls.ts";
import { register, subhandler } from "./subhandlers.ts";

/** What every resource handler record holds: the function, its id, filters and selector. */
type RecordBase =
  & { fn: HandlerFn; id: string; param: unknown; registrar: string; rbac: readonly string[] }
  & { metadataOnly: boolean }
  & HandlerFilters
  & {
    selector: Selector;
  };

/** The record of one kind of resource handler, from the common part and the options. */
type RecordMaker = (base: RecordBase, norm: NormalizedOptions) => Handler;

function resourceRegistrar(registrar: Registrar, withField: boolean, make: RecordMaker) {
  return (...args: unknown[]): unknown => {
    const call = parseCall(registrar, args);
    const norm = normalizeOptions(registrar, call.options, call.fail);
    const selector = selectorOf(call, call.selectorArgs, norm.keywords);
    const registry = norm.registry ?? getDefaultRegistry();
    const id = handlerId(call, norm, registry, registrar, selector.toString(), withField);
    const base = {
      fn: call.fn,
      id,
      param: norm.param,
      registrar: `kopf.${registrar}`,
      rbac: norm.rbac,
      metadataOnly: norm.extra.metadataOnly === true,
    };
    addHandler(registry, make({ ...base, ...filtersOf(norm), selector }, norm));
    return call.fn;
  };
}

function changing(registrar: Registrar, reason: HandlerReason | null) {
  return resourceRegistrar(registrar, true, (base, norm) => ({
    kind: "changing",
    ...base,
    ...retryOf(norm),
    reason,
    initial: registrar === "on.resume",
    deleted: norm.extra.deleted === true,
    requiresFinalizer: registrar === "on.delete" && norm.extra.optional !== true,
  }));
}

function activity(registrar: Registrar, which: Activity) {
  return (...args: unknown[]): unknown => {
    const call = parseCall(registrar, args);
    if (call.selectorArgs.length > 0) {
      call.fail(
        `activity handlers serve no resources; remove the selector arguments (${
          describeArgs(call.selectorArgs)
        })`,
      );
    }
    const norm = normalizeOptions(registrar, call.options, call.fail);
    const registry = norm.registry ?? getDefaultRegistry();
    const id = handlerId(call, norm, registry, registrar, which, false);
    addHandler(registry, {
      kind: "activity",
      fn: call.fn,
      id,
      param: norm.param,
      registrar: `kopf.${registrar}`,
      rbac: norm.rbac,
      ...retryOf(norm),
      activity: which,
    });
    return call.fn;
  };
}

function webhook(registrar: Registrar, type: "validating" | "mutating") {
  return resourceRegistrar(registrar, false, (base, norm) => ({
    kind: "webhook",
    ...base,
    type,
    operations: norm.extra.operations as WebhookHandlerOps,
    subresource: norm.extra.subresource as string | null,
    persistent: norm.extra.persistent === true,
    sideEffects: norm.extra.sideEffects === true,
    ignoreFailures: norm.extra.ignoreFailures === true,
  }));
}

type WebhookHandlerOps = Extract<Handler, { kind: "webhook" }>["operations"];

const extraNumber = (norm: NormalizedOptions, key: string): number | null =>
  (norm.extra[key] ?? null) as number | null;

/**
 * Register a daemon: a long-running function per matching object, from when the object is
 * seen until it is deleted, stops matching the filters, or the operator exits. Also
 * reachable as `kopf.on.daemon`.
 *
 * @example Watch an external system for each object until told to stop
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.daemon("kopfexamples", { cancellationTimeout: 5 }, async ({ name, stopped, logger }) => {
 *   while (!stopped.isSet) {
 *     logger.info(`${name} is still there`);
 *     await stopped.wait(30); // wakes at once when the daemon must stop
 *   }
 * });
 * ```
 */
export const daemon: ResourceRegistrar<"daemon"> = resourceRegistrar(
  "daemon",
  true,
  (base, norm) => ({
    kind: "daemon",
    ...base,
    ...retryOf(norm),
    initialDelay: extraNumber(norm, "initialDelay"),
    cancellationBackoff: extraNumber(norm, "cancellationBackoff"),
    cancellationTimeout: extraNumber(norm, "cancellationTimeout"),
    cancellationPolling: extraNumber(norm, "cancellationPolling"),
    requiresFinalizer: true,
  }),
) as ResourceRegistrar<"daemon">;

/**
 * Register a timer: a function run every `interval` seconds (or once the object has been
 * unchanged for `idle` seconds) per matching object. Also reachable as `kopf.on.timer`.
 *
 * @example Report on each object every minute, once it has been quiet for 10 seconds
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.timer("kopfexamples", { interval: 60, idle: 10 }, ({ spec, patch }) => {
 *   patch.status.checkedSpec = JSON.stringify(spec);
 * });
 * ```
 */
export const timer: ResourceRegistrar<"timer"> = resourceRegistrar(
  "timer",
  true,
  (base, norm) => ({
    kind: "timer",
    ...base,
    ...retryOf(norm),
    interval: extraNumber(norm, "interval"),
    idle: extraNumber(norm, "idle"),
    sharp: norm.extra.sharp === true,
    initialDelay: extraNumber(norm, "initialDelay"),
    requiresFinalizer: true,
  }),
) as ResourceRegistrar<"timer">;

/**
 * Register an indexing function; its id (the function's name by default) names the index
 * that every handler then receives as an argument. Also reachable as `kopf.on.index`.
 *
 * @example Index pods by namespace, and read the index in a timer
 * ```ts
 * import { kopf, type Index } from "@kopf/kopf";
 *
 * kopf.index("pods", function podsByNamespace({ namespace, name }) {
 *   return { [namespace ?? ""]: name };
 * });
 * kopf.timer<unknown, unknown, { podsByNamespace: Index<string, string> }>(
 *   "kopfexamples",
 *   { interval: 60 },
 *   ({ namespace, podsByNamespace, logger }) => {
 *     const pods = podsByNamespace.get(namespace ?? "") ?? [];
 *     logger.info(`${[...pods].length} pods beside this object`);
 *   },
 * );
 * ```
 */
export const index: ResourceRegistrar<"index"> = resourceRegistrar(
  "index",
  false,
  (base, norm) => ({
    kind: "index",
    ...base,
    ...retryOf(norm),
  }),
) as ResourceRegistrar<"index">;

/**
 * The `kopf.on` namespace: every registration function. Each takes a resource selector,
 * optional options, and the handler function last, and returns the function.
 *
 * @example Handle the creation, update and deletion of custom resources
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.create("kopfexamples", ({ spec, logger }) => {
 *   logger.info(`Created with ${JSON.stringify(spec)}`);
 *   return { message: "created" }; // stored as status.<handler id>
 * });
 * kopf.on.update("kopfexamples", { field: "spec.replicas" }, ({ old, new: now }) => {
 *   console.log(`replicas: ${old} -> ${now}`);
 * });
 * kopf.on.delete("kopfexamples", async ({ name }) => {
 *   await fetch(`https://example.com/cleanup/${name}`, { method: "POST" });
 * });
 * ```
 *
 * @example Tune the settings at startup, and log in with a token of one's own
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.posting.level = "warning";
 *   settings.batching.workerLimit = 20;
 * });
 * kopf.on.login(() => ({ server: "https://k8s.example.com:6443", token: "a-token" }));
 * ```
 */
export const on: OnNamespace = Object.freeze({
  event: resourceRegistrar("on.event", true, (base) => ({
    kind: "event",
    ...base,
  })) as ResourceRegistrar<"event">,
  create: changing("on.create", "create") as ResourceRegistrar<"create">,
  update: changing("on.update", "update") as ResourceRegistrar<"update">,
  delete: changing("on.delete", "delete") as ResourceRegistrar<"delete">,
  resume: changing("on.resume", null) as ResourceRegistrar<"resume">,
  field: changing("on.field", null) as ResourceRegistrar<"field">,
  daemon,
  timer,
  index,
  validate: webhook("on.validate", "validating") as ResourceRegistrar<"webhook">,
  mutate: webhook("on.mutate", "mutating") as ResourceRegistrar<"webhook">,
  child,
  startup: activity("on.startup", "startup") as ActivityRegistrar,
  cleanup: activity("on.cleanup", "cleanup") as ActivityRegistrar,
  login: activity("on.login", "login") as ActivityRegistrar<
    ConnectionInfo | null | undefined | void
  >,
  probe: activity("on.probe", "probe") as ActivityRegistrar,
  subhandler,
  register,
});
