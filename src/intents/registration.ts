/**
 * The registration API: `kopf.on.*`, `kopf.daemon`, `kopf.timer`, `kopf.index`. Each
 * takes an optional selector, optional options and the function (always last), adds a
 * handler record to a registry and returns the function.
 *
 * @module
 */
import type { ConnectionInfo } from "../structs/credentials.ts";
import { child, type ChildRegistrar } from "./child_registration.ts";
import type {
  ResourceName,
  ResourcePredicate,
  Selector,
  SpecOf,
  StatusOf,
  TypedResource,
} from "../structs/resource_selectors.ts";
import type { ReadonlyJsonObject } from "../structs/views.ts";
import type { HandlerFilters } from "./filters.ts";
import type { Handler, HandlerFn } from "./handlers.ts";
import type {
  ActivityKwargs,
  ChangingKwargs,
  DaemonKwargs,
  EventKwargs,
  IndexingKwargs,
  NoIndices,
  TimerKwargs,
  WebhookKwargs,
} from "./kwargs.ts";
import {
  type ActivityOptions,
  type CreateOptions,
  type DaemonOptions,
  type DeleteOptions,
  type EventHandlerOptions,
  type FieldOptions,
  type IndexOptions,
  type NormalizedOptions,
  normalizeOptions,
  type Registrar,
  type ResumeOptions,
  type TimerOptions,
  type UpdateOptions,
  type WebhookOptions,
} from "./handler_options.ts";
import type { CheckedOptions, UninferredOptions } from "./option_checks.ts";
import type { Activity, HandlerReason } from "./reasons.ts";
import { addHandler, getDefaultRegistry } from "./registry.ts";
import {
  describeArgs,
  filtersOf,
  handlerId,
  parseCall,
  retryOf,
  selectorOf,
} from "./registration_calls.ts";
import {
  type FnFirstSubhandlerRegistrar,
  register,
  subhandler,
  type SubhandlerRegistrar,
} from "./subhandlers.ts";

/** A value or a promise of it. */
export type Awaitable<T> = T | Promise<T>;

/** The arguments of each family of resource handlers, for spec `S` and status `St`. */
export interface KwargsFamilies<S, St> {
  /** `on.event`. */
  event: EventKwargs<S, St>;
  /** `on.create/update/delete/resume/field`. */
  changing: ChangingKwargs<S, St>;
  /** `daemon`. */
  daemon: DaemonKwargs<S, St>;
  /** `timer`. */
  timer: TimerKwargs<S, St>;
  /** `index`. */
  index: IndexingKwargs<S, St>;
  /** `on.validate/mutate`. */
  webhook: WebhookKwargs<S, St>;
}

/** A family of resource handlers. */
export type KwargsFamily = keyof KwargsFamilies<unknown, unknown>;

/** The options of each registration function, for callbacks receiving `K`. */
export interface OptionFamilies<K> {
  /** `on.event`. */
  event: EventHandlerOptions<K>;
  /** `on.create`. */
  create: CreateOptions<K>;
  /** `on.update`. */
  update: UpdateOptions<K>;
  /** `on.delete`. */
  delete: DeleteOptions<K>;
  /** `on.resume`. */
  resume: ResumeOptions<K>;
  /** `on.field`. */
  field: FieldOptions<K>;
  /** `daemon`. */
  daemon: DaemonOptions<K>;
  /** `timer`. */
  timer: TimerOptions<K>;
  /** `index`. */
  index: IndexOptions<K>;
  /** `on.validate/mutate`. */
  webhook: WebhookOptions<K>;
}

/** A kind of registration options. */
export type OptionFamily = keyof OptionFamilies<unknown>;

/**
 * A handler's arguments `K` with the declared indices `I` (none by default, and then not
 * in the type, so that the compiler's messages name the arguments' type alone).
 */
export type WithIndices<K, I> = [keyof I] extends [never] ? K : K & I;

/** A resource handler of family `F`; `I` adds declared indices to its arguments. */
export type ResourceHandlerFn<F extends KwargsFamily, S, St, I> = (
  kwargs: WithIndices<KwargsFamilies<S, St>[F], I>,
) => unknown;

/** The options of family `O` whose callbacks receive the arguments of family `F`. */
export type OptionsOf<F extends KwargsFamily, O extends OptionFamily, S, St, I> = OptionFamilies<
  WithIndices<KwargsFamilies<S, St>[F], I>
>[O];

/**
 * The first positional argument of a registration: a typed resource (`kopf.resource<T>(…)`),
 * a resource name (or `EVERYTHING`), or a predicate of resources.
 */
export type ResourceArg = TypedResource<unknown> | ResourceName | ResourcePredicate;

/**
 * The `spec` type of the handlers registered for `R`: the typed resource's (see
 * {@link SpecOf}), else `S` — the type argument, or the untyped default.
 */
export type SpecFor<R, S> = [R] extends [TypedResource<infer T>] ? SpecOf<T> : S;

/** The `status` type of the handlers registered for `R`; see {@link SpecFor}. */
export type StatusFor<R, St> = [R] extends [TypedResource<infer T>] ? StatusOf<T> : St;

/** The handler of family `F` registered for `R` (typed by it, or by `S`/`St`), with indices `I`. */
export type HandlerFor<F extends KwargsFamily, R, S, St, I> = ResourceHandlerFn<
  F,
  SpecFor<R, S>,
  StatusFor<R, St>,
  I
>;

/**
 * The options of family `O` as a registration of handlers of family `F` for `R` checks them:
 * `G` is the type of the options given (see {@link CheckedOptions}).
 */
export type OptionsFor<F extends KwargsFamily, O extends OptionFamily, R, S, St, I, G> =
  CheckedOptions<O, G, OptionsOf<F, O, SpecFor<R, S>, StatusFor<R, St>, I>>;

/**
 * What the options' type parameter `G` of a registration may be: the options of family `O`
 * (their required keys optional, so that a missing one is named by {@link CheckedOptions}),
 * or {@link UninferredOptions}.
 */
export type OptionsArg<F extends KwargsFamily, O extends OptionFamily, R, S, St, I> =
  | Partial<OptionsOf<F, O, SpecFor<R, S>, StatusFor<R, St>, I>>
  | UninferredOptions;

/**
 * A registration function for resource handlers whose options are required (`on.field`,
 * `timer`): the selector (a typed resource, a name, group and name, group, version and name,
 * `EVERYTHING`, a predicate, or only keyword options), then the options, then the function.
 *
 * Each number of arguments has one form, so that the compiler names a mistake (a missing
 * `interval`, an unknown option, …) rather than listing forms that do not fit. Type
 * arguments are `<Spec, Status, Indices>` in every form: without them, a typed resource types
 * `spec` and `status`; with them, they do.
 */
export interface ResourceRegistrarWithOptions<F extends KwargsFamily, O extends OptionFamily> {
  /** Register `fn` for the resources described by keyword options (`kind`, `plural`, …). */
  <
    S = ReadonlyJsonObject,
    St = ReadonlyJsonObject,
    I extends object = NoIndices,
    G extends OptionsArg<F, O, ResourceArg, S, St, I> = UninferredOptions,
  >(
    options: OptionsFor<F, O, ResourceArg, S, St, I, G>,
    fn: ResourceHandlerFn<F, S, St, I>,
  ): ResourceHandlerFn<F, S, St, I>;
  /** Register `fn` for a typed resource, a resource name or a predicate, with options. */
  <
    S = ReadonlyJsonObject,
    St = ReadonlyJsonObject,
    I extends object = NoIndices,
    R extends ResourceArg = ResourceArg,
    G extends OptionsArg<F, O, R, S, St, I> = UninferredOptions,
  >(
    resource: R,
    options: OptionsFor<F, O, R, S, St, I, G>,
    fn: HandlerFor<F, R, S, St, I>,
  ): HandlerFor<F, R, S, St, I>;
  /** Register `fn` for resources of the group (or `group/version`) with this name, with options. */
  <
    S = ReadonlyJsonObject,
    St = ReadonlyJsonObject,
    I extends object = NoIndices,
    G extends OptionsArg<F, O, ResourceArg, S, St, I> = UninferredOptions,
  >(
    group: string,
    name: ResourceName,
    options: OptionsFor<F, O, ResourceArg, S, St, I, G>,
    fn: ResourceHandlerFn<F, S, St, I>,
  ): ResourceHandlerFn<F, S, St, I>;
  /** Register `fn` for resources of the group and version with this name, with options. */
  <
    S = ReadonlyJsonObject,
    St = ReadonlyJsonObject,
    I extends object = NoIndices,
    G extends OptionsArg<F, O, ResourceArg, S, St, I> = UninferredOptions,
  >(
    group: string,
    version: string,
    name: ResourceName,
    options: OptionsFor<F, O, ResourceArg, S, St, I, G>,
    fn: ResourceHandlerFn<F, S, St, I>,
  ): ResourceHandlerFn<F, S, St, I>;
}

/**
 * The options `C` (as {@link OptionsFor} checks them), or what may stand in their place
 * instead: `A` — unless `C` is the message of a problem, which `A` (a name: a string) would
 * swallow.
 */
export type OptionsOr<C, A> = [C] extends [string] ? C : C | A;

/**
 * The first of two arguments of a registration: `R` (a typed resource, a name, a predicate)
 * or the options `C` that select resources by keywords. Only `C` when an options object was
 * given (`G` inferred, `R` not), so that the compiler names its mistakes against the options
 * alone.
 */
export type ResourceOrOptions<R, C, G> = [Extract<G, UninferredOptions>] extends [never]
  ? [ResourceArg] extends [R] ? C : OptionsOr<C, R>
  : OptionsOr<C, R>;

/**
 * The second argument of a registration for `R` with three arguments: the options `C`, or,
 * after a group (a string), the name of the resource.
 */
export type OptionsOrName<R, C> = [R] extends [TypedResource<unknown> | ResourcePredicate] ? C
  : OptionsOr<C, ResourceName>;

/**
 * A registration function for resource handlers: the selector (a typed resource, a name,
 * group and name, group, version and name, `EVERYTHING`, a predicate, or only keyword
 * options), then the options if any, then the function. As in
 * {@link ResourceRegistrarWithOptions}, each number of arguments has one form, and type
 * arguments are `<Spec, Status, Indices>`.
 */
export interface ResourceRegistrar<F extends KwargsFamily, O extends OptionFamily> {
  /** Register `fn` for a typed resource, a resource name, a predicate, or keyword options. */
  <
    S = ReadonlyJsonObject,
    St = ReadonlyJsonObject,
    I extends object = NoIndices,
    R extends ResourceArg = ResourceArg,
    G extends OptionsArg<F, O, R, S, St, I> = UninferredOptions,
  >(
    resource: ResourceOrOptions<R, OptionsFor<F, O, R, S, St, I, G>, G>,
    fn: HandlerFor<F, R, S, St, I>,
  ): HandlerFor<F, R, S, St, I>;
  /** Register `fn` for a typed resource, a name or a predicate with options; or a group and a name. */
  <
    S = ReadonlyJsonObject,
    St = ReadonlyJsonObject,
    I extends object = NoIndices,
    R extends ResourceArg = ResourceArg,
    G extends OptionsArg<F, O, R, S, St, I> = UninferredOptions,
  >(
    resource: R,
    options: OptionsOrName<R, OptionsFor<F, O, R, S, St, I, G>>,
    fn: HandlerFor<F, R, S, St, I>,
  ): HandlerFor<F, R, S, St, I>;
  /** Register `fn` for a group and a name with options; or a group, a version and a name. */
  <
    S = ReadonlyJsonObject,
    St = ReadonlyJsonObject,
    I extends object = NoIndices,
    G extends OptionsArg<F, O, ResourceArg, S, St, I> = UninferredOptions,
  >(
    group: string,
    name: ResourceName,
    options: OptionsOr<OptionsFor<F, O, ResourceArg, S, St, I, G>, ResourceName>,
    fn: ResourceHandlerFn<F, S, St, I>,
  ): ResourceHandlerFn<F, S, St, I>;
  /** Register `fn` for resources of the group and version with this name, with options. */
  <
    S = ReadonlyJsonObject,
    St = ReadonlyJsonObject,
    I extends object = NoIndices,
    G extends OptionsArg<F, O, ResourceArg, S, St, I> = UninferredOptions,
  >(
    group: string,
    version: string,
    name: ResourceName,
    options: OptionsFor<F, O, ResourceArg, S, St, I, G>,
    fn: ResourceHandlerFn<F, S, St, I>,
  ): ResourceHandlerFn<F, S, St, I>;
}

/** An activity handler returning `R`; `I` declares the indices it receives. */
export type ActivityHandlerFn<R, I> = (kwargs: ActivityKwargs & I) => Awaitable<R>;

/** A registration function for activity handlers: optional options, then the function. */
export interface ActivityRegistrar<R = unknown> {
  /** Register `fn`. */
  <I extends object = NoIndices>(fn: ActivityHandlerFn<R, I>): ActivityHandlerFn<R, I>;
  /** Register `fn` with options. */
  <I extends object = NoIndices>(
    options: ActivityOptions,
    fn: ActivityHandlerFn<R, I>,
  ): ActivityHandlerFn<R, I>;
}

/** The `kopf.on` namespace. */
export interface OnNamespace {
  /**
   * Every watch event of the matching objects; never retried.
   *
   * @example Count the pods as they come and go
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * const running = new Set<string>();
   * kopf.on.event("pods", ({ type, uid }) => {
   *   if (type === "DELETED") running.delete(uid);
   *   else running.add(uid);
   * });
   * ```
   */
  readonly event: ResourceRegistrar<"event", "event">;
  /**
   * Objects created (new to the operator).
   *
   * @example Greet each new object in its status
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.create("kopfexamples", ({ name, logger }) => {
   *   logger.info(`${name} is created`);
   *   return { greeting: `hello, ${name}` }; // stored as status.<handler id>
   * });
   * ```
   */
  readonly create: ResourceRegistrar<"changing", "create">;
  /**
   * Objects whose essence changed.
   *
   * @example React to changes of the spec, with the old and new essence
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.update("kopfexamples", ({ diff, logger }) => {
   *   for (const [operation, field] of diff) logger.info(`${operation} ${field.join(".")}`);
   * });
   * ```
   */
  readonly update: ResourceRegistrar<"changing", "update">;
  /**
   * Objects marked for deletion; a finalizer blocks the deletion unless `optional`.
   *
   * @example Release an external resource before the object goes
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.delete("kopfexamples", async ({ name }) => {
   *   await fetch(`https://example.com/buckets/${name}`, { method: "DELETE" });
   * });
   * ```
   */
  readonly delete: ResourceRegistrar<"changing", "delete">;
  /**
   * Objects found when the operator starts (also mixed into creations and updates).
   *
   * @example Rebuild an in-memory cache for the objects found at startup
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * const sizes = new Map<string, unknown>();
   * kopf.on.resume("kopfexamples", ({ name, spec }) => {
   *   sizes.set(name, spec.size);
   * });
   * ```
   */
  readonly resume: ResourceRegistrar<"changing", "resume">;
  /**
   * Changes of one field (option `field`, required), in whichever cycle they happen, as in
   * Kopf: an update that changes, adds or removes it, and the creation of an object that
   * has it (`old` is `null` then); not resuming or deleting an object whose field did not
   * change.
   *
   * @example Scale something else when one field changes
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.field("kopfexamples", { field: "spec.replicas" }, ({ old, new: replicas, logger }) => {
   *   logger.info(`scaling from ${old ?? 0} to ${replicas}`);
   * });
   * ```
   */
  readonly field: ResourceRegistrarWithOptions<"changing", "field">;
  /**
   * A long-running function per object.
   *
   * @example A watcher per object, the same as kopf.daemon
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.daemon("kopfexamples", async ({ name, stopped, logger }) => {
   *   while (!stopped.isSet) {
   *     logger.debug(`${name}: still watching`);
   *     await stopped.wait(60);
   *   }
   * });
   * ```
   */
  readonly daemon: ResourceRegistrar<"daemon", "daemon">;
  /**
   * A function run periodically per object (option `interval` or `idle`, required).
   *
   * @example Check each object every five minutes, the same as kopf.timer
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.timer("kopfexamples", { interval: 300 }, async ({ name, patch }) => {
   *   const response = await fetch(`https://example.com/health/${name}`);
   *   patch.status.healthy = response.ok;
   * });
   * ```
   */
  readonly timer: ResourceRegistrarWithOptions<"timer", "timer">;
  /**
   * An indexing function: its results form the index named by its id.
   *
   * @example Index the objects by their owner label, the same as kopf.index
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.index("kopfexamples", function byOwner({ labels, name }) {
   *   return labels.owner === undefined ? null : { [labels.owner]: name };
   * });
   * ```
   */
  readonly index: ResourceRegistrar<"index", "index">;
  /**
   * A validating admission handler.
   *
   * @example Refuse objects whose size is not one of the offered ones
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.validate("kopfexamples", { operation: ["CREATE", "UPDATE"] }, ({ spec }) => {
   *   if (!["small", "large"].includes(String(spec.size))) {
   *     throw new kopf.AdmissionError("spec.size must be small or large", { code: 422 });
   *   }
   * });
   * ```
   */
  readonly validate: ResourceRegistrar<"webhook", "webhook">;
  /**
   * A mutating admission handler: changes go into `patch`.
   *
   * @example Label every new object with the team that created it
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.mutate("kopfexamples", { operation: "CREATE" }, ({ userinfo, patch }) => {
   *   patch.metadata.labels = { "created-by": String(userinfo.username ?? "unknown") };
   * });
   * ```
   */
  readonly mutate: ResourceRegistrar<"webhook", "webhook">;
  /**
   * A parent's handler for changes of its children: objects of the child resource with an
   * owner reference to it (the controller one, as `kopf.adopt()` sets it, unless
   * `anyOwner`). It gets the parent's arguments plus `child` and `childEvent`, and is retried
   * as other handlers are; its result goes to the parent's status.
   *
   * @example Restore a child ConfigMap when it is edited or deleted
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.child("kopfexamples", "configmaps", ({ name, childEvent, child, logger }) => {
   *   logger.info(`${child.metadata.name} of ${name}: ${childEvent}`);
   *   // Re-create or re-apply the child here, e.g. with the client and kopf.adopt().
   * });
   * ```
   */
  readonly child: ChildRegistrar;
  /**
   * Runs when the operator starts, before anything is watched.
   *
   * @example Tune the settings and open what the handlers share
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.startup(({ settings, memo }) => {
   *   settings.persistence.finalizer = "example.com/cleanup";
   *   memo.startedAt = new Date();
   * });
   * ```
   */
  readonly startup: ActivityRegistrar;
  /**
   * Runs when the operator stops.
   *
   * @example Say goodbye to an external registry when the operator exits
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.cleanup(async ({ logger }) => {
   *   await fetch("https://example.com/operators/me", { method: "DELETE" });
   *   logger.info("unregistered");
   * });
   * ```
   */
  readonly cleanup: ActivityRegistrar;
  /**
   * Provides credentials: returns a `ConnectionInfo` (or nothing).
   *
   * @example Log in with a token read from a mounted file
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.login(async () => ({
   *   server: "https://kubernetes.default.svc",
   *   token: (await Deno.readTextFile("/var/run/secrets/example/token")).trim(),
   * }));
   * ```
   */
  readonly login: ActivityRegistrar<ConnectionInfo | null | undefined | void>;
  /**
   * Contributes to the liveness endpoint's report under its id.
   *
   * @example Report the queue length on the liveness endpoint
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * const queue: string[] = [];
   * kopf.on.probe(function queueLength() {
   *   return queue.length; // reported under the id "queueLength"
   * });
   * ```
   */
  readonly probe: ActivityRegistrar;
  /**
   * Kopf's `kopf.on.subhandler`: a sub-handler of the running handler, the same as
   * `kopf.subhandler`.
   *
   * @example A sub-handler per container, registered the Kopf way
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.create("kopfexamples", ({ spec }) => {
   *   for (const name of (spec.containers as string[] | undefined) ?? []) {
   *     kopf.on.subhandler({ id: name }, ({ logger }) => logger.info(`checking ${name}`));
   *   }
   * });
   * ```
   */
  readonly subhandler: SubhandlerRegistrar;
  /**
   * Kopf's `kopf.on.register`: a sub-handler of the running handler, function first, the
   * same as `kopf.register`.
   *
   * @example A named function as a sub-handler, the Kopf way
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * function notifyOwner({ name }: { name?: string }) {
   *   console.log(`${name} needs attention`);
   * }
   * kopf.on.update("kopfexamples", () => {
   *   kopf.on.register(notifyOwner, { retries: 3 });
   * });
   * ```
   */
  readonly register: FnFirstSubhandlerRegistrar;
}

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
export const daemon: ResourceRegistrar<"daemon", "daemon"> = resourceRegistrar(
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
) as ResourceRegistrar<"daemon", "daemon">;

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
export const timer: ResourceRegistrarWithOptions<"timer", "timer"> = resourceRegistrar(
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
) as ResourceRegistrarWithOptions<"timer", "timer">;

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
export const index: ResourceRegistrar<"index", "index"> = resourceRegistrar(
  "index",
  false,
  (base, norm) => ({
    kind: "index",
    ...base,
    ...retryOf(norm),
  }),
) as ResourceRegistrar<"index", "index">;

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
 *   console.log(`replicas: ${old} → ${now}`);
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
  })) as ResourceRegistrar<"event", "event">,
  create: changing("on.create", "create") as ResourceRegistrar<"changing", "create">,
  update: changing("on.update", "update") as ResourceRegistrar<"changing", "update">,
  delete: changing("on.delete", "delete") as ResourceRegistrar<"changing", "delete">,
  resume: changing("on.resume", null) as ResourceRegistrar<"changing", "resume">,
  field: changing("on.field", null) as ResourceRegistrarWithOptions<"changing", "field">,
  daemon,
  timer,
  index,
  validate: webhook("on.validate", "validating") as ResourceRegistrar<"webhook", "webhook">,
  mutate: webhook("on.mutate", "mutating") as ResourceRegistrar<"webhook", "webhook">,
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
