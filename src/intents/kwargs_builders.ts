/**
 * The builders of the arguments handlers receive: one plain object per call, whose views
 * of the body (`body`, `spec`, `meta`, `status`, ...) are made when first read, with the
 * memo fetched only when a handler reads it; and the change narrowed to a field handler's
 * field.
 *
 * Apart from the arguments' types (`kwargs.ts`), which the user writes against: these are
 * the framework's side.
 *
 * @module
 */
import type { BodySource, ObjectEvent, RawBody } from "../structs/bodies.ts";
import { type Diff, reduceDiff } from "../structs/diffs.ts";
import { type FieldPath, resolve } from "../structs/dicts.ts";
import type { Index } from "../structs/indices.ts";
import type { ObjectLogger } from "../structs/loggers.ts";
import { Memo } from "../structs/memos.ts";
import { Patch } from "../structs/patches.ts";
import type { Resource } from "../structs/resources.ts";
import {
  type Annotations,
  type Body,
  type BodyHolder,
  emptyObject,
  type Labels,
  liveView,
  readOnlyView,
} from "../structs/views.ts";
import type { OperatorSettings } from "../settings/operator_settings.ts";
import type { Activity } from "./reasons.ts";
import type {
  ActivityKwargs,
  ChangingKwargs,
  ChildEventType,
  ChildFilterKwargs,
  ChildKwargs,
  DaemonKwargs,
  EventKwargs,
  IndexingKwargs,
  ResourceKwargs,
  RetryKwargs,
  TimerKwargs,
  WatchedKwargs,
  WebhookKwargs,
} from "./kwargs.ts";

/** What the builder needs to make the arguments of a resource handler. */
export interface ResourceKwargsInit {
  /** The resource of the object. */
  resource: Resource;
  /** The object's body; ignored for the views when `holder` is given. */
  body: RawBody;
  /**
   * For a body known by its metadata only: where `fetchBody` reads the whole object (the
   * holder's own, when `holder` is given).
   */
  source?: BodySource;
  /** Make `body/spec/meta/status/labels/annotations` live views of this holder. */
  holder?: BodyHolder;
  /** The patch to collect changes into; a new one by default. */
  patch?: Patch;
  /** The object's logger; one writing to the console by default. */
  logger?: ObjectLogger;
  /** The object's memo; a new one by default. */
  memo?: unknown;
  /**
   * Where the object's memo comes from, read only if a handler reads `memo` (instead of
   * `memo`): an object's own copy of the operator's memo is then made only for the objects
   * whose handlers use it.
   */
  memoOf?: () => unknown;
  /** The handler's `param`. */
  param?: unknown;
  /** Declared indices by name; they override framework arguments of the same name. */
  indices?: Readonly<Record<string, Index>>;
}

function consoleLogger(prefix: string): ObjectLogger {
  const say = (fn: (...data: unknown[]) => void) => (message: string, props?: object) =>
    props === undefined ? fn(`[${prefix}] ${message}`) : fn(`[${prefix}] ${message}`, props);
  return {
    debug: say(console.debug),
    info: say(console.info),
    warning: say(console.warn),
    error: say(console.error),
    exception: (message, error, props) =>
      console.error(`[${prefix}] ${message}`, ...(error === undefined ? [] : [error]), props ?? ""),
  };
}

/** How the console logger names the object: `namespace/name`, or `name`. */
function identityOf(meta: { readonly namespace?: string; readonly name?: string }): string {
  return meta.namespace ? `${meta.namespace}/${meta.name}` : String(meta.name);
}

/** Where in the body each view of the body looks (`old` and `new` are views of their own). */
const VIEW_PATHS = Object.freeze(
  {
    body: [],
    spec: ["spec"],
    meta: ["metadata"],
    status: ["status"],
    labels: ["metadata", "labels"],
    annotations: ["metadata", "annotations"],
  } satisfies Record<string, FieldPath>,
);

/** A base class whose constructor returns what it is given: see {@link KwargsMemo}. */
class ReturnsItsArgument {
  constructor(object: object) {
    return object;
  }
}

/**
 * The state of the memo accessor of handlers' arguments, in private fields that its
 * constructor adds to the arguments themselves (a plain object: the base class returns it).
 * The accessor is the same for all arguments: an accessor of an object's own -- as `get memo()`
 * in an object literal makes -- gives each object a shape of its own.
 */
class KwargsMemo extends ReturnsItsArgument {
  #memo: unknown;
  readonly #memoOf: (() => unknown) | undefined;

  constructor(kwargs: object, memo: unknown, memoOf: (() => unknown) | undefined) {
    super(kwargs);
    this.#memo = memo;
    this.#memoOf = memoOf;
  }

  /** The memo of the arguments: fetched (or made) when first read. */
  static memoOf(kwargs: KwargsMemo): Memo {
    return (kwargs.#memo ??= kwargs.#memoOf?.() ?? new Memo()) as Memo;
  }

  /** Replace the memo of the arguments. */
  static setMemo(kwargs: KwargsMemo, value: unknown): void {
    kwargs.#memo = value;
  }
}

const MEMO_PROPERTY: PropertyDescriptor = Object.freeze({
  get(this: KwargsMemo): Memo {
    return KwargsMemo.memoOf(this);
  },
  set(this: KwargsMemo, value: Memo): void {
    KwargsMemo.setMemo(this, value);
  },
  enumerable: true,
  configurable: true,
});

/**
 * A view of the body's part at `path` (an empty object when absent): a live one when the
 * arguments follow a holder.
 */
function bodyView(
  body: RawBody,
  holder: BodyHolder | undefined,
  path: FieldPath,
  what: string,
): unknown {
  if (holder !== undefined) return liveView(holder, path, what);
  let value: unknown = body;
  for (let i = 0; i < path.length; i++) {
    value = (value as Record<string, unknown> | undefined)?.[path[i]];
  }
  return readOnlyView(value ?? emptyObject(), what);
}

/** The whole object: the body, or read afresh when the body is metadata only. */
async function fetchBody(
  body: RawBody,
  holder: BodyHolder | undefined,
  source: BodySource | undefined,
): Promise<Body> {
  const latest = holder?.body ?? body;
  const from = holder === undefined ? source : holder.source;
  return readOnlyView(from === undefined ? latest : await from.read(latest), "body") as Body;
}

/**
 * The arguments of a resource handler, plus `extra` and the indices: a plain object with its
 * keys in the order handlers see them, the views of the body (`body`, `spec`, ..., `old`,
 * `new`: proxies, an allocation each) among them as plain keys. The memo alone is an accessor:
 * it is fetched when first read, so that an object's own copy of the operator's memo is made
 * only for the objects whose handlers use it (see {@link KwargsMemo}).
 *
 * This runs for every handler call: `Object.defineProperty()` costs some thousands of
 * instructions a key (`deno task bench instructions`), so there is one. The object literal
 * gives the object room in itself for its first keys: keys added by `obj[key] = ...` to an
 * object with more than a dozen keys out of that room turn it into a dictionary, slow to
 * read and write.
 */
function resourceKwargs(init: ResourceKwargsInit, extra: object, changeViews: boolean): object {
  const holder = init.holder;
  const body = holder?.body ?? init.body;
  const meta = body.metadata ?? emptyObject();
  const source = init.source;
  const kwargs: Record<string | symbol, unknown> = {
    resource: init.resource,
    body: bodyView(body, holder, VIEW_PATHS.body, "body"),
    spec: bodyView(body, holder, VIEW_PATHS.spec, "spec"),
    meta: bodyView(body, holder, VIEW_PATHS.meta, "meta"),
    status: bodyView(body, holder, VIEW_PATHS.status, "status"),
    labels: bodyView(body, holder, VIEW_PATHS.labels, "labels"),
    annotations: bodyView(body, holder, VIEW_PATHS.annotations, "annotations"),
    uid: meta.uid,
    name: meta.name,
    namespace: meta.namespace,
    patch: init.patch ?? new Patch(),
    logger: init.logger ?? consoleLogger(identityOf(meta)),
  };
  new KwargsMemo(kwargs, init.memo, init.memoOf);
  Object.defineProperty(kwargs, "memo", MEMO_PROPERTY);
  kwargs.param = init.param;
  kwargs.fetchBody = () => fetchBody(body, holder, source);
  // As Object.assign() would: the extra keys, each winning over what is before (`old` and
  // `new` as read-only views when asked), then its symbols.
  for (const key in extra) {
    if (!Object.hasOwn(extra, key)) continue;
    const value = (extra as Record<string, unknown>)[key];
    kwargs[key] = changeViews && (key === "old" || key === "new")
      ? readOnlyView(value, key)
      : value;
  }
  for (const symbol of Object.getOwnPropertySymbols(extra)) {
    if (Object.prototype.propertyIsEnumerable.call(extra, symbol)) {
      kwargs[symbol] = (extra as Record<symbol, unknown>)[symbol];
    }
  }
  // Declared indices last, so that they win over framework keys.
  if (init.indices !== undefined) Object.assign(kwargs, init.indices);
  return kwargs;
}

/**
 * The arguments common to all resource handlers, plus `extra` (kind-specific keys),
 * with declared indices put last so that they win over framework keys.
 */
export function buildResourceKwargs<E extends object>(
  init: ResourceKwargsInit,
  extra: E,
): ResourceKwargs & E {
  return resourceKwargs(init, extra, false) as ResourceKwargs & E;
}

/**
 * The arguments of a handler of a watched object: named, as the API server stores every
 * object it serves (see {@link WatchedKwargs}).
 */
function watchedKwargs<E extends object>(init: ResourceKwargsInit, extra: E): WatchedKwargs & E {
  return resourceKwargs(init, extra, false) as WatchedKwargs & E;
}

/** The arguments of a resource-changing handler. */
export function buildChangingKwargs(
  init: ResourceKwargsInit,
  extra: Pick<ChangingKwargs, "reason" | "old" | "new" | "diff" | "retry" | "started" | "runtime">,
): ChangingKwargs {
  return resourceKwargs(init, extra, true) as ChangingKwargs;
}

/** The arguments of an event-watching handler. */
export function buildEventKwargs(
  init: ResourceKwargsInit,
  event: ObjectEvent,
): EventKwargs {
  const object = readOnlyView(event.object, "body") as Body;
  return watchedKwargs(init, { event: { type: event.type, object }, type: event.type });
}

/** The arguments of a daemon: live views of `init.holder`, plus the stop-flag. */
export function buildDaemonKwargs(
  init: ResourceKwargsInit & { holder: BodyHolder },
  extra: Pick<DaemonKwargs, "stopped" | "retry" | "started" | "runtime">,
): DaemonKwargs {
  return watchedKwargs(init, extra);
}

/** The arguments of a timer: live views of `init.holder`. */
export function buildTimerKwargs(
  init: ResourceKwargsInit & { holder: BodyHolder },
  extra: RetryKwargs,
): TimerKwargs {
  return watchedKwargs(init, extra);
}

/** The arguments of a child handler: the parent's, plus the child and its event. */
export function buildChildKwargs(
  init: ResourceKwargsInit,
  extra: RetryKwargs & { child: RawBody; childEvent: ChildEventType },
): ChildKwargs {
  return watchedKwargs(init, {
    ...extra,
    child: readOnlyView(extra.child, "child") as Body,
  });
}

/** The arguments of a child handler's filters. */
export function buildChildFilterKwargs(
  child: RawBody,
  childEvent: ChildEventType,
): ChildFilterKwargs {
  return {
    child: readOnlyView(child, "child") as Body,
    childEvent,
    labels: readOnlyView(child.metadata?.labels ?? emptyObject(), "labels") as Labels,
    annotations: readOnlyView(
      child.metadata?.annotations ?? emptyObject(),
      "annotations",
    ) as Annotations,
  };
}

/** The arguments of an indexing function. */
export function buildIndexingKwargs(init: ResourceKwargsInit, extra: RetryKwargs): IndexingKwargs {
  return watchedKwargs(init, extra);
}

/** The arguments of an admission handler. */
export function buildWebhookKwargs(
  init: ResourceKwargsInit,
  extra: Omit<WebhookKwargs, keyof ResourceKwargs | "old" | "new"> & {
    old: RawBody | null;
    new: RawBody | null;
  },
): WebhookKwargs {
  return buildResourceKwargs(init, {
    ...extra,
    old: extra.old === null ? null : readOnlyView(extra.old, "old") as Body,
    new: extra.new === null ? null : readOnlyView(extra.new, "new") as Body,
  });
}

/** What the builder needs to make the arguments of an activity handler. */
export interface ActivityKwargsInit extends RetryKwargs {
  /** Which activity runs. */
  activity: Activity;
  /** The operator's settings. */
  settings: OperatorSettings;
  /** The operator's logger; one writing to the console by default. */
  logger?: ObjectLogger;
  /** The operator's memo. */
  memo: unknown;
  /** The handler's `param`. */
  param?: unknown;
  /** Declared indices by name; they override framework arguments of the same name. */
  indices?: Readonly<Record<string, Index>>;
}

/** The arguments of an activity handler. */
export function buildActivityKwargs(init: ActivityKwargsInit): ActivityKwargs {
  const { indices, ...rest } = init;
  return {
    ...rest,
    logger: init.logger ?? consoleLogger(`kopf ${init.activity}`),
    memo: init.memo as Memo,
    param: init.param,
    ...indices,
  } as ActivityKwargs;
}

/** The change as one handler sees it: `old`, `new` and `diff`. */
export interface HandlerChange {
  /** The old state (of the field, for field handlers). */
  readonly old: unknown;
  /** The new state (of the field, for field handlers). */
  readonly new: unknown;
  /** The changes (relative to the field, for field handlers). */
  readonly diff: Diff;
}

/**
 * The cause's change narrowed to the handler's field, if it has one: the field's old
 * and new values, and the diff with paths relative to the field.
 */
export function changeFor(
  handler: { readonly field: FieldPath | undefined },
  change: HandlerChange,
): HandlerChange {
  const field = handler.field;
  if (field === undefined) return change;
  return {
    old: resolve(change.old, field) ?? null,
    new: resolve(change.new, field) ?? null,
    diff: reduceDiff(change.diff, field),
  };
}
