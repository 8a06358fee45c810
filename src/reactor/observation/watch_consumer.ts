/**
 * Consuming one watch: its items passed on one at a time, with back-pressure (the next item
 * stays unread until the feed has taken this one), its stream closed while the objects'
 * watches are paused and opened again on resumption. The watch itself recovers from its
 * failures (`client/watch_recovery.ts`): this only consumes, and says how to report them.
 *
 * @module
 */

import { describeError, summarizeError } from "../../structs/log_formats.ts";
import type { BackoffOptions } from "../../structs/backoffs.ts";
import type { Clock } from "../../structs/clock.ts";
import type { Logger } from "../../structs/loggers.ts";
import { Resource } from "../../structs/resources.ts";
import { APIForbiddenError } from "../../client/api_errors.ts";
import type { WatchItem, WatchRecoveryOptions } from "../../client/watch.ts";
import type { WatchSelection } from "../../intents/watch_selections.ts";
import type { ObservationClient, WatchedDimension } from "./observation_client.ts";

/** What a {@link WatchConsumer} is made of. */
export interface WatchConsumerOptions {
  /** Watching. */
  readonly client: ObservationClient;
  /** The pauses of a failing watch. */
  readonly backoff: BackoffOptions;
  /** The clock of the pauses. */
  readonly clock: Clock;
  /** Where failures are reported. */
  readonly logger: Logger;
}

/** Consumes watches for the observer; see the module docs. */
export class WatchConsumer {
  readonly #client: ObservationClient;
  readonly #backoff: BackoffOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  /** Whether the objects' watches are paused now. */
  readonly pause: PauseState = new PauseState();

  /** A consumer over the client. */
  constructor(options: WatchConsumerOptions) {
    this.#client = options.client;
    this.#backoff = options.backoff;
    this.#clock = options.clock;
    this.#logger = options.logger;
  }

  /**
   * Run one watch until the signal aborts, passing its items on. The watch recovers from
   * its failures itself (reporting them through this observer's logger, pausing along its
   * backoff); `failed` hears of each, and ends the watch by returning true.
   */
  async consume(
    target: Resource | (WatchedDimension & { readonly selection?: WatchSelection }),
    signal: AbortSignal,
    onItem: (item: WatchItem) => Promise<void> | undefined | void,
    failed?: (error: unknown) => boolean,
  ): Promise<void> {
    // Only the objects' watches pause; namespaces and CRDs are always observed.
    const pausable = !(target instanceof Resource);
    const resource = target instanceof Resource ? target : target.resource;
    const namespace = target instanceof Resource ? undefined : target.namespace;
    const what = describeDimension({ resource, namespace });
    let ending: unknown = undefined;
    const recovery: WatchRecoveryOptions = {
      backoff: this.#backoff,
      clock: this.#clock,
      logger: this.#logger,
      describeFailure: (error) =>
        error instanceof APIForbiddenError
          ? forbiddenWatch(resource, namespace, error)
          : summarizeError(error),
      onFailure: (error) => {
        const stop = failed?.(error) ?? false;
        if (stop) ending = error;
        return stop;
      },
    };
    while (!signal.aborted) {
      if (pausable && this.pause.paused) {
        await untilAborted(this.pause.resumed, signal);
        continue;
      }
      // A pausable watch's stream ends when a pause begins; it is opened again on resumption.
      const streamSignal = pausable ? AbortSignal.any([signal, this.pause.signal]) : signal;
      try {
        const selection = target instanceof Resource ? undefined : target.selection;
        const items = this.#client.watch(resource, namespace, streamSignal, {
          parts: pausable,
          recovery,
          labelSelector: selection?.labelSelector,
          fieldSelector: selection?.fieldSelector,
        });
        const iterator = items[Symbol.asyncIterator]();
        let pending: Promise<void> | undefined;
        // Each item is passed on in this callback, not held in the loop: the last one (e.g.
        // a full listing) must not stay in memory while the next is awaited. Made once per
        // stream, not once per item.
        const take = (step: IteratorResult<WatchItem>): boolean => {
          if (step.done || streamSignal.aborted) return true;
          pending = onItem(step.value) ?? undefined;
          return false;
        };
        try {
          for (;;) {
            if (await iterator.next().then(take)) break;
            // Back-pressure: the next item stays unread until the feed has taken this one.
            const feeding = pending;
            pending = undefined;
            if (feeding !== undefined && !await this.#waitForFeed(feeding, streamSignal, what)) {
              break;
            }
          }
        } finally {
          // Close the stream (a no-op if it has ended); failing to close it is no news.
          await iterator.return?.().catch(() => {});
        }
        if (streamSignal.aborted) continue;
        this.#logger.error(`Watching ${what} ended by itself; it is not watched any more.`);
      } catch (error) {
        if (streamSignal.aborted) continue;
        // Ended by `failed` (it said why); anything else broke the watch's promise to go on.
        if (error !== ending) {
          this.#logger.error(`Watching ${what} failed for good: ${describeError(error)}`);
        }
      }
      return;
    }
  }

  /**
   * Wait for the feed's promise unless the stream's signal aborts first; true if it
   * settled first. A rejection is reported, not thrown: the watch itself is fine.
   */
  #waitForFeed(pending: Promise<void>, signal: AbortSignal, what: string): Promise<boolean> {
    const settled = pending.catch((error) => {
      this.#logger.error(`Feeding an event of ${what} failed: ${describeError(error)}`);
    });
    return untilAborted(settled, signal);
  }
}

/** Whether the objects' watches are paused, and the signals to wait for either state. */
export class PauseState {
  paused = false;
  #controller = new AbortController();
  #resumed = signalled();

  /** Aborted when a pause begins (a fresh one after every resumption). */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Resolves when the current pause ends. */
  get resumed(): Promise<void> {
    return this.#resumed.promise;
  }

  pause(): boolean {
    if (this.paused) return false;
    this.paused = true;
    this.#controller.abort();
    return true;
  }

  resume(): boolean {
    if (!this.paused) return false;
    this.paused = false;
    this.#controller = new AbortController();
    this.#resumed.resolve();
    this.#resumed = signalled();
    return true;
  }
}

/** How messages name a watch: `pods in ns`, `crds cluster-wide`. */
export function describeDimension(dimension: WatchedDimension): string {
  return dimension.namespace === undefined
    ? `${dimension.resource} cluster-wide`
    : `${dimension.resource} in ${dimension.namespace}`;
}

/** A promise with its resolver at hand. */
export function signalled(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Wait for a promise unless the signal aborts first; true if the promise settled first. */
export async function untilAborted(
  promise: Promise<unknown>,
  signal: AbortSignal,
): Promise<boolean> {
  if (signal.aborted) return false;
  let onAbort!: () => void;
  const aborted = new Promise<false>((resolve) => {
    onAbort = () => resolve(false);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([promise.then(() => true), aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/**
 * A refused list or watch, as the operator's user reads it: what it may not do, where,
 * and the RBAC rule that grants it (the server's own words in brackets).
 */
function forbiddenWatch(
  resource: Resource,
  namespace: string | undefined,
  error: APIForbiddenError,
): string {
  const where = namespace === undefined ? "cluster-wide" : `in the namespace ${namespace}`;
  const role = namespace === undefined ? "ClusterRole" : `Role in ${namespace}`;
  const rule = `{ apiGroups: ["${resource.group}"], resources: ["${resource.plural}"], ` +
    `verbs: ["list", "watch", "patch"] }`;
  return `no permission to list and watch ${resource.plural} ${where} (${error.message}); ` +
    `grant the operator's service account a ${role} with the rule ${rule}`;
}
