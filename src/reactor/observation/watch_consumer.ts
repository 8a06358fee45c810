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
import { WatchRestarts } from "../../structs/watch_restarts.ts";
import type { Logger } from "../../structs/loggers.ts";
import { Resource } from "../../structs/resources.ts";
import { APIForbiddenError } from "../../client/api_errors.ts";
import type { ObjectVersion, WatchItem, WatchRecoveryOptions } from "../../client/watch.ts";
import type { WatchSelection } from "../../intents/watch_selections.ts";
import type { ObservationClient, WatchedDimension, WatchOptions } from "./observation_client.ts";

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
   * backoff); `failed` hears of each, and ends the watch by returning true. A watch that
   * ends otherwise -- its stream ending or throwing, which only a defect does -- is reported
   * and watched anew after a pause (the same backoff), so that no resource is left unserved.
   *
   * The objects' watches put live events first: once a listing is held by the feed's
   * back-pressure, a second watch begins from the version the objects were at before the
   * listing (asked for before it), and feeds the changes made meanwhile while the listing
   * waits; at the listing's end, that watch goes on alone. See the module docs.
   *
   * `knows` takes the live states that need no item, from their text before it is parsed
   * (see `WatchOptions.knows`).
   */
  async consume(
    target: Resource | (WatchedDimension & { readonly selection?: WatchSelection }),
    signal: AbortSignal,
    onItem: (item: WatchItem) => Promise<void> | undefined | void,
    failed?: (error: unknown) => boolean,
    knows?: (object: ObjectVersion, text: string) => boolean,
  ): Promise<void> {
    // Only the objects' watches pause; namespaces and CRDs are always observed.
    const pausable = !(target instanceof Resource);
    const resource = target instanceof Resource ? target : target.resource;
    const namespace = target instanceof Resource ? undefined : target.namespace;
    const selection = target instanceof Resource ? undefined : target.selection;
    const stream: StreamTarget = {
      resource,
      namespace,
      what: describeDimension({ resource, namespace }),
      options: {
        parts: pausable,
        recovery: this.#recovery(resource, namespace, failed),
        labelSelector: selection?.labelSelector,
        fieldSelector: selection?.fieldSelector,
        metadataOnly: selection?.metadataOnly,
        knows,
      },
      onItem,
    };
    /** What follows a defect that ends the watch: made on the first. */
    let restarts: WatchRestarts | undefined;
    while (!signal.aborted) {
      if (pausable && this.pause.paused) {
        await untilAborted(this.pause.resumed, signal);
        continue;
      }
      // A pausable watch's stream ends when a pause begins; it is opened again on resumption.
      const streamSignal = pausable ? AbortSignal.any([signal, this.pause.signal]) : signal;
      const since = pausable ? await this.#currentVersion(stream, streamSignal) : undefined;
      if (streamSignal.aborted) continue;
      const side = since === undefined
        ? undefined
        : new SideWatch((beside) =>
          this.#drain(stream, { ...stream.options, since }, streamSignal, undefined, beside)
        );
      let end = await this.#drain(stream, stream.options, streamSignal, side);
      if (end === "handed-over") end = await side!.done;
      if (end === "aborted") continue;
      // Ended by `failed`, which said why.
      const ending = stream.options.recovery.ending;
      if (ending !== undefined && end === ending) return;
      // Anything else broke the watch's promise to go on: a defect (see WatchRestarts).
      restarts ??= new WatchRestarts(`Watching ${stream.what}`, {
        backoff: this.#backoff,
        clock: this.#clock,
        logger: this.#logger,
      });
      if (!await restarts.after(signal, end === "ended" ? undefined : { error: end })) return;
    }
  }

  /** How the watch recovers and reports its failures; `failed` may end it. */
  #recovery(
    resource: Resource,
    namespace: string | undefined,
    failed: ((error: unknown) => boolean) | undefined,
  ): WatchRecoveryOptions & { ending?: unknown } {
    const recovery: WatchRecoveryOptions & { ending?: unknown } = {
      backoff: this.#backoff,
      clock: this.#clock,
      logger: this.#logger,
      describeFailure: (error) =>
        error instanceof APIForbiddenError
          ? forbiddenWatch(resource, namespace, error)
          : summarizeError(error),
      onFailure: (error) => {
        const stop = failed?.(error) ?? false;
        if (stop) recovery.ending = error;
        return stop;
      },
    };
    return recovery;
  }

  /** The version the objects are at, for a live watch beside the listing; none if unknown. */
  async #currentVersion(stream: StreamTarget, signal: AbortSignal): Promise<string | undefined> {
    const { resource, namespace, options } = stream;
    try {
      return await this.#client.currentVersion(resource, namespace, {
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        metadataOnly: options.metadataOnly,
        signal,
      });
    } catch (error) {
      if (!signal.aborted) {
        this.#logger.debug(
          `No version of ${stream.what} to watch from beside its listing: ${summarizeError(error)}`,
        );
      }
      return undefined;
    }
  }

  /**
   * Pass a stream's items on with back-pressure until it ends, the signal aborts, or -- with
   * a `side` watch -- the listing is held (the side watch starts) and then complete (the side
   * watch goes on alone: `handed-over`). A failure that ends the watch is returned.
   */
  async #drain(
    stream: StreamTarget,
    options: WatchOptions,
    signal: AbortSignal,
    side?: SideWatch,
    beside?: () => boolean,
  ): Promise<DrainEnd> {
    const { resource, namespace, onItem, what } = stream;
    let iterator: AsyncIterator<WatchItem> | undefined;
    try {
      iterator = this.#client.watch(resource, namespace, signal, options)[Symbol.asyncIterator]();
      let pending: Promise<void> | undefined;
      let listing = false;
      let stop = false;
      // Each item is passed on in this callback, not held in the loop: the last one (e.g.
      // a full listing) must not stay in memory while the next is awaited. Made once per
      // stream, not once per item.
      const take = (step: IteratorResult<WatchItem>): boolean => {
        if (step.done || signal.aborted) return true;
        const type = step.value.type;
        listing = type === "LISTING" || type === "LISTED";
        if (listing && beside?.()) return stop = true; // a side watch must not list meanwhile
        try {
          pending = onItem(step.value) ?? undefined;
        } catch (error) {
          // Reported as a failed feed is: one object's event lost, not the whole watch.
          pending = Promise.reject(error);
        }
        if (type === "LISTED") {
          if (side?.running) stop = true; // the side watch is ahead: it goes on alone
          side = undefined; // only beside the stream's first listing
        }
        return false;
      };
      for (;;) {
        if (await iterator.next().then(take)) break;
        if (stop) return "handed-over";
        // Back-pressure: the next item stays unread until the feed has taken this one.
        const feeding = pending;
        pending = undefined;
        if (feeding === undefined) continue;
        if (listing) side?.start(); // held: the changes made meanwhile are watched beside it
        if (!await this.#waitForFeed(feeding, signal, what)) break;
      }
      return signal.aborted ? "aborted" : stop ? "handed-over" : "ended";
    } catch (error) {
      return signal.aborted ? "aborted" : error;
    } finally {
      // Close the stream (a no-op if it has ended); failing to close it is no news.
      await iterator?.return?.().catch(() => {});
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

/** One watch's stream, as {@link WatchConsumer} consumes it. */
interface StreamTarget {
  readonly resource: Resource;
  readonly namespace: string | undefined;
  /** How messages name it. */
  readonly what: string;
  /** How it is asked for; the recovery remembers the failure that ended it, if any. */
  readonly options: WatchOptions & { readonly recovery: { ending?: unknown } };
  readonly onItem: (item: WatchItem) => Promise<void> | undefined | void;
}

/** How a stream's consumption ended: an error if a failure ended the watch. */
type DrainEnd = "ended" | "aborted" | "handed-over" | unknown;

/**
 * A live watch beside a held listing: from the version the objects were at before the
 * listing, so that it misses no change; started once the listing is held; alone once the
 * listing is complete (it ends itself if it would list while the listing runs).
 */
class SideWatch {
  /** Started, and not ended. */
  running = false;
  /** The listing beside it is complete: it is the watch now. */
  alone = false;
  #done: Promise<DrainEnd> | undefined;
  /** Drain its stream; `beside` tells whether the listing still runs beside it. */
  readonly #drain: (beside: () => boolean) => Promise<DrainEnd>;

  constructor(drain: (beside: () => boolean) => Promise<DrainEnd>) {
    this.#drain = drain;
  }

  /** Start it (once). */
  start(): void {
    if (this.#done !== undefined) return;
    this.running = true;
    this.#done = this.#drain(() => !this.alone).finally(() => (this.running = false));
  }

  /** It goes on alone; resolves as it ends. */
  get done(): Promise<DrainEnd> {
    this.alone = true;
    return this.#done ?? Promise.resolve("ended");
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
