/**
 * Observation: which resources and namespaces are served right now, and one watch per
 * served (resource, namespace) — or per resource, cluster-wide — feeding the queueing.
 *
 * - Resources come from discovery, narrowed by a selection callback (the registry's
 *   selectors). CustomResourceDefinitions are watched: when one is created, changed or
 *   deleted, discovery runs again (once for a burst of changes) and watches start or
 *   stop accordingly.
 * - Namespaces given by name only are served as they are. With patterns, namespaces come
 *   from watching the cluster's namespaces and matching them against the scope's
 *   patterns; they start and stop being served as they appear and disappear. A
 *   namespace being deleted is still served until it is gone, so that its objects can be
 *   finalised. Without the permission to list namespaces (403), the literal names among
 *   the patterns are served as they are.
 * - Cluster-scoped resources are watched once, cluster-wide, whatever the namespaces.
 * - Each watch feeds every event, and every listed object as the listing's parts (pages,
 *   or batches of a streamed listing) arrive — on re-listings only those that changed —
 *   and once the listing is complete, a `DELETED` for every object it knew that the
 *   listing no longer has: the deletions missed while the watch was broken.
 * - For that, a watch remembers of each object only its resourceVersion and identity
 *   (name, namespace, uid), and a missed deletion carries a minimal body made of them.
 *   Resources for which {@link ObserverOptions.keepsLastStates} says so remember each
 *   object's last full state instead (without its managed fields), and a missed deletion
 *   carries that state.
 * - The feed may push back: while the promise it returns is pending, the watch takes no
 *   further item from its stream, so unread events wait in the connection or on the server
 *   rather than in memory — within a listing, for `settings.watching.listPatience` seconds
 *   only ({@link ObserverOptions.watching}).
 *
 * @module
 */

import type { ObjectEvent, RawBody, RawMeta } from "../structs/bodies.ts";
import { describeError, summarizeError } from "../structs/log_formats.ts";
import { Resource } from "../structs/resources.ts";
import type { ApiClient } from "../client/api.ts";
import { Discovery } from "../client/discovery.ts";
import { APIForbiddenError } from "../client/api_errors.ts";
import { type WatchItem, watchObjects, type WatchRecoveryOptions } from "../client/watch.ts";
import { type Clock, realClock, sleep } from "../structs/clock.ts";
import { Backoff, type BackoffOptions } from "../structs/backoffs.ts";
import { FailureStreak } from "../structs/failure_streaks.ts";
import type { Logger } from "../structs/loggers.ts";
import { reactorLogger } from "./default_logger.ts";
import {
  isServedNamespace,
  literalNamespaces,
  needsNamespaceWatching,
  type Scope,
} from "../structs/namespace_scopes.ts";
import { objectKey } from "../structs/identities.ts";

/** `settings.watching.listPatience` when no settings are given. */
const DEFAULT_LIST_PATIENCE = 120;

/** Core v1 namespaces, watched to know which namespaces exist. */
export const NAMESPACES: Resource = new Resource({
  group: "",
  version: "v1",
  plural: "namespaces",
  kind: "Namespace",
  singular: "namespace",
  namespaced: false,
  verbs: ["get", "list", "watch"],
});

/** CustomResourceDefinitions, watched to notice resources appearing and disappearing. */
export const CUSTOM_RESOURCE_DEFINITIONS: Resource = new Resource({
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  kind: "CustomResourceDefinition",
  singular: "customresourcedefinition",
  namespaced: false,
  verbs: ["get", "list", "watch"],
});

/** What observation needs from the API: discovery and continuous watching. */
export interface ObservationClient {
  /**
   * The resources the cluster serves. `fresh` asks to bypass any cache (it is set when
   * CRDs have changed since the last call).
   */
  discover(options: { fresh: boolean; signal: AbortSignal }): Promise<readonly Resource[]>;
  /**
   * Watch a resource (in one namespace, or cluster-wide when `undefined`) until the signal
   * aborts: a `LISTED` item first and after every re-listing, live events in between.
   * With `parts`, a listing may come in `LISTING` parts before its `LISTED` item, as it
   * arrives (the objects' watches ask for that; namespaces and CRDs take whole listings).
   * The watch recovers from failures itself — reports them, pauses, lists again — as
   * `recovery` says; it ends early only with a failure for which `recovery.onFailure`
   * returned true, thrown.
   */
  watch(
    resource: Resource,
    namespace: string | undefined,
    signal: AbortSignal,
    parts?: boolean,
    recovery?: WatchRecoveryOptions,
  ): AsyncIterable<WatchItem>;
}

/** The observation client backed by the framework's API client and discovery. */
export function observationClient(api: ApiClient, discovery?: Discovery): ObservationClient {
  const cache = discovery ?? new Discovery(api);
  return {
    discover: ({ fresh, signal }) => {
      if (fresh) cache.refresh();
      return cache.resources(signal);
    },
    watch: (resource, namespace, signal, parts, recovery) =>
      watchObjects(api, resource, {
        ...recovery,
        namespace,
        signal,
        listParts: parts,
        persistent: true,
      }),
  };
}

/** One watch: a resource in a namespace, or cluster-wide (`namespace` undefined). */
export interface WatchedDimension {
  /** The watched resource. */
  readonly resource: Resource;
  /** The namespace, or `undefined` for a cluster-wide watch. */
  readonly namespace: string | undefined;
}

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
  readonly feed: (resource: Resource, event: ObjectEvent) => void | Promise<void>;
  /**
   * Whether a resource's watches keep the last full state of every object (without its
   * managed fields), so that a deletion missed while a watch was broken (noticed when a
   * re-listing no longer has the object) is fed with the object's last known body.
   *
   * Otherwise (and when this option is absent), only each object's resourceVersion, name,
   * namespace and uid are kept — some tens of bytes per object instead of kilobytes — and
   * such a deletion is fed with a minimal body:
   * `{ apiVersion, kind, metadata: { name, namespace, uid, resourceVersion } }`.
   *
   * Worth it only for resources whose handlers look at the body of a deleted object (event
   * or deletion handlers). Asked once per watch, when it starts.
   */
  readonly keepsLastStates?: (resource: Resource) => boolean;
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
  /** Called once per watch, when its first full listing has been fed. */
  readonly onListed?: (dimension: WatchedDimension) => void;
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

interface Watcher extends WatchedDimension {
  readonly id: string;
  readonly fingerprint: string;
  readonly controller: AbortController;
  /**
   * Every object seen and not deleted, by key, to detect missed deletions: its full last
   * state if `keeps`, otherwise only its version and identity.
   */
  readonly known: Map<string, RawBody | Trace>;
  /** Whether `known` holds full states (see {@link ObserverOptions.keepsLastStates}). */
  readonly keeps: boolean;
  /**
   * One copy of every namespace name in `known`, shared by the objects there instead of one
   * copy per object; pruned at every full listing.
   */
  readonly namespaceNames: Map<string, string>;
  /** The keys of the objects of the listing in progress, which comes in parts. */
  listing?: Set<string>;
  /** When the listing in progress began (the clock's seconds). */
  listingSince?: number;
  listed: boolean;
  done?: Promise<void>;
}

/**
 * What a watch remembers of an object when it does not keep full states: its version, and
 * what identifies it in a deletion notice. Its uid is not stored: it is the object's key
 * (see {@link objectKey}) whenever it has one. With its strings, about a hundred bytes per
 * object besides its key (measured), against kilobytes for a full state.
 */
class Trace {
  constructor(
    public resourceVersion: string | undefined,
    readonly name: string | undefined,
    readonly namespace: string | undefined,
  ) {}
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
  readonly #feed: ObserverOptions["feed"];
  readonly #keepsLastStates: ObserverOptions["keepsLastStates"];
  readonly #scanning: boolean;
  readonly #watching: { readonly listPatience: number } | undefined;
  readonly #onListed: ObserverOptions["onListed"];
  readonly #backoff: BackoffOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;

  /** Served resources by key. */
  #resources = new Map<string, Resource>();
  /** Served namespaces; `undefined` until known. Ignored for a cluster-wide scope. */
  #namespaces: Set<string> | undefined;
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
  /** Fingerprints of the CRDs seen, to ignore changes that do not affect discovery. */
  readonly #crds = new Map<string, string>();
  #rediscovery: { wanted: boolean; loop?: Promise<void> } = { wanted: false };
  readonly #pause = new PauseState();

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
    this.#feed = options.feed;
    this.#keepsLastStates = options.keepsLastStates;
    this.#scanning = !(options.scanning?.disabled ?? false);
    this.#watching = options.watching;
    this.#onListed = options.onListed;
    this.#clock = options.clock ?? realClock;
    this.#backoff = { clock: this.#clock, ...options.backoff };
    this.#logger = options.logger ?? reactorLogger();
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
    return [...this.#namespaces ?? []].sort();
  }

  /** The watches currently running. */
  get watchers(): WatchedDimension[] {
    return [...this.#watchers.values()].map(({ resource, namespace }) => ({ resource, namespace }));
  }

  /** Whether the objects' watches are paused (see {@link Observer.pause}). */
  get paused(): boolean {
    return this.#pause.paused;
  }

  /**
   * Close the objects' watches and feed nothing until {@link Observer.resume} (e.g. while a
   * peer with a higher priority serves the cluster). Namespaces and CRDs are still
   * observed. On resumption, each watch lists again and feeds only what changed meanwhile,
   * deletions included.
   */
  pause(): void {
    if (this.#pause.pause()) this.#logger.info("Pausing the watching of objects.");
  }

  /** Reopen the objects' watches after {@link Observer.pause}. */
  resume(): void {
    if (this.#pause.resume()) this.#logger.info("Resuming the watching of objects.");
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

  /** Observe until the signal aborts; see the class docs. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error("This observer is already running.");
    this.#running = true;
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) stop.abort();
    const background: Promise<void>[] = [];
    try {
      // The CRDs are listed before the discovery, so that no change falls between the two.
      const crdsListed = signalled();
      if (this.#scanning) background.push(this.#watchCrds(stop.signal, crdsListed.resolve));
      else crdsListed.resolve();

      const namespacesKnown = signalled();
      if (this.#scope.clusterwide) {
        namespacesKnown.resolve();
      } else if (!this.#scanning || !needsNamespaceWatching(this.#scope)) {
        // Names only (no patterns): served as they are, without the cluster-wide permission
        // to list namespaces (a namespace that does not exist has no objects to watch).
        this.#namespaces = new Set(literalNamespaces(this.#scope.namespaces));
        namespacesKnown.resolve();
      } else {
        background.push(this.#watchNamespaces(stop.signal, namespacesKnown.resolve));
      }

      if (!await untilAborted(crdsListed.promise, stop.signal)) return;
      const resources = await this.#discoverPatiently(false, stop.signal, true);
      if (resources === undefined) return;
      this.#applyResources(resources);
      if (!await untilAborted(namespacesKnown.promise, stop.signal)) return;

      this.#started = true;
      this.#reconcile();
      this.#initial = new Set(this.#watchers.keys());
      this.#readyResolve();
      this.#settleInitial(undefined);
      await untilAborted(new Promise<void>(() => {}), stop.signal);
    } finally {
      stop.abort();
      signal.removeEventListener("abort", onAbort);
      this.#started = false;
      for (const watcher of [...this.#watchers.values()]) void this.#stopWatcher(watcher);
      await Promise.all([...background, ...this.#retiring, this.#rediscovery.loop]);
      this.#running = false;
    }
  }

  /**
   * Discover, retrying failures along the retry delays. The initial discovery (`strict`)
   * fails at once instead: the client has already retried what can be retried, and
   * without it there is nothing to serve.
   */
  async #discoverPatiently(
    fresh: boolean,
    signal: AbortSignal,
    strict: boolean,
  ): Promise<readonly Resource[] | undefined> {
    const delays = new Backoff(this.#backoff);
    const streak = new FailureStreak({
      logger: this.#logger,
      what: "Discovery",
      clock: this.#clock,
    });
    for (;;) {
      try {
        const resources = await this.#client.discover({ fresh, signal });
        streak.succeeded();
        return resources;
      } catch (error) {
        if (signal.aborted) return undefined;
        if (strict) throw error;
        const delay = delays.next();
        streak.failed({ reason: summarizeError(error), retryIn: delay });
        await sleep(delay, signal, this.#clock);
        if (signal.aborted) return undefined;
      }
    }
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
        : [...this.#namespaces ?? []];
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
    const watcher: Watcher = {
      id,
      resource: want.resource,
      namespace: want.namespace,
      fingerprint: want.fingerprint,
      controller: new AbortController(),
      known: new Map(),
      keeps: this.#keepsLastStates?.(want.resource) ?? false,
      namespaceNames: new Map(),
      listed: false,
    };
    this.#watchers.set(id, watcher);
    this.#logger.debug(`Watching ${describeDimension(watcher)}.`);
    watcher.done = this.#consume(
      watcher,
      watcher.controller.signal,
      (item) => this.#onObjectItem(watcher, item),
      () => {
        // A failing watch is retried, but must not hold the readiness meanwhile.
        this.#settleInitial(watcher);
        return false;
      },
    );
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
      this.#logger.debug(`Stopping the watch of ${describeDimension(watcher)}.`);
      const done = watcher.done ?? Promise.resolve();
      this.#retiring.add(done);
      void done.finally(() => this.#retiring.delete(done));
    }
    return watcher.done ?? Promise.resolve();
  }

  /**
   * Feed a watch's item; return the last promise the feed returned, to wait for before the
   * next item.
   */
  #onObjectItem(watcher: Watcher, item: WatchItem): Promise<void> | undefined {
    const { resource, known } = watcher;
    if (item.type !== "LISTED" && item.type !== "LISTING") {
      const key = objectKey(item.object);
      if (item.type === "DELETED") known.delete(key);
      else this.#remember(watcher, key, item.object);
      return promised(this.#feed(resource, { type: item.type, object: item.object }));
    }
    // A listing comes whole, or in parts: the objects of each part are fed as it arrives,
    // and the keys noted, so that the last part can tell which known objects are gone.
    if (!item.continued || watcher.listing === undefined) {
      watcher.listing = new Set();
      watcher.listingSince = this.#clock.now();
    }
    const listed = watcher.listing;
    let last: Promise<void> | undefined;
    for (const object of item.objects) {
      const key = objectKey(object);
      listed.add(key);
      // Objects already fed in this very state (on re-listings, or in the parts of a listing
      // that broke off and began anew) are not fed again.
      const unchanged = this.#remember(watcher, key, object);
      if (!unchanged) last = promised(this.#feed(resource, { type: null, object })) ?? last;
    }
    if (item.type === "LISTING") {
      // Back-pressure within a listing only for so long: a continuation expires and a
      // server's watch ends (timeoutSeconds) while a listing is held, so a listing that has
      // taken longer is fed at once from then on; the feed's queues hold the rest.
      const patience = this.#watching?.listPatience ?? DEFAULT_LIST_PATIENCE;
      return this.#clock.now() - (watcher.listingSince ?? 0) < patience ? last : undefined;
    }
    watcher.listing = undefined;
    watcher.listingSince = undefined;
    const first = !watcher.listed;
    for (const [key, state] of known) {
      if (!listed.has(key)) {
        known.delete(key);
        const object = state instanceof Trace ? deletionNotice(resource, key, state) : state;
        last = promised(this.#feed(resource, { type: "DELETED", object })) ?? last;
      }
    }
    if (!watcher.keeps) {
      // Forget the namespaces that no known object is in any more (e.g. deleted ones).
      const names = watcher.namespaceNames;
      names.clear();
      for (const trace of known.values()) {
        if (trace instanceof Trace && trace.namespace !== undefined) {
          names.set(trace.namespace, trace.namespace);
        }
      }
    }
    if (first) {
      watcher.listed = true;
      this.#onListed?.({ resource, namespace: watcher.namespace });
      this.#settleInitial(watcher);
    }
    return last;
  }

  /**
   * Remember an object's current state as the watch keeps it; true if the watch already
   * knew it in this very version.
   */
  #remember(watcher: Watcher, key: string, object: RawBody): boolean {
    const meta = object.metadata;
    const version = meta?.resourceVersion;
    const previous = watcher.known.get(key);
    if (watcher.keeps) {
      watcher.known.set(key, remembered(object));
      return previous !== undefined && !(previous instanceof Trace) &&
        previous.metadata?.resourceVersion === version;
    }
    if (previous instanceof Trace) {
      // The same key is the same object: its name and namespace have not changed.
      const unchanged = previous.resourceVersion === version;
      previous.resourceVersion = version;
      return unchanged;
    }
    let namespace = meta?.namespace;
    if (namespace !== undefined) {
      const names = watcher.namespaceNames;
      const shared = names.get(namespace);
      if (shared === undefined) names.set(namespace, namespace);
      else namespace = shared;
    }
    watcher.known.set(key, new Trace(version, meta?.name, namespace));
    return false;
  }

  /** Watch the namespaces; `known` is called once the served namespaces are known. */
  async #watchNamespaces(signal: AbortSignal, known: () => void): Promise<void> {
    const scope = this.#scope;
    if (scope.clusterwide) return;
    const served = (body: RawBody) => {
      const name = body.metadata?.name;
      return name !== undefined && isServedNamespace(name, scope) ? name : undefined;
    };
    await this.#consume(NAMESPACES, signal, (item) => {
      if (item.type === "LISTING") return; // never asked for: namespaces are listed whole
      if (item.type === "LISTED") {
        this.#namespaces = new Set(item.objects.map(served).filter((n) => n !== undefined));
        known();
      } else {
        const name = served(item.object);
        if (name === undefined || this.#namespaces === undefined) return;
        if (item.type === "DELETED") this.#namespaces.delete(name);
        else this.#namespaces.add(name);
      }
      this.#reconcile();
    }, (error) => {
      if (!(error instanceof APIForbiddenError)) return false;
      if (this.#namespaces === undefined) {
        const literal = literalNamespaces(scope.namespaces);
        this.#logger.warning(
          `No permission to list namespaces; serving the namespaces named literally: ` +
            `${literal.length ? literal.join(", ") : "none"}.`,
        );
        this.#namespaces = new Set(literal);
        known();
        this.#reconcile();
      } else {
        this.#logger.warning(
          "No permission to watch namespaces any more; new or deleted namespaces will not " +
            "be noticed until the operator restarts.",
        );
      }
      return true;
    });
  }

  /** Watch the CRDs; `listed` is called after their first listing (or failure). */
  async #watchCrds(signal: AbortSignal, listed: () => void): Promise<void> {
    let first = true;
    await this.#consume(CUSTOM_RESOURCE_DEFINITIONS, signal, (item) => {
      if (item.type === "LISTING") return; // never asked for: CRDs are listed whole
      let changed = false;
      if (item.type === "LISTED") {
        const seen = new Set<string>();
        for (const crd of item.objects) {
          const key = objectKey(crd);
          seen.add(key);
          changed = this.#rememberCrd(key, crd) || changed;
        }
        for (const key of [...this.#crds.keys()]) {
          if (!seen.has(key)) changed = this.#crds.delete(key) || changed;
        }
      } else if (item.type === "DELETED") {
        changed = this.#crds.delete(objectKey(item.object));
      } else {
        changed = this.#rememberCrd(objectKey(item.object), item.object);
      }
      if (first) {
        // The initial discovery comes right after this first listing: nothing to redo.
        first = false;
        listed();
      } else if (changed) {
        this.#requestRediscovery(signal);
      }
    }, (error) => {
      if (first) {
        first = false;
        listed(); // do not hold the start; a later listing triggers a fresh discovery
      }
      if (!(error instanceof APIForbiddenError)) return false;
      this.#logger.warning(
        "No permission to watch CustomResourceDefinitions; resources created or deleted " +
          "later will not be noticed until the operator restarts.",
      );
      return true;
    });
  }

  /** Remember a CRD's discovery-relevant state; true if it differs from before. */
  #rememberCrd(key: string, crd: RawBody): boolean {
    const status = (crd.status ?? {}) as { acceptedNames?: unknown; conditions?: unknown };
    const conditions = Array.isArray(status.conditions)
      ? (status.conditions as { type?: unknown; status?: unknown }[])
        .map((c) => `${c.type}=${c.status}`).sort()
      : [];
    const fingerprint = JSON.stringify([crd.spec, status.acceptedNames, conditions]);
    if (this.#crds.get(key) === fingerprint) return false;
    this.#crds.set(key, fingerprint);
    return true;
  }

  /** Discover again soon; requests made while a discovery runs lead to one more run. */
  #requestRediscovery(signal: AbortSignal): void {
    this.#rediscovery.wanted = true;
    if (this.#rediscovery.loop !== undefined) return;
    this.#rediscovery.loop = (async () => {
      try {
        while (this.#rediscovery.wanted && !signal.aborted) {
          this.#rediscovery.wanted = false;
          const resources = await this.#discoverPatiently(true, signal, false);
          if (resources === undefined || signal.aborted) return;
          try {
            this.#applyResources(resources);
          } catch (error) {
            // A failing selection must not end the observation; the next change retries it.
            this.#logger.error(`Selecting the resources to serve failed: ${describeError(error)}`);
          }
        }
      } finally {
        this.#rediscovery.loop = undefined;
      }
    })();
  }

  /**
   * Run one watch until the signal aborts, passing its items on. The watch recovers from
   * its failures itself (reporting them through this observer's logger, pausing along its
   * backoff); `failed` hears of each, and ends the watch by returning true.
   */
  async #consume(
    target: Resource | Watcher,
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
      if (pausable && this.#pause.paused) {
        await untilAborted(this.#pause.resumed, signal);
        continue;
      }
      // A pausable watch's stream ends when a pause begins; it is opened again on resumption.
      const streamSignal = pausable ? AbortSignal.any([signal, this.#pause.signal]) : signal;
      try {
        const items = this.#client.watch(resource, namespace, streamSignal, pausable, recovery);
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
class PauseState {
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

/** A sequence of pauses that repeats its last one and can start over. */

/**
 * The state kept for a possible deletion notice: the object without its managed fields,
 * which are often most of its size and no business of a deletion handler.
 */
function remembered(object: RawBody): RawBody {
  const meta = object.metadata;
  if (meta?.managedFields === undefined) return object;
  const { managedFields: _, ...rest } = meta;
  return { ...object, metadata: rest };
}

/**
 * The body fed for a deletion missed in a gap when only a {@link Trace} of the object is
 * known: its type and identity, and its last known version.
 */
function deletionNotice(resource: Resource, key: string, trace: Trace): RawBody {
  const { name, namespace, resourceVersion } = trace;
  // Without a uid, the key is `namespace/name` (see objectKey); otherwise it is the uid.
  const uid = key === `${namespace ?? ""}/${name ?? ""}` ? undefined : key;
  const metadata: RawMeta = {};
  if (name !== undefined) metadata.name = name;
  if (namespace !== undefined) metadata.namespace = namespace;
  if (uid !== undefined) metadata.uid = uid;
  if (resourceVersion !== undefined) metadata.resourceVersion = resourceVersion;
  return { apiVersion: resource.apiVersion, kind: resource.kind, metadata };
}

/** What a feed returned, if it is a promise to wait for. */
function promised(result: void | Promise<void>): Promise<void> | undefined {
  return result instanceof Promise ? result : undefined;
}

function watcherId(resource: Resource, namespace: string | undefined): string {
  return `${resource.key}\u0000${namespace ?? ""}`;
}

function describeDimension(dimension: WatchedDimension): string {
  return dimension.namespace === undefined
    ? `${dimension.resource} cluster-wide`
    : `${dimension.resource} in ${dimension.namespace}`;
}

/** A promise with its resolver at hand. */
function signalled(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Wait for a promise unless the signal aborts first; true if the promise settled first. */
async function untilAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<boolean> {
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
