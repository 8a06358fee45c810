/**
 * Registration options of every kind of handler, as the user writes them, and the error
 * that names a wrong one. Which registration accepts which option is in
 * `allowed_options.ts`; their validation, each problem reported at once in one line naming
 * the handler and the option, in `option_normalizing.ts`.
 *
 * @module
 */
import type { FieldSpec } from "../structs/dicts.ts";
import type { SelectorKeywords } from "../structs/resource_selectors.ts";
import type { FieldFilterValue, MetaFilter } from "./filters.ts";
import type { ChildFilterKwargs } from "./kwargs.ts";
import type { AdmissionOperation } from "../structs/admission_reviews.ts";
import type { OperatorRegistry } from "./registry.ts";

/**
 * Every option that handlers share, as one list: each registration takes those it accepts --
 * see its own options type (`CreateOptions`, `TimerOptions`, ...). All durations in seconds;
 * all the filters given must match.
 */
export interface HandlerOptions<K> {
  /** The handler id; by default the function's name. */
  id?: string;
  /** Any value, passed to the handler as `param`. */
  param?: unknown;
  /** The registry to add the handler to; the default registry otherwise. */
  registry?: OperatorRegistry;
  /**
   * What the handler's own API calls need beyond what the framework does with the objects
   * it serves, as `RESOURCE:VERBS` -- e.g. `["pods:create,delete", "deployments.apps:get"]`
   * -- for the RBAC that `kopf manifests` generates.
   */
  rbac?: readonly string[];
  /**
   * Retried handlers: what to do with arbitrary errors: retry (default), fail, or ignore
   * (`kopf.ErrorsMode` names them).
   */
  errors?: "temporary" | "permanent" | "ignored";
  /** Retried handlers: fail for good this many seconds after the first attempt. */
  timeout?: number | null;
  /** Retried handlers: fail for good after this many retries. */
  retries?: number | null;
  /** Retried handlers: seconds before retrying after an arbitrary error (default 60). */
  backoff?: number | null;
  /** Criteria for labels: a value, `PRESENT`, `ABSENT`, or a callback. */
  labels?: MetaFilter<K>;
  /** Criteria for annotations: a value, `PRESENT`, `ABSENT`, or a callback. */
  annotations?: MetaFilter<K>;
  /** A field (`"spec.field"` or `["spec", "field"]`) that must be present (or match `value`). */
  field?: FieldSpec;
  /** A criterion for the field's value. */
  value?: FieldFilterValue<K>;
  /**
   * A callback on the whole object's arguments; synchronous. (A method, so that callbacks
   * declaring narrower arguments fit.)
   */
  when?(kwargs: K): boolean;
  /** Update and field handlers: a criterion for the field's value before the change. */
  old?: FieldFilterValue<K>;
  /** Update and field handlers: a criterion for the field's value after the change. */
  new?: FieldFilterValue<K>;
  /**
   * Handlers that get their objects from the resource's watch: the handler needs the objects'
   * metadata only. When every handler, daemon, timer and index of a resource says so, its
   * objects are watched and listed as metadata only (`PartialObjectMetadata`): `body` then has
   * `apiVersion`, `kind` and `metadata`, `spec` and `status` are empty, and the kwarg
   * `fetchBody()` reads the whole object when the handler needs it. Filters may look at
   * `metadata` only.
   */
  metadataOnly?: boolean;
}

/** Options of `on.event`. */
export interface EventHandlerOptions<K>
  extends
    SelectorKeywords,
    Omit<HandlerOptions<K>, "errors" | "timeout" | "retries" | "backoff" | "old" | "new"> {}

/** Options of `on.create`. */
export interface CreateOptions<K>
  extends SelectorKeywords, Omit<HandlerOptions<K>, "old" | "new"> {}

/** Options of `on.update`. */
export interface UpdateOptions<K> extends SelectorKeywords, HandlerOptions<K> {}

/** Options of `daemon`. */
export interface DaemonOptions<K> extends SelectorKeywords, Omit<HandlerOptions<K>, "old" | "new"> {
  /** Seconds to wait before starting the daemon. */
  initialDelay?: number | null;
  /** Seconds between the stop-flag and cancellation. */
  cancellationBackoff?: number | null;
  /** Seconds to wait for a cancelled daemon before abandoning it. */
  cancellationTimeout?: number | null;
  /** Seconds between checks whether a stopping daemon has exited. */
  cancellationPolling?: number | null;
}

/** Options of `timer`: `interval` or `idle` (or both) is required. */
export interface TimerOptions<K> extends SelectorKeywords, Omit<HandlerOptions<K>, "old" | "new"> {
  /** Seconds between invocations. */
  interval?: number | null;
  /** Seconds the object must stay unchanged before invocations. */
  idle?: number | null;
  /** Keep the schedule regardless of how long each run takes. */
  sharp?: boolean;
  /** Seconds to wait before the first invocation. */
  initialDelay?: number | null;
}

/** Options of `on.child`: the filters are the parent's; `childLabels`/`childWhen` the child's. */
export interface ChildOptions<K> extends Omit<HandlerOptions<K>, "old" | "new"> {
  /** Criteria for the child's labels: a value, `PRESENT`, `ABSENT`, or a callback. */
  childLabels?: MetaFilter<ChildFilterKwargs>;
  /** A callback on the child (as its watch carries it: its metadata) and its event. */
  childWhen?(kwargs: ChildFilterKwargs): boolean;
  /** Any owner reference to the parent makes a child, not only the controller one. */
  anyOwner?: boolean;
  /**
   * Children without the label `kopf.zalando.org/owner-kind` (adopted by other tools, or
   * before `kopf.adopt()` set it) count too; the children's watch then receives every object
   * of the child resource, not only the labelled ones.
   */
  unlabelled?: boolean;
}

/** Options of `on.validate` and `on.mutate`. */
export interface WebhookOptions<K> extends
  SelectorKeywords,
  Omit<
    HandlerOptions<K>,
    "errors" | "timeout" | "retries" | "backoff" | "old" | "new" | "metadataOnly"
  > {
  /** Only these operations (one or several); all by default. */
  operation?: AdmissionOperation | "*" | readonly AdmissionOperation[];
  /** Only this subresource (`"*"` for all); the main body only by default. */
  subresource?: string | null;
  /** Keep the webhook configured when the operator exits. */
  persistent?: boolean;
  /** The handler has side effects outside the object. */
  sideEffects?: boolean;
  /** Admit requests when the webhook fails or is unreachable. */
  ignoreFailures?: boolean;
}

/** The registration functions, as named in messages. */
export type Registrar =
  | "on.event"
  | "on.create"
  | "on.update"
  | "on.delete"
  | "on.resume"
  | "on.field"
  | "daemon"
  | "timer"
  | "index"
  | "on.validate"
  | "on.mutate"
  | "on.child"
  | "on.startup"
  | "on.cleanup"
  | "on.login"
  | "on.probe"
  | "subhandler"
  | "register";

/**
 * A registration problem; the message names the handler, the option and the fix.
 *
 * @example In a test: a timer without an interval is refused when it is registered
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * Deno.test("a timer needs an interval", () => {
 *   const registry = new kopf.OperatorRegistry();
 *   try {
 *     kopf.timer("kopfexamples", { registry } as never, () => {});
 *     throw new Error("registered");
 *   } catch (error) {
 *     if (!(error instanceof kopf.RegistrationError)) throw error;
 *   }
 * });
 * ```
 */
export class RegistrationError extends TypeError {
  /** The error class name. */
  override name = "RegistrationError";
}
