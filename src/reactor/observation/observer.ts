/**
 * Observation: which resources and namespaces are served right now, and one watch per
 * served (resource, namespace) -- or per resource, cluster-wide -- feeding the queueing.
 *
 * - Resources come from discovery, narrowed by a selection callback (the registry's
 *   selectors). CustomResourceDefinitions are watched: when one is created, changed or
 *   deleted, discovery runs again (once for a burst of changes) and watches start or
 *   stop accordingly. At the start, the first discovery and the CRDs' listing run at once
 *   (one round trip less): a CRD of the listing that the discovery did not show (of a
 *   group it asks), made between the two, leads to another discovery; so does a watch that finds its resource
 *   gone (404), as one deleted between the two would be.
 * - Namespaces given by name only are served as they are. With patterns, namespaces come
 *   from watching the cluster's namespaces and matching them against the scope's
 *   patterns; they start and stop being served as they appear and disappear. A
 *   namespace being deleted is still served until it is gone, so that its objects can be
 *   finalised. Without the permission to list namespaces (403), the literal names among
 *   the patterns are served as they are.
 * - Cluster-scoped resources are watched once, cluster-wide, whatever the namespaces.
 * - Each watch feeds every event, and every listed object as the listing's parts (pages,
 *   or batches of a streamed listing) arrive -- on re-listings only those that changed --
 *   and once the listing is complete, a `DELETED` for every object it knew that the
 *   listing no longer has: the deletions missed while the watch was broken.
 * - For that, the object table ({@link ObserverOptions.table}) keeps of each watched
 *   object only its resourceVersion and identity (name, namespace, uid), and a missed
 *   deletion carries a minimal body made of them. Resources for which
 *   {@link ObserverOptions.keepsLastStates} says so keep each object's last full state too
 *   (without its managed fields), and a missed deletion carries that state. A watch that
 *   stops knows its objects no more: the next one tells of them all again.
 * - The feed may push back: while the promise it returns is pending, the watch takes no
 *   further item from its stream, so unread events wait in the connection or on the server
 *   rather than in memory -- within a listing, for `settings.watching.listPatience` seconds
 *   only ({@link ObserverOptions.watching}).
 *
 * @module
 */

import type { ObservedEvent, RawBody } from "../../structs/bodies.ts";
import { describeError, summarizeError } from "../../structs/log_formats.ts";
import type { Resource } from "../../structs/resources.ts";
import { type Clock, realClock, sleep } from "../../structs/clock.ts";
import { Backoff, type BackoffOptions } from "../../structs/backoffs.ts";
import { FailureStreak } from "../../structs/failure_streaks.ts";
import type { Logger } from "../../structs/loggers.ts";
import {
  literalNamespaces,
  needsNamespaceWatching,
  type Scope,
} from "../../structs/namespace_scopes.ts";
import { reactorLogger } from "../default_logger.ts";
import type { WatchSelection } from "../../intents/watch_selections.ts";
import type { ObservationClient, WatchedDimension } from "./observation_client.ts";
import type { ObjectVersion } from "../../client/watch.ts";
import { type Watcher, watcherId, WatchFeeder } from "./object_watches.ts";
import { Scanning } from "./scanning.ts";
import { ObjectTable } from "../objects/object_table.ts";
import type { ObjectEntry } from "../objects/object_entries.ts";
import {
  describeDimension,
  signalled,
  untilAborted,
  WatchConsumer,
  type WatchConsumerOptions,
} from "./watch_consumer.ts";
import { APINotFoundError } from "../../client/api_errors.ts";

/** What an {@link Observer} is made of. */
export interface ObserverOptions {
  /** Discovery and watching. */
  readonly client: ObservationClient;
  /** Where to look for objects. */
  readonly scope: Scope;
  /** Which of the discovered resources to serve (e.g. those the registry's handlers select). */
  readonly select: (resources: readonly Resource[]) => readonly Resource[];
  /**
   * Receives the events of all served objects (e.g. `multiplexer.push`).
   *
   * It may return a promise to push back: until it settles, the watch that fed the event
   * takes no further item from its stream (the events wait in the connection or on the
   * server, not in memory). For a full listing, all listed objects and the deletions
   * missed in the gap are fed first, then the last promise returned is waited for. The
   * wait ends early when the watch is paused or stopped. A rejection is logged and the
   * watch goes on. Namespaces and CRDs are watched separately and never wait for it.
   */
  readonly feed: (resource: Resource, event: ObservedEvent) => void | Promise<void>;
  /**
   * Whether the queueing takes a live `MODIFIED` state of a known object from its watch
   * event's text, unparsed (e.g. `Intake.takes`): passed by (our own last write's, which the
   * object's worker waits for with nothing to do) or queued for the object's worker, to be
   * parsed if it is processed. Every state is parsed and fed if it is not given.
   */
  readonly takes?: (entry: ObjectEntry, object: ObjectVersion, text: string) => boolean;
  /**
   * Whether a resource's watches keep the last full state of every object (without its
   * managed fields), so that a deletion missed while a watch was broken (noticed when a
   * re-listing no longer has the object) is fed with the object's last known body.
   *
   * Otherwise (and when this option is absent), only each object's resourceVersion, name,
   * namespace and uid are kept -- some tens of bytes per object instead of kilobytes -- and
   * such a deletion is fed with a minimal body:
   * `{ apiVersion, kind, metadata: { name, namespace, uid, resourceVersion } }`.
   *
   * Worth it only for resources whose handlers look at the body of a deleted object (event
   * or deletion handlers). Asked once per watch, when it starts.
   */
  readonly keepsLastStates?: (resource: Resource) => boolean;
  /**
   * The label and field selectors of a resource's watches, if any (asked once per watch,
   * when it starts). Every deletion on such a watch is fed as a possible leaving of them
   * (a `LeavingEvent`), to be read to tell: the server reports an object that leaves them
   * as deleted (with its previous content, which still matches), and a re-listing no longer
   * has it.
   */
  readonly selection?: (resource: Resource) => WatchSelection | undefined;
  /**
   * With `disabled`, neither namespaces nor CRDs are watched: resources are discovered
   * once, and only the literal namespace names are served (`settings.scanning` fits).
   */
  readonly scanning?: { readonly disabled: boolean };
  /**
   * `listPatience`: seconds for which a listing's parts wait for the feed's back-pressure;
   * afterwards they are fed as they come (120 by default; read at every listing part).
   */
  readonly watching?: { readonly listPatience: number };
  /**
   * Where what the watches know of their objects is kept (the operator's object table); a
   * table of the observer's own if none is given.
   */
  readonly table?: ObjectTable;
  /** Called once per watch, when its first full listing has been fed. */
  readonly onListed?: (dimension: WatchedDimension) => void;
  /**
   * Whether the operator's writes are told to it ({@link Observer.told}): its watches then
   * remember the deletions since their last listing, so that an answer that comes after its
   * object's deletion is not taken for its state.
   */
  readonly toldOfWrites?: boolean;
  /**
   * The pauses before a failed watch or discovery is tried again: capped exponential
   * backoff with jitter (client-go's reflector defaults unless given).
   */
  readonly backoff?: BackoffOptions;
  /** Time source; the real clock by default. */
  readonly clock?: Clock;
  /** Where to report; the `kopf.reactor` logger by default. */
  readonly logger?: Logger;
}

/**
 * Keeps exactly one watch per served (resource, namespace) while it runs. Create it,
 * call {@link Observer.run} with a signal; it resolves after the signal aborted and all
 * watches have stopped (or rejects if the initial discovery fails).
 */
export class Observer {
  readonly #client: ObservationClient;
  readonly #scope: Scope;
  readonly #select: ObserverOptions["select"];
  readonly #keepsLastStates: ObserverOptions["keepsLastStates"];
  readonly #selection: ObserverOptions["selection"];
  readonly #scanning: boolean;
  readonly #onListed: ObserverOptions["onListed"];
  readonly #toldOfWrites: boolean;
  readonly #backoff: BackoffOptions;
  /** The delays between discoveries while one skips group-versions; none once complete. */
  #incompleteDelays: Backoff | undefined;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #consumer: WatchConsumer;
  /** The client, backoff, clock and logger of the watches and of the discoveries. */
  readonly #means: WatchConsumerOptions;
  readonly #feeder: WatchFeeder;
  readonly #table: ObjectTable;
  readonly #scan: Scanning;

  /** Served resources by key. */
  #resources = new Map<string, Resource>();
  readonly #watchers = new Map<string, Watcher>();
  /** Watches told to stop that have not finished yet. */
  readonly #retiring = new Set<Promise<void>>();
  /** Whether the watchers may be started (the initial state is known). */
  #started = false;
  #running = false;
  #readyResolve!: () => void;
  #listedResolve!: () => void;
  /** The initial watches whose first listing is still awaited; `undefined` before start. */
  #initial: Set<string> | undefined;
  #rediscovery: { wanted: boolean; loop?: Promise<void> } = { wanted: false };
  /** The current run's stop, for the discoveries its watches ask for. */
  #runSignal: AbortSignal | undefined;
  /** Fails the current run: a watch failed for good. */
  #failRun: ((error: unknown) => void) | undefined;

  /**
   * Resolves when the initial resources and namespaces are known and their watches are
   * started. It never rejects; if the run fails first, it stays pending.
   */
  readonly ready: Promise<void>;

  /**
   * Resolves after {@link Observer.ready}, once every watch started then has fed its first
   * full listing, has failed once, or has been stopped: objects created afterwards arrive
   * as watch events, not as part of an initial listing. Resources that appear later (e.g.
   * whose CRD is created later) do not hold it. It never rejects.
   */
  readonly listed: Promise<void>;

  /** Create an observer; nothing happens until {@link Observer.run}. */
  constructor(options: ObserverOptions) {
    this.#client = options.client;
    this.#scope = options.scope;
    this.#select = options.select;
    this.#keepsLastStates = options.keepsLastStates;
    this.#selection = options.selection;
    this.#scanning = !(options.scanning?.disabled ?? false);
    this.#onListed = options.onListed;
    this.#toldOfWrites = options.toldOfWrites ?? false;
    this.#clock = options.clock ?? realClock;
    this.#backoff = { clock: this.#clock, ...options.backoff };
    this.#logger = options.logger ?? reactorLogger();
    this.#means = {
      client: this.#client,
      backoff: this.#backoff,
      clock: this.#clock,
      logger: this.#logger,
    };
    this.#consumer = new WatchConsumer(this.#means);
    this.#table = options.table ?? new ObjectTable(undefined);
    this.#feeder = new WatchFeeder({
      table: this.#table,
      feed: options.feed,
      takes: options.takes,
      watching: options.watching,
      clock: this.#clock,
      onFirstListing: (watcher) => {
        this.#onListed?.({ resource: watcher.resource, namespace: watcher.namespace });
        this.#settleInitial(watcher);
      },
    });
    this.#scan = new Scanning(this.#consumer, this.#scope, this.#logger);
    this.ready = new Promise((resolve) => (this.#readyResolve = resolve));
    this.listed = new Promise((resolve) => (this.#listedResolve = resolve));
  }

  /** The served resources. */
  get resources(): Resource[] {
    return [...this.#resources.values()];
  }

  /** The served namespaces, sorted; `undefined` when serving the whole cluster. */
  get namespaces(): string[] | undefined {
    if (this.#scope.clusterwide) return undefined;
    return [...this.#scan.namespaces ?? []].sort();
  }

  /** The watches currently running. */
  get watchers(): WatchedDimension[] {
    return [...this.#watchers.values()].map(({ resource, namespace }) => ({ resource, namespace }));
  }

  /** Whether the objects' watches are paused (see {@link Observer.pause}). */
  get paused(): boolean {
    return this.#consumer.pause.paused;
  }

  /**
   * Close the objects' watches and feed nothing until {@link Observer.resume} (e.g. while a
   * peer with a higher priority serves the cluster). Namespaces and CRDs are still
   * observed. On resumption, each watch lists again and feeds only what changed meanwhile,
   * deletions included.
   */
  pause(): void {
    if (this.#consumer.pause.pause()) this.#logger.info("Pausing the watching of objects.");
  }

  /** Reopen the objects' watches after {@link Observer.pause}. */
  resume(): void {
    if (this.#consumer.pause.resume()) this.#logger.info("Resuming the watching of objects.");
  }

  /**
   * List every object again and feed them all, as at the start: e.g. when this replica
   * becomes the leader, since it only indexed the objects while on standby. Before the
   * watches have started, there is nothing to do (their first listing feeds everything).
   */
  refeed(): void {
    if (!this.#started) return;
    for (const watcher of [...this.#watchers.values()]) void this.#stopWatcher(watcher);
    this.#reconcile();
  }

  /**
   * Observe until the signal aborts; see the class docs. Rejects once a watch fails for good
   * (defects ended it again and again: `WatchDefectsError`), after every watch has stopped.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error("This observer is already running.");
    this.#running = true;
    const stop = new AbortController();
    this.#runSignal = stop.signal;
    let failure: { readonly error: unknown } | undefined;
    this.#failRun = (error) => {
      failure ??= { error };
      stop.abort();
    };
    const onAbort = () => stop.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) stop.abort();
    const background: Promise<void>[] = [];
    try {
      await this.#observe(stop.signal, background);
    } finally {
      stop.abort();
      signal.removeEventListener("abort", onAbort);
      this.#started = false;
      for (const watcher of [...this.#watchers.values()]) void this.#stopWatcher(watcher);
      await Promise.all([...background, ...this.#retiring, this.#rediscovery.loop]);
      this.#failRun = undefined;
      this.#running = false;
    }
    if (failure !== undefined) throw failure.error;
  }

  /** The run's work until `stop` aborts; the scans' watches go to `background`. */
  async #observe(stop: AbortSignal, background: Promise<void>[]): Promise<void> {
    const failRun = (error: unknown) => this.#failRun?.(error);
    // The CRDs are watched from the start: a change after their listing discovers again.
    const crdsListed = signalled();
    if (this.#scanning) {
      background.push(
        this.#scan.watchCrds(stop, crdsListed.resolve, () => this.#requestRediscovery(stop))
          .catch(failRun),
      );
    } else crdsListed.resolve();

    const namespacesKnown = signalled();
    if (this.#scope.clusterwide) {
      namespacesKnown.resolve();
    } else if (!this.#scanning || !needsNamespaceWatching(this.#scope)) {
      // Names only (no patterns): served as they are, without the cluster-wide permission
      // to list namespaces (a namespace that does not exist has no objects to watch).
      this.#scan.namespaces = new Set(literalNamespaces(this.#scope.namespaces));
      namespacesKnown.resolve();
    } else {
      background.push(
        this.#scan.watchNamespaces(stop, namespacesKnown.resolve, () => this.#reconcile())
          .catch(failRun),
      );
    }

    // Neither the discovery nor the watches wait for the CRDs' listing: a cluster's CRDs,
    // schemas and all, can take long to list. A CRD made before the listing is in it and
    // may be missing from the discovery: it is discovered again once the listing is in
    // (below); one deleted meanwhile fails its watch (404), which discovers again too.
    const resources = await discoverPatiently(this.#means, false, stop, true);
    if (resources === undefined) return;
    this.#applyResources(resources);
    void crdsListed.promise.then(() => {
      if (!stop.aborted && this.#missedBy(resources)) this.#requestRediscovery(stop);
    });
    this.#completeLater(stop);
    if (!await untilAborted(namespacesKnown.promise, stop)) return;

    this.#started = true;
    this.#reconcile();
    this.#initial = new Set(this.#watchers.keys());
    this.#readyResolve();
    this.#settleInitial(undefined);
    await untilAborted(new Promise<void>(() => {}), stop);
  }

  /**
   * Whether the CRDs' first listing holds a resource that the initial discovery, run at once
   * with it, should have shown and did not: a CRD made between the two. Only what that
   * discovery asks counts (the groups the handlers name, when they all do): the other CRDs of
   * a cluster are not missed. The selection is not asked: it is told of every discovery, and
   * of nothing else.
   */
  #missedBy(discovered: readonly Resource[]): boolean {
    const missed = this.#scan.missedBy(discovered)
      .filter((resource) => this.#client.covers?.(resource) ?? true);
    if (missed.length === 0) return false;
    this.#logger.debug(`Discovering again for the CRDs made meanwhile: ${missed.join(", ")}.`);
    return true;
  }

  /** Serve the selected resources among those discovered; restart watches as needed. */
  #applyResources(discovered: readonly Resource[]): void {
    const watchable = this.#select(discovered).filter((resource) => {
      const ok = resource.verbs.length === 0 ||
        (resource.verbs.includes("list") && resource.verbs.includes("watch"));
      if (!ok) this.#logger.warning(`Not serving ${resource}: it cannot be listed and watched.`);
      return ok;
    });
    const next = new Map(watchable.map((resource) => [resource.key, resource]));
    for (const resource of next.values()) {
      if (!this.#resources.has(resource.key)) this.#logger.debug(`Serving ${resource}.`);
    }
    for (const resource of this.#resources.values()) {
      if (!next.has(resource.key)) this.#logger.info(`Not serving ${resource} any more.`);
    }
    this.#resources = next;
    this.#reconcile();
  }

  /** Start the missing watches and stop the redundant ones. */
  #reconcile(): void {
    if (!this.#started) return;
    const wanted = new Map<string, WatchedDimension & { fingerprint: string }>();
    for (const resource of this.#resources.values()) {
      const fingerprint = JSON.stringify(resource);
      const namespaces = this.#scope.clusterwide || !resource.namespaced
        ? [undefined]
        : [...this.#scan.namespaces ?? []];
      for (const namespace of namespaces) {
        wanted.set(watcherId(resource, namespace), { resource, namespace, fingerprint });
      }
    }
    for (const watcher of [...this.#watchers.values()]) {
      const want = wanted.get(watcher.id);
      if (want === undefined || want.fingerprint !== watcher.fingerprint) {
        void this.#stopWatcher(watcher);
      }
    }
    for (const [id, want] of wanted) {
      if (!this.#watchers.has(id)) this.#startWatcher(id, want);
    }
  }

  #startWatcher(id: string, want: WatchedDimension & { fingerprint: string }): void {
    const selection = this.#selection?.(want.resource);
    const watcher: Watcher = {
      id,
      resource: want.resource,
      namespace: want.namespace,
      fingerprint: want.fingerprint,
      controller: new AbortController(),
      keeps: this.#keepsLastStates?.(want.resource) ?? false,
      selection,
      source: selection?.metadataOnly ? this.#client.wholeSource(want.resource) : undefined,
      gone: this.#toldOfWrites ? new Map() : undefined,
      listed: false,
    };
    this.#watchers.set(id, watcher);
    this.#logger.debug(`Watching ${describeDimension(watcher)}${selecting(watcher.selection)}.`);
    watcher.done = this.#consumer.consume(
      watcher,
      watcher.controller.signal,
      (item) => this.#feeder.onItem(watcher, item),
      (error) => {
        // A failing watch is retried, but must not hold the readiness meanwhile. A resource
        // not found may be gone without its CRD's deletion seen: discovery tells.
        this.#settleInitial(watcher);
        const signal = this.#runSignal;
        if (error instanceof APINotFoundError && signal) this.#requestRediscovery(signal);
        return false;
      },
      (object, text) => this.#feeder.knows(watcher, object, text),
    ).catch((error) => this.#failRun?.(error));
  }

  /**
   * An object as a write of the operator's own answered it: fed as the watch
   * of its resource and namespace would feed it (see `WatchFeeder.told`). Nothing if no watch
   * of this observer shows its resource there, or the watches are paused.
   */
  told(resource: Resource, object: RawBody): void {
    if (!this.#started || this.#consumer.pause.paused) return;
    const namespace = object.metadata?.namespace;
    const watcher = this.#watchers.get(watcherId(resource, namespace)) ??
      this.#watchers.get(watcherId(resource, undefined));
    if (watcher === undefined) return;
    // The write is done whatever this does: a failure here is reported, never its caller's.
    const failed = (error: unknown) =>
      this.#logger.error(
        `Feeding an object written by the operator failed: ${describeError(error)}`,
      );
    try {
      this.#feeder.told(watcher, object)?.catch(failed);
    } catch (error) {
      failed(error);
    }
  }

  /** Note that an initial watch needs no more waiting for; resolve `listed` after the last. */
  #settleInitial(watcher: Watcher | undefined): void {
    const initial = this.#initial;
    if (initial === undefined) return;
    if (watcher !== undefined) initial.delete(watcher.id);
    if (initial.size === 0) {
      this.#initial = undefined;
      this.#listedResolve();
    }
  }

  #stopWatcher(watcher: Watcher): Promise<void> {
    if (this.#watchers.get(watcher.id) === watcher) this.#watchers.delete(watcher.id);
    this.#settleInitial(watcher);
    if (!watcher.controller.signal.aborted) {
      watcher.controller.abort();
      this.#table.unwatchAll(watcher.resource, watcher.namespace);
      this.#logger.debug(`Stopping the watch of ${describeDimension(watcher)}.`);
      const done = watcher.done ?? Promise.resolve();
      this.#retiring.add(done);
      void done.finally(() => this.#retiring.delete(done));
    }
    return watcher.done ?? Promise.resolve();
  }

  /**
   * After a discovery that skipped group-versions (a 429 or 5xx that outlasted its retry,
   * an aggregated API that is down), discover again along the backoffs, capped, until one
   * fetches them all: the resources they serve are otherwise missing for good.
   */
  #completeLater(signal: AbortSignal): void {
    if (!this.#client.incomplete?.()) {
      this.#incompleteDelays = undefined;
      return;
    }
    this.#incompleteDelays ??= new Backoff(this.#backoff);
    const delay = this.#incompleteDelays.next();
    void sleep(delay, signal, this.#clock).then((slept) => {
      if (slept) this.#requestRediscovery(signal);
    });
  }

  /** Discover again soon; requests made while a discovery runs lead to one more run. */
  #requestRediscovery(signal: AbortSignal): void {
    this.#rediscovery.wanted = true;
    if (this.#rediscovery.loop !== undefined) return;
    this.#rediscovery.loop = (async () => {
      try {
        while (this.#rediscovery.wanted && !signal.aborted) {
          this.#rediscovery.wanted = false;
          const resources = await discoverPatiently(this.#means, true, signal, false);
          if (resources === undefined || signal.aborted) return;
          try {
            this.#applyResources(resources);
          } catch (error) {
            // A failing selection must not end the observation; the next change retries it.
            this.#logger.error(`Selecting the resources to serve failed: ${describeError(error)}`);
          }
          this.#completeLater(signal);
        }
      } finally {
        this.#rediscovery.loop = undefined;
      }
    })();
  }
}

/** How the debug log tells a watch's selectors and why: ` with labelSelector=... (why)`. */
function selecting(selection: WatchSelection | undefined): string {
  if (selection === undefined) return "";
  const { labelSelector, fieldSelector, reason } = selection;
  const sent = [
    labelSelector === undefined ? "" : `labelSelector=${labelSelector}`,
    fieldSelector === undefined ? "" : `fieldSelector=${fieldSelector}`,
  ].filter(Boolean).join(" and ");
  return sent === "" ? ` without selectors (${reason})` : ` with ${sent} (${reason})`;
}

/**
 * Discover, retrying failures along the retry delays. The initial discovery (`strict`)
 * fails at once instead: the client has already retried what can be retried, and
 * without it there is nothing to serve.
 */
async function discoverPatiently(
  means: WatchConsumerOptions,
  fresh: boolean,
  signal: AbortSignal,
  strict: boolean,
): Promise<readonly Resource[] | undefined> {
  const { client, clock, logger } = means;
  const delays = new Backoff(means.backoff);
  const streak = new FailureStreak({ logger, what: "Discovery", clock });
  for (;;) {
    try {
      const resources = await client.discover({ fresh, signal });
      streak.succeeded();
      return resources;
    } catch (error) {
      if (signal.aborted) return undefined;
      if (strict) throw error;
      const delay = delays.next();
      streak.failed({ reason: summarizeError(error), retryIn: delay });
      await sleep(delay, signal, clock);
      if (signal.aborted) return undefined;
    }
  }
}
