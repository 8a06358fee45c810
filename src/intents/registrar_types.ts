/**
 * The types of the registration functions: the families of kwargs and of options a
 * handler is typed by, and the signatures of a resource registrar and of an activity
 * registrar — each number of arguments one form, so that the compiler names a mistake.
 *
 * Apart from the registration functions themselves (`registration.ts`) and the documented
 * `kopf.on` namespace (`on_namespace.ts`): these are types only, shared by both.
 *
 * @module
 */
import type {
  ResourceName,
  ResourcePredicate,
  SpecOf,
  StatusOf,
  TypedResource,
} from "../structs/resource_selectors.ts";
import type { ReadonlyJsonObject } from "../structs/views.ts";
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
import type {
  ActivityOptions,
  CreateOptions,
  DaemonOptions,
  DeleteOptions,
  EventHandlerOptions,
  FieldOptions,
  IndexOptions,
  ResumeOptions,
  TimerOptions,
  UpdateOptions,
  WebhookOptions,
} from "./handler_options.ts";
import type { CheckedOptions, UninferredOptions } from "./option_checks.ts";

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
