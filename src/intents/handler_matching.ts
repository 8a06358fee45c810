/**
 * The handlers of one registry and which of them apply to a given resource, cause, event or
 * admission request: the framework's side of a registry. `kopf.on.*` add records through
 * `registry.ts`; the reactor, the engines, the handling and the commands take a registry's
 * matcher from `matcherOf()` there, once, and ask it with plain data:
 * `matcher.selectChangingHandlers(resource, { reason, body, old, new, diff })`.
 *
 * Nothing here is part of the package's API: the public `OperatorRegistry` only collects.
 *
 * @module
 */
import type { Cause } from "./causes.ts";
import type { FieldPath } from "../structs/dicts.ts";
import type { Resource } from "../structs/resources.ts";
import type { Selection, Selector } from "../structs/resource_selectors.ts";
import {
  FilterCallbackError,
  type HandlerFilters,
  KwargsCache,
  type MatchData,
  matchesFilters,
} from "./filters.ts";
import type {
  ActivityHandler,
  ChangingHandler,
  ChildHandler,
  DaemonHandler,
  EventHandler,
  Handler,
  HandlerKind,
  IndexingHandler,
  TimerHandler,
  WebhookHandler,
} from "./handlers.ts";
import type { AdmissionOperation } from "../structs/admission_reviews.ts";
import type { Activity, WebhookType } from "./reasons.ts";

/** A cause as the selection of changing handlers looks at it: with its filters' arguments. */
export type CauseMatch = Cause & Pick<MatchData, "kwargs">;

/** An admission request, as plain data. */
export interface WebhookRequest extends MatchData {
  /** Validating or mutating. */
  readonly type: WebhookType;
  /** The admitted operation. */
  readonly operation: AdmissionOperation;
  /** The admitted subresource, `null` for the main body. */
  readonly subresource: string | null;
}

/** The handlers of one resource, by kind, in registration order. */
export interface ResourceHandlers {
  /** Resource-changing handlers (and, in sub-registries, sub-handlers). */
  readonly changing: readonly ChangingHandler[];
  /** Event-watching handlers. */
  readonly event: readonly EventHandler[];
  /** Daemons. */
  readonly daemon: readonly DaemonHandler[];
  /** Timers. */
  readonly timer: readonly TimerHandler[];
  /** Indexing functions. */
  readonly index: readonly IndexingHandler[];
  /** Admission handlers. */
  readonly webhook: readonly WebhookHandler[];
  /** Child handlers (`on.child`) of which it is the parent resource. */
  readonly child: readonly ChildHandler[];
}

const hasDuplicates = (list: readonly Handler[]): boolean => {
  const seen = new Set<string>();
  const fns = new Map<Handler["fn"], number>();
  for (const h of list) {
    let n = fns.get(h.fn);
    if (n === undefined) fns.set(h.fn, n = fns.size);
    const key = `${n}\u0000${h.id}`;
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
};

interface CachedList<H> {
  readonly list: readonly H[];
  readonly duplicates: boolean;
}

/** A handler's filters as {@link HandlerMatcher.requiresFinalizer} checks them. */
type FinalizingFilters = HandlerFilters & { readonly id: string; readonly registrar: string };

/** What is derived from the handlers of one resource, until another handler is added. */
interface Cached {
  readonly handlers: ResourceHandlers;
  /** The handlers that need the finalizer if they apply, their field's changes ignored. */
  readonly finalizing: readonly FinalizingFilters[];
  /** The fields the changing handlers watch, each once. */
  readonly extraFields: readonly FieldPath[];
  readonly changing: CachedList<ChangingHandler>;
  readonly event: CachedList<EventHandler>;
  readonly spawning: CachedList<DaemonHandler | TimerHandler>;
  readonly index: CachedList<IndexingHandler>;
  readonly webhook: CachedList<WebhookHandler>;
  readonly child: CachedList<ChildHandler>;
}

function cachedList<H extends Handler>(list: H[]): CachedList<H> {
  return { list: Object.freeze(list), duplicates: hasDuplicates(list) };
}

/**
 * The handler records of one registry, in registration order, and the matching of them.
 * What is derived per resource is cached until the next handler is added: the selections
 * run for every event.
 */
export class HandlerMatcher {
  readonly #handlers: Handler[] = [];
  readonly #cache: Map<string, Cached> = new Map();
  /** The same by resource record: most callers pass the same one, saving its key string. */
  #cacheByRecord: WeakMap<Resource, Cached> = new WeakMap();
  readonly #predicates: Map<unknown, number> = new Map();

  /** Add a handler record (frozen); what was derived from the earlier ones is dropped. */
  add(handler: Handler): void {
    this.#handlers.push(Object.freeze(handler));
    this.#cache.clear();
    this.#cacheByRecord = new WeakMap();
  }

  /** Every handler, in registration order. */
  get handlers(): readonly Handler[] {
    return this.#handlers;
  }

  /**
   * The distinct selectors of the resource handlers (of the given kinds only, if
   * given); equal specifications count once.
   */
  selectors(kinds?: readonly HandlerKind[]): readonly Selector[] {
    const out = new Map<unknown, Selector>();
    for (const h of this.#handlers) {
      if (h.kind === "activity" || h.selector === null) continue;
      if (kinds !== undefined && !kinds.includes(h.kind)) continue;
      const key = h.selector.predicate === undefined
        ? h.selector.toString()
        : `${h.selector.toString()}\u0000${this.#predicateKey(h.selector.predicate)}`;
      if (!out.has(key)) out.set(key, h.selector);
    }
    return [...out.values()];
  }

  #predicateKey(predicate: unknown): number {
    let n = this.#predicates.get(predicate);
    if (n === undefined) this.#predicates.set(predicate, n = this.#predicates.size);
    return n;
  }

  /**
   * The resources to serve among the discovered ones, for all selectors together (of
   * handlers of the given kinds only, if given -- e.g. without `"webhook"` for what to
   * watch), with the warnings of ambiguous selectors.
   */
  resolve(discovered: Iterable<Resource>, kinds?: readonly HandlerKind[]): Selection {
    const all = [...discovered];
    const found = new Map<string, Resource>();
    const warnings: string[] = [];
    for (const selector of this.selectors(kinds)) {
      const selection = selector.select(all);
      for (const r of selection.resources) found.set(r.key, r);
      warnings.push(...selection.warnings);
    }
    return { resources: [...found.values()], warnings };
  }

  #cached(resource: Resource): Cached {
    let cached = this.#cacheByRecord.get(resource);
    if (cached !== undefined) return cached;
    cached = this.#cache.get(resource.key);
    if (cached === undefined) {
      cached = derive(this.#handlers, resource);
      this.#cache.set(resource.key, cached);
    }
    this.#cacheByRecord.set(resource, cached);
    return cached;
  }

  /** All handlers whose selectors match the resource (filters not checked), by kind. */
  handlersFor(resource: Resource): ResourceHandlers {
    return this.#cached(resource).handlers;
  }

  /** Whether any handler of any kind serves the resource. */
  hasHandlers(resource: Resource): boolean {
    const h = this.#cached(resource).handlers;
    return h.changing.length + h.event.length + h.daemon.length + h.timer.length +
        h.index.length + h.webhook.length + h.child.length > 0;
  }

  /** The child handlers (`on.child`) of all parent resources, in registration order. */
  childHandlers(): readonly ChildHandler[] {
    return this.#handlers.filter((h): h is ChildHandler => h.kind === "child");
  }

  /** The child handlers of the parent resource whose (parent) filters pass for the parent. */
  selectChildHandlers(resource: Resource, data: MatchData): ChildHandler[] {
    return select(this.#cached(resource).child, data);
  }

  /** The activity handlers of one activity, in registration order. */
  activityHandlers(activity: Activity): readonly ActivityHandler[] {
    return this.#handlers.filter((h): h is ActivityHandler =>
      h.kind === "activity" && h.activity === activity
    );
  }

  /** The names of all declared indices (the ids of the indexing handlers). */
  indexNames(): readonly string[] {
    return [...new Set(this.#handlers.filter((h) => h.kind === "index").map((h) => h.id))];
  }

  /**
   * The resource-changing handlers to run for a cause: the reason fits (or the handler
   * takes any), resume handlers only in the initial round and -- unless `deleted` -- not
   * for objects being deleted, the filters pass; each (function, id) once.
   */
  selectChangingHandlers(resource: Resource, cause: CauseMatch): ChangingHandler[] {
    const { list, duplicates } = this.#cached(resource).changing;
    const kwargs = new KwargsCache(cause);
    const out: ChangingHandler[] = [];
    for (let i = 0; i < list.length; i++) {
      const h = list[i];
      if (h.reason !== null && h.reason !== cause.reason) continue;
      if (h.initial && !cause.initial) continue;
      if (h.initial && cause.deleted && !h.deleted) continue;
      if (!matchHandler(h, cause, kwargs)) continue;
      out.push(h);
    }
    return duplicates ? deduplicate(out) : out;
  }

  /** The event-watching handlers whose filters pass for the object; each (function, id) once. */
  selectEventHandlers(resource: Resource, data: MatchData): EventHandler[] {
    return select(this.#cached(resource).event, data);
  }

  /** The daemons and timers whose filters pass for the object now. */
  selectSpawningHandlers(resource: Resource, data: MatchData): (DaemonHandler | TimerHandler)[] {
    return select(this.#cached(resource).spawning, data);
  }

  /** The indexing functions whose filters pass for the object. */
  selectIndexingHandlers(resource: Resource, data: MatchData): IndexingHandler[] {
    return select(this.#cached(resource).index, data);
  }

  /**
   * The admission handlers for a request: of its type, for its operation and
   * subresource (`null` in a handler means the main body only, `"*"` any), filters pass.
   */
  selectWebhookHandlers(resource: Resource, request: WebhookRequest): WebhookHandler[] {
    const { list, duplicates } = this.#cached(resource).webhook;
    const fitting = list.filter((h) =>
      h.type === request.type &&
      (h.operations === null || h.operations.includes(request.operation)) &&
      (h.subresource === "*" || h.subresource === request.subresource)
    );
    return select({ list: fitting, duplicates }, request);
  }

  /**
   * Whether the object needs the operator's finalizer: a non-optional deletion handler,
   * a daemon or a timer applies to it.
   */
  requiresFinalizer(resource: Resource, data: MatchData): boolean {
    const finalizing = this.#cached(resource).finalizing;
    if (finalizing.length === 0) return false; // checked for every event: nothing made then
    const kwargs = new KwargsCache(data);
    return finalizing.some((h) => matchHandler(h, data, kwargs));
  }

  /**
   * The fields that resource-changing handlers watch: the diff-base must keep them
   * even where it normally drops data (e.g. `status`).
   */
  extraFields(resource: Resource): readonly FieldPath[] {
    return this.#cached(resource).extraFields;
  }
}

/** What is derived from the handlers for one resource: sorted by kind, in order. */
function derive(handlers: readonly Handler[], resource: Resource): Cached {
  const changing: ChangingHandler[] = [];
  const event: EventHandler[] = [];
  const daemon: DaemonHandler[] = [];
  const timer: TimerHandler[] = [];
  const index: IndexingHandler[] = [];
  const webhook: WebhookHandler[] = [];
  const child: ChildHandler[] = [];
  for (const h of handlers) {
    if (h.kind === "activity") continue;
    if (h.selector !== null && !h.selector.check(resource)) continue;
    if (h.kind === "changing") changing.push(h);
    else if (h.kind === "event") event.push(h);
    else if (h.kind === "daemon") daemon.push(h);
    else if (h.kind === "timer") timer.push(h);
    else if (h.kind === "index") index.push(h);
    else if (h.kind === "child") child.push(h);
    else webhook.push(h);
  }
  const fields = new Map<string, FieldPath>();
  for (const h of changing) {
    if (h.field !== undefined) fields.set(h.field.join("\u0000"), h.field);
  }
  return {
    handlers: Object.freeze({ changing, event, daemon, timer, index, webhook, child }),
    finalizing: Object.freeze(
      [...changing.filter((h) => h.requiresFinalizer), ...daemon, ...timer]
        .map((h) => ({ ...h, fieldNeedsChange: false })),
    ),
    extraFields: Object.freeze([...fields.values()]),
    changing: cachedList(changing),
    event: cachedList(event),
    spawning: cachedList<DaemonHandler | TimerHandler>([...daemon, ...timer]),
    index: cachedList(index),
    webhook: cachedList(webhook),
    child: cachedList(child),
  };
}

/** The filters of one handler; a failing callback is reported with the handler named. */
function matchHandler(
  handler: HandlerFilters & { readonly id: string; readonly registrar: string },
  data: MatchData,
  kwargs: KwargsCache,
): boolean {
  if (!handler.hasCallbacks) return matchesFilters(handler, data, kwargs);
  try {
    return matchesFilters(handler, data, kwargs);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    throw new FilterCallbackError(
      `A filter of ${handler.registrar} handler ${handler.id} failed: ${message}`,
      { cause: e },
    );
  }
}

function select<H extends Handler & HandlerFilters>(
  cached: CachedList<H>,
  data: MatchData,
): H[] {
  const kwargs = new KwargsCache(data);
  const out: H[] = [];
  for (let i = 0; i < cached.list.length; i++) {
    if (matchHandler(cached.list[i], data, kwargs)) out.push(cached.list[i]);
  }
  return cached.duplicates ? deduplicate(out) : out;
}

/** Keep the first handler of each (function, id) pair. */
export function deduplicate<H extends Handler>(handlers: readonly H[]): H[] {
  const seen = new Map<Handler["fn"], Set<string>>();
  return handlers.filter((h) => {
    let ids = seen.get(h.fn);
    if (ids === undefined) seen.set(h.fn, ids = new Set());
    if (ids.has(h.id)) return false;
    ids.add(h.id);
    return true;
  });
}
