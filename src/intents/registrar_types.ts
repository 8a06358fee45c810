/**
 * The types of the registration functions: what each registration function types (the
 * arguments its handlers receive and its options), and the signatures of a resource registrar
 * and of an activity registrar -- each number of arguments one form, so that the compiler names
 * a mistake.
 *
 * Apart from the registration functions themselves (`registration.ts`) and the documented
 * `kopf.on` namespace (`on_namespace.ts`): these are types only, shared by both.
 *
 * @module
 */
import type {
  PartOf,
  ResourceName,
  SelectorKeywords,
  TypedResource,
} from "../structs/resource_selectors.ts";
import type { Resource } from "../structs/resources.ts";
import type { FieldSpec } from "../structs/dicts.ts";
import type { ReadonlyJsonObject } from "../structs/views.ts";
import type {
  ActivityKwargs,
  ChangingKwargs,
  DaemonKwargs,
  EventKwargs,
  IndexingKwargs,
  TimerKwargs,
  WebhookKwargs,
} from "./kwargs.ts";
import type {
  CreateOptions,
  DaemonOptions,
  EventHandlerOptions,
  HandlerOptions,
  TimerOptions,
  UpdateOptions,
  WebhookOptions,
} from "./handler_options.ts";
import type { CheckedOptions, UninferredOptions } from "./option_checks.ts";

/**
 * What each registration function (`create`, `timer`, ...; `webhook` for `on.validate` and
 * `on.mutate`) types, for spec `S`, status `St` and declared indices `I` (`unknown` when none,
 * and then not in the type, so that the compiler's messages name the arguments' type alone):
 * the arguments its handlers receive, and its options, whose callbacks receive the same.
 */
export interface HandlerFamilies<S, St, I> {
  /** `on.event`. */
  event: { kwargs: EventKwargs<S, St> & I; options: EventHandlerOptions<EventKwargs<S, St> & I> };
  /** `on.create`. */
  create: { kwargs: ChangingKwargs<S, St> & I; options: CreateOptions<ChangingKwargs<S, St> & I> };
  /** `on.update`. */
  update: { kwargs: ChangingKwargs<S, St> & I; options: UpdateOptions<ChangingKwargs<S, St> & I> };
  /** `on.delete`. */
  delete: {
    kwargs: ChangingKwargs<S, St> & I;
    options: CreateOptions<ChangingKwargs<S, St> & I> & {
      /** Do not block the deletion with a finalizer: run only if the operator sees it. */
      optional?: boolean;
    };
  };
  /** `on.resume`. */
  resume: {
    kwargs: ChangingKwargs<S, St> & I;
    options: CreateOptions<ChangingKwargs<S, St> & I> & {
      /** Also resume objects already marked for deletion. */
      deleted?: boolean;
    };
  };
  /** `on.field`. */
  field: {
    kwargs: ChangingKwargs<S, St> & I;
    /** `field` is required: the field to watch. */
    options: UpdateOptions<ChangingKwargs<S, St> & I> & { field: FieldSpec };
  };
  /** `daemon`. */
  daemon: { kwargs: DaemonKwargs<S, St> & I; options: DaemonOptions<DaemonKwargs<S, St> & I> };
  /** `timer`. */
  timer: { kwargs: TimerKwargs<S, St> & I; options: TimerOptions<TimerKwargs<S, St> & I> };
  /** `index`. */
  index: {
    kwargs: IndexingKwargs<S, St> & I;
    options: SelectorKeywords & Omit<HandlerOptions<IndexingKwargs<S, St> & I>, "old" | "new">;
  };
  /** `on.validate/mutate`. */
  webhook: { kwargs: WebhookKwargs<S, St> & I; options: WebhookOptions<WebhookKwargs<S, St> & I> };
}

/**
 * What the registration `O` types for `R` (a typed resource, a name or a predicate): typed by
 * the typed resource's spec and status (see {@link PartOf}), else by `S` and `St` -- the type
 * arguments, or the untyped default.
 */
export type FamilyFor<O extends keyof HandlerFamilies<unknown, unknown, unknown>, R, S, St, I> =
  HandlerFamilies<
    [R] extends [TypedResource<infer T>] ? PartOf<T, "spec"> : S,
    [R] extends [TypedResource<infer T>] ? PartOf<T, "status"> : St,
    I
  >[O];

/**
 * The first positional argument of a registration: a typed resource (`kopf.resource<T>(...)`),
 * a resource name (or `EVERYTHING`), or a predicate of resources.
 */
export type ResourceArg =
  | TypedResource<unknown>
  | ResourceName
  | ((resource: Resource) => boolean);

/**
 * A registration function for resource handlers: the selector (a typed resource, a name,
 * group and name, group, version and name, `EVERYTHING`, a predicate, or only keyword
 * options), then the options if any, then the function; for `on.field` and `timer`, whose
 * options are required, the options always.
 *
 * Each number of arguments has one form, so that the compiler names a mistake (a missing
 * `interval`, an unknown option, ...) rather than listing forms that do not fit. Type
 * arguments are `<Spec, Status, Indices>` in every form: without them, a typed resource types
 * `spec` and `status`; with them, they do.
 */
export type ResourceRegistrar<O extends keyof HandlerFamilies<unknown, unknown, unknown>> =
  O extends "field" | "timer" ? {
      /** Register `fn` for the resources described by keyword options (`kind`, `plural`, ...). */
      <
        S = ReadonlyJsonObject,
        St = ReadonlyJsonObject,
        I = unknown,
        G extends Partial<FamilyFor<O, ResourceArg, S, St, I>["options"]> | UninferredOptions =
          UninferredOptions,
      >(
        options: CheckedOptions<O, G, FamilyFor<O, ResourceArg, S, St, I>["options"]>,
        fn: (kwargs: FamilyFor<O, ResourceArg, S, St, I>["kwargs"]) => unknown,
      ): (kwargs: FamilyFor<O, ResourceArg, S, St, I>["kwargs"]) => unknown;
      /** Register `fn` for a typed resource, a resource name or a predicate, with options. */
      <
        S = ReadonlyJsonObject,
        St = ReadonlyJsonObject,
        I = unknown,
        R extends ResourceArg = ResourceArg,
        G extends Partial<FamilyFor<O, R, S, St, I>["options"]> | UninferredOptions =
          UninferredOptions,
      >(
        resource: R,
        options: CheckedOptions<O, G, FamilyFor<O, R, S, St, I>["options"]>,
        fn: (kwargs: FamilyFor<O, R, S, St, I>["kwargs"]) => unknown,
      ): (kwargs: FamilyFor<O, R, S, St, I>["kwargs"]) => unknown;
      /** Register `fn` for resources of the group (or `group/version`) with this name, with options. */
      <
        S = ReadonlyJsonObject,
        St = ReadonlyJsonObject,
        I = unknown,
        G extends Partial<FamilyFor<O, ResourceArg, S, St, I>["options"]> | UninferredOptions =
          UninferredOptions,
      >(
        group: string,
        name: ResourceName,
        options: CheckedOptions<O, G, FamilyFor<O, ResourceArg, S, St, I>["options"]>,
        fn: (kwargs: FamilyFor<O, ResourceArg, S, St, I>["kwargs"]) => unknown,
      ): (kwargs: FamilyFor<O, ResourceArg, S, St, I>["kwargs"]) => unknown;
      /** Register `fn` for resources of the group and version with this name, with options. */
      <
        S = ReadonlyJsonObject,
        St = ReadonlyJsonObject,
        I = unknown,
        G extends Partial<FamilyFor<O, ResourceArg, S, St, I>["options"]> | UninferredOptions =
          UninferredOptions,
      >(
        group: string,
        version: string,
        name: ResourceName,
        options: CheckedOptions<O, G, FamilyFor<O, ResourceArg, S, St, I>["options"]>,
        fn: (kwargs: FamilyFor<O, ResourceArg, S, St, I>["kwargs"]) => unknown,
      ): (kwargs: FamilyFor<O, ResourceArg, S, St, I>["kwargs"]) => unknown;
    }
    : {
      /** Register `fn` for a typed resource, a resource name, a predicate, or keyword options. */
      <
        S = ReadonlyJsonObject,
        St = ReadonlyJsonObject,
        I = unknown,
        R extends ResourceArg = ResourceArg,
        G extends Partial<FamilyFor<O, R, S, St, I>["options"]> | UninferredOptions =
          UninferredOptions,
      >(
        // `R` or the options that select resources by keywords: only the options when an options
        // object was given (`G` inferred, `R` not), so that the compiler names its mistakes
        // against the options alone.
        resource: CheckedOptions<
          O,
          G,
          FamilyFor<O, R, S, St, I>["options"],
          [Extract<G, UninferredOptions>] extends [never] ? [ResourceArg] extends [R] ? never : R
            : R
        >,
        fn: (kwargs: FamilyFor<O, R, S, St, I>["kwargs"]) => unknown,
      ): (kwargs: FamilyFor<O, R, S, St, I>["kwargs"]) => unknown;
      /** Register `fn` for a typed resource, a name or a predicate with options; or a group and a name. */
      <
        S = ReadonlyJsonObject,
        St = ReadonlyJsonObject,
        I = unknown,
        R extends ResourceArg = ResourceArg,
        G extends Partial<FamilyFor<O, R, S, St, I>["options"]> | UninferredOptions =
          UninferredOptions,
      >(
        resource: R,
        options: [R] extends [Exclude<ResourceArg, ResourceName>]
          ? CheckedOptions<O, G, FamilyFor<O, R, S, St, I>["options"]>
          : CheckedOptions<O, G, FamilyFor<O, R, S, St, I>["options"], ResourceName>,
        fn: (kwargs: FamilyFor<O, R, S, St, I>["kwargs"]) => unknown,
      ): (kwargs: FamilyFor<O, R, S, St, I>["kwargs"]) => unknown;
      /** Register `fn` for a group and a name with options; or a group, a version and a name. */
      <
        S = ReadonlyJsonObject,
        St = ReadonlyJsonObject,
        I = unknown,
        G extends Partial<FamilyFor<O, ResourceArg, S, St, I>["options"]> | UninferredOptions =
          UninferredOptions,
      >(
        group: string,
        name: ResourceName,
        options: CheckedOptions<O, G, FamilyFor<O, ResourceArg, S, St, I>["options"], ResourceName>,
        fn: (kwargs: FamilyFor<O, ResourceArg, S, St, I>["kwargs"]) => unknown,
      ): (kwargs: FamilyFor<O, ResourceArg, S, St, I>["kwargs"]) => unknown;
      /** Register `fn` for resources of the group and version with this name, with options. */
      <
        S = ReadonlyJsonObject,
        St = ReadonlyJsonObject,
        I = unknown,
        G extends Partial<FamilyFor<O, ResourceArg, S, St, I>["options"]> | UninferredOptions =
          UninferredOptions,
      >(
        group: string,
        version: string,
        name: ResourceName,
        options: CheckedOptions<O, G, FamilyFor<O, ResourceArg, S, St, I>["options"]>,
        fn: (kwargs: FamilyFor<O, ResourceArg, S, St, I>["kwargs"]) => unknown,
      ): (kwargs: FamilyFor<O, ResourceArg, S, St, I>["kwargs"]) => unknown;
    };

/**
 * A registration function for activity handlers returning `R`: optional options, then the
 * function; `I` declares the indices it receives.
 */
export interface ActivityRegistrar<R = unknown> {
  /** Register `fn`. */
  <I = unknown>(
    fn: (kwargs: ActivityKwargs & I) => R | Promise<R>,
  ): (kwargs: ActivityKwargs & I) => R | Promise<R>;
  /** Register `fn` with options. */
  <I = unknown>(
    options: Pick<
      HandlerOptions<never>,
      "id" | "param" | "registry" | "rbac" | "errors" | "timeout" | "retries" | "backoff"
    >,
    fn: (kwargs: ActivityKwargs & I) => R | Promise<R>,
  ): (kwargs: ActivityKwargs & I) => R | Promise<R>;
}
