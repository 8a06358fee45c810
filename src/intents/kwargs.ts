/**
 * The arguments every handler receives as one object ("kwargs"), typed per kind of
 * handler so that a misspelled name does not compile. The builder that makes them is in
 * `kwargs_builders.ts`.
 *
 * @module
 */
import type { ObjectEvent } from "../structs/bodies.ts";
import type { Diff } from "../structs/diffs.ts";
import type { ObjectLogger } from "../structs/loggers.ts";
import type { Memo } from "../structs/memos.ts";
import type { Patch } from "../structs/patches.ts";
import type { Resource } from "../structs/resources.ts";
import type { DaemonStopped } from "../structs/stoppers.ts";
import type {
  Body,
  DeepReadonly,
  Meta,
  ReadonlyJsonObject,
  Spec,
  Status,
} from "../structs/views.ts";
import type { OperatorSettings } from "../settings/operator_settings.ts";
import type { AdmissionOperation } from "../structs/admission_reviews.ts";
import type { Activity, Reason } from "./reasons.ts";

/** Arguments of every resource handler. `S`/`St` type the `spec` and `status`. */
export interface ResourceKwargs<S = ReadonlyJsonObject, St = ReadonlyJsonObject> {
  /** The resource (group, version, plural, ...) of the object. */
  resource: Resource;
  /** The whole object, read-only. */
  body: Body<S, St>;
  /** The object's `spec`, read-only; empty when absent. */
  spec: Spec<S>;
  /** The object's `metadata`, read-only. */
  meta: Meta;
  /** The object's `status`, read-only; empty when absent. */
  status: Status<St>;
  /** The object's uid; absent only where an admission handler sees a creation. */
  uid: string | undefined;
  /**
   * The object's name: always set for the objects the operator watches (see
   * {@link WatchedKwargs}); absent only where an admission handler sees a creation with
   * `generateName` before the API server names the object.
   */
  name: string | undefined;
  /**
   * The object's namespace; `undefined` for cluster-scoped objects. Its type cannot tell
   * which: a selector names resources, and only the cluster's discovery says whether they
   * are namespaced (`EVERYTHING`, predicates and categories span both kinds, and a typed
   * resource's type does not carry its scope).
   */
  namespace: string | undefined;
  /** The object's labels, read-only. */
  labels: Readonly<Record<string, string>>;
  /** The object's annotations, read-only. */
  annotations: Readonly<Record<string, string>>;
  /** Changes to apply to the object after the handler; `spec`/`status` typed as `S`/`St`. */
  patch: Patch<S, St>;
  /** A logger that speaks about this object. */
  logger: ObjectLogger;
  /** The in-memory container of this object. */
  memo: Memo;
  /** The `param` option of the handler's registration. */
  param: unknown;
  /**
   * The whole object, read-only: `body` itself when the watch carries whole objects; read
   * from the API server at each call when the resource is watched as metadata only (all
   * its handlers declare `metadataOnly`), where `body` has `metadata` only. It rejects with
   * `APINotFoundError` when the object is gone, an object made anew under its name included.
   */
  fetchBody: () => Promise<Body<S, St>>;
}

/**
 * Arguments of the handlers of the objects that the operator watches -- every resource
 * handler but the admission ones: the objects as the API server stores them, so named.
 */
export interface WatchedKwargs<S = ReadonlyJsonObject, St = ReadonlyJsonObject>
  extends ResourceKwargs<S, St> {
  /** The object's uid: the API server gives every object one when it stores it. */
  uid: string;
  /**
   * The object's name: the API server names every object it stores, the ones created with
   * `generateName` included, before any watch or listing carries them.
   */
  name: string;
}

/** Arguments of handlers that are retried. */
export interface RetryKwargs {
  /** The attempt number: 0 for the first one. */
  retry: number;
  /** When the first attempt started. */
  started: Date;
  /** Seconds since the first attempt started. */
  runtime: number;
}

/** Arguments of resource-changing handlers (create, update, delete, resume, field). */
export interface ChangingKwargs<S = ReadonlyJsonObject, St = ReadonlyJsonObject>
  extends WatchedKwargs<S, St>, RetryKwargs {
  /** What happened to the object. */
  reason: Reason;
  /** The old state: of the object's essence, or of the field for field handlers. */
  old: unknown;
  /** The new state: of the object's essence, or of the field for field handlers. */
  new: unknown;
  /** The changes from `old` to `new`. */
  diff: Diff;
}

/** Arguments of event-watching handlers. */
export interface EventKwargs<S = ReadonlyJsonObject, St = ReadonlyJsonObject>
  extends WatchedKwargs<S, St> {
  /** The raw event. */
  event: {
    /** The event type; `null` for objects of the initial listing. */
    readonly type: ObjectEvent["type"];
    /** The object. */
    readonly object: Body<S, St>;
  };
  /** The event type; `null` for objects of the initial listing. */
  type: ObjectEvent["type"];
}

/** A watch event as handlers see it. */
export type WatchEvent<S = ReadonlyJsonObject, St = ReadonlyJsonObject> = EventKwargs<
  S,
  St
>["event"];

/** Arguments of daemons; `body`, `spec`, ... always show the latest state. */
export interface DaemonKwargs<S = ReadonlyJsonObject, St = ReadonlyJsonObject>
  extends WatchedKwargs<S, St>, RetryKwargs {
  /** Set when the daemon must stop; its `signal` aborts then. */
  stopped: DaemonStopped;
}

/** Arguments of timers; `body`, `spec`, ... always show the latest state. */
export interface TimerKwargs<S = ReadonlyJsonObject, St = ReadonlyJsonObject>
  extends WatchedKwargs<S, St>, RetryKwargs {}

/**
 * Arguments of child handlers (`on.child`): the parent's, as for resource-changing handlers,
 * plus the child and what happened to it.
 */
export interface ChildKwargs<
  S = ReadonlyJsonObject,
  St = ReadonlyJsonObject,
  C = Body,
> extends WatchedKwargs<S, St>, RetryKwargs {
  /**
   * The child, read-only: its whole body, read when the handler is called; for a deleted
   * child, its last state as the children's watch carried it (its metadata). Typed as the
   * child resource is: a typed resource's `T`, a built-in's shape for `"configmaps"`,
   * `"secrets"` and `"events"`.
   */
  child: DeepReadonly<C>;
  /** What happened to the child: the type of the child's watch event. */
  childEvent: NonNullable<ObjectEvent["type"]>;
}

/** What happened to a child: the type of the child's watch event. */
export type ChildEventType = ChildKwargs["childEvent"];

/** What the child filters (`childLabels` callbacks, `childWhen`) receive. */
export interface ChildFilterKwargs {
  /** The child as its watch carries it: its metadata, read-only. */
  child: Body;
  /** What happened to the child: the type of the child's watch event. */
  childEvent: NonNullable<ObjectEvent["type"]>;
  /** The child's labels, read-only. */
  labels: Readonly<Record<string, string>>;
  /** The child's annotations, read-only. */
  annotations: Readonly<Record<string, string>>;
}

/** Arguments of indexing functions. */
export interface IndexingKwargs<S = ReadonlyJsonObject, St = ReadonlyJsonObject>
  extends WatchedKwargs<S, St>, RetryKwargs {}

/** Arguments of admission (validating and mutating) handlers. */
export interface WebhookKwargs<S = ReadonlyJsonObject, St = ReadonlyJsonObject>
  extends ResourceKwargs<S, St> {
  /**
   * The object's name; `undefined` in a creation with `generateName`, which mutating
   * handlers see before the API server names the object.
   */
  name: string | undefined;
  /** Whether the request is a dry run: do nothing outside the object then. */
  dryrun: boolean;
  /** The subresource being admitted (e.g. `status`), `null` for the main body. */
  subresource: string | null;
  /** Warnings to return to the client: push strings here. */
  warnings: string[];
  /** The requesting user, as the API server describes it. */
  userinfo: Readonly<Record<string, unknown>>;
  /** The HTTP headers of the admission request. */
  headers: Readonly<Record<string, string>>;
  /** The client certificate of the API server, if it presented a valid one. */
  sslpeer: Readonly<Record<string, unknown>> | null;
  /** The operation being admitted. */
  operation: AdmissionOperation;
  /** The object before the operation (updates and deletions). */
  old: Body<S, St> | null;
  /** The object after the operation (creations and updates). */
  new: Body<S, St> | null;
}

/** Arguments of activity handlers (startup, cleanup, login, probe). */
export interface ActivityKwargs extends RetryKwargs {
  /** Which activity runs. */
  activity: Activity;
  /** The operator's settings; change them in startup handlers. */
  settings: OperatorSettings;
  /** The operator's logger. */
  logger: ObjectLogger;
  /** The operator's in-memory container. */
  memo: Memo;
  /** The `param` option of the handler's registration. */
  param: unknown;
}
