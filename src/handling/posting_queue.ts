/**
 * The queue of Kubernetes Events between those who want them (per-object loggers,
 * `kopf.event()` and friends) and the poster engine that creates them in the cluster, plus
 * the posting rules: enabled or not, the level threshold, never an event about an event.
 *
 * Which queue and settings apply is carried by an async context entered by the operator, so
 * that handlers reach their own operator's queue even with several operators in one process.
 *
 * @module
 */
import { AsyncContext } from "../platform/async_context.ts";
import { cutEventMessage, type K8sEventRequest } from "../structs/k8s_events.ts";
import { type LogLevelSetting, severityRank } from "../structs/log_formats.ts";
import { isEventReference } from "../structs/object_refs.ts";
import type { OperatorSettings } from "../settings/operator_settings.ts";

/** What posting reads of the operator's settings: `settings.posting`, read when used. */
export type PostingSettingsHolder = Pick<OperatorSettings, "posting">;

/** How many event requests a queue holds by default before dropping the oldest. */
export const DEFAULT_EVENT_QUEUE_CAPACITY = 10_000;

/**
 * A bounded FIFO of event requests with one awaiting consumer. When full, a new request
 * pushes out the oldest one, which is counted (see {@link EventQueue.takeDropped}) so that
 * the poster can report the loss once for many events. Pushing never waits.
 */
export class EventQueue {
  #items: K8sEventRequest[] = [];
  #head = 0;
  #wake: (() => void) | undefined;
  #dropped = 0;
  /** The most requests held at once; the oldest are dropped beyond it. */
  readonly capacity: number;

  /** A queue holding at most `capacity` requests (10,000 by default). */
  constructor(capacity: number = DEFAULT_EVENT_QUEUE_CAPACITY) {
    this.capacity = Math.max(1, Math.floor(capacity));
  }

  /** How many requests wait to be posted. */
  get size(): number {
    return this.#items.length - this.#head;
  }

  /** How many requests were dropped since the last {@link takeDropped}. */
  get dropped(): number {
    return this.#dropped;
  }

  /** The count of dropped requests since the last call, and reset it to zero. */
  takeDropped(): number {
    const dropped = this.#dropped;
    this.#dropped = 0;
    return dropped;
  }

  /** Add a request, dropping the oldest one if the queue is full; wakes the consumer. */
  push(request: K8sEventRequest): void {
    if (this.size >= this.capacity) {
      this.shift();
      this.#dropped++;
    }
    this.#items.push(request);
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Take the oldest request without waiting, or `undefined` when empty. */
  shift(): K8sEventRequest | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head++] = undefined as unknown as K8sEventRequest;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head); // compact now and then, amortised O(1)
      this.#head = 0;
    }
    return item;
  }

  /** Take the oldest request, waiting for one; `undefined` once `signal` aborts. */
  async next(signal?: AbortSignal): Promise<K8sEventRequest | undefined> {
    while (true) {
      const item = this.shift();
      if (item !== undefined) return item;
      if (signal?.aborted) return undefined;
      await new Promise<void>((resolve) => {
        const done = () => {
          signal?.removeEventListener("abort", done);
          resolve();
        };
        this.#wake = done;
        signal?.addEventListener("abort", done, { once: true });
      });
    }
  }
}

/** Where events go in the current operator: its settings and its queue. */
export interface PostingTarget {
  /** The operator's settings (only `posting` is read). */
  readonly settings: PostingSettingsHolder;
  /** The operator's event queue, drained by its poster. */
  readonly queue: EventQueue;
}

const postingContext = new AsyncContext<PostingTarget>();
const fallbackTargets: PostingTarget[] = [];

/**
 * Run `fn` (an operator's whole life, or a test) with `target` as the place where events go.
 * Everything `fn` starts -- watchers, workers, handlers -- inherits it.
 */
export function runWithPostingTarget<R>(target: PostingTarget, fn: () => R): R {
  return postingContext.run(target, fn);
}

/**
 * Make `target` the process-wide fallback for code outside any operator's async flow (e.g. a
 * callback of a foreign library); the latest registered wins. Returns the unregistering function.
 */
export function registerFallbackPostingTarget(target: PostingTarget): () => void {
  fallbackTargets.push(target);
  return () => {
    const index = fallbackTargets.lastIndexOf(target);
    if (index >= 0) fallbackTargets.splice(index, 1);
  };
}

/** The posting target of the current async flow, else the fallback, else `undefined`. */
export function currentPostingTarget(): PostingTarget | undefined {
  return postingContext.get() ?? fallbackTargets[fallbackTargets.length - 1];
}

/**
 * Whether the settings let events of `severity` (when given) be posted: posting enabled, and
 * the severity at or above the posting level. Ask first to skip building those that are not.
 */
export function isPosted(target: PostingTarget, severity?: LogLevelSetting): boolean {
  const posting = target.settings.posting;
  if (!posting.enabled) return false;
  return severity === undefined || severityRank(severity) >= severityRank(posting.level);
}

/**
 * Queue an event if the settings allow it: posting enabled, `severity` (when given) at or above
 * the posting level, and the object not an Event itself. Returns whether it was queued.
 */
export function enqueueEvent(
  target: PostingTarget,
  request: K8sEventRequest,
  severity?: LogLevelSetting,
): boolean {
  if (!isPosted(target, severity) || isEventReference(request.ref)) return false;
  // Cut long messages now, so that a queued request holds at most 1024 characters of text.
  const message = cutEventMessage(request.message);
  target.queue.push(message === request.message ? request : { ...request, message });
  return true;
}
