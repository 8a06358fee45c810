/**
 * Peering: operators serving the same objects know about each other through a peering
 * object and make way for the one with the highest priority, as Kopf's operators do --
 * and with them, since the persisted format is Kopf's (`peer_records.ts`).
 *
 * Each operator refreshes its own record well before it expires (a JSON merge patch of
 * the object), watches the peering objects, and pauses while another live operator has a
 * higher priority -- or the same priority: then every one of them warns and pauses, since
 * neither can tell which one should serve. A mandatory peering (given by name) whose
 * object is absent also pauses the operator until the object exists. On exit, the
 * operator removes its own record, so that the next one takes over at once.
 *
 * @module
 */
import {
  isServedNamespace,
  literalNamespaces,
  needsNamespaceWatching,
  type Scope,
} from "../structs/namespace_scopes.ts";
import { Channel } from "../structs/channels.ts";
import type { JsonObject, RawBody } from "../structs/bodies.ts";
import { type Clock, realClock, sleep } from "../structs/clock.ts";
import { WatchRestarts } from "../structs/watch_restarts.ts";
import type { Resource } from "../structs/resources.ts";
import type { ApiClient } from "../client/api.ts";
import { APINotFoundError } from "../client/api_errors.ts";
import { watchObjects } from "../client/watch.ts";
import type { Logger } from "../structs/loggers.ts";
import type { PeeringSettings } from "../settings/cluster_settings.ts";
import {
  detectOwnIdentity,
  findPeeringResource,
  formatLastseen,
  judgePeers,
  keepAliveInterval,
  parsePeers,
  patchPeeringStatus,
  type Peer,
  type PeerRecord,
  recordLifetime,
} from "./peer_records.ts";
import { PeeringConfigurationError } from "./peering_errors.ts";

export { PeeringConfigurationError };
export { PEERING_GROUPS } from "./peer_records.ts";

/** Options of {@link Peering}. */
export interface PeeringOptions {
  /** The API client. */
  readonly api: ApiClient;
  /** The peering resource: `ClusterKopfPeering` or `KopfPeering`. */
  readonly resource: Resource;
  /**
   * For a namespaced peering resource: the namespaces to peer in, or the operator's scope
   * (its literal namespaces; with patterns, the peering objects are watched cluster-wide
   * and those in the served namespaces count). Ignored for the cluster-scoped resource.
   */
  readonly namespaces?: readonly string[] | Scope;
  /** The peering settings: name, priority, lifetime, mandatory, stealth (read when used). */
  readonly settings: PeeringSettings;
  /** This operator's identity; a new one (see {@link detectOwnIdentity}) if omitted. */
  readonly identity?: string;
  /** Where to report. */
  readonly logger: Logger;
  /** The clock of the records' times and of the waits; the real one by default. */
  readonly clock?: Clock;
  /**
   * The peering cannot go on: a watch of its objects failed for good (defects ended it again
   * and again, a `WatchDefectsError`). The operator stops with it; without this, that watch
   * just ends (its ERROR lines said so).
   */
  readonly fail?: (error: unknown) => void;
}

/** The pauses of a failing watch of the peering objects: short, as a peering must be known. */
const WATCH_BACKOFF = { initial: 1, cap: 10 };

/** How long the removal of the own record may take on exit, in seconds. */
const FAREWELL_TIMEOUT = 10;

/**
 * One operator's part in a peering: the watch of the peering objects (from
 * {@link Peering.start}), the keep-alives (from {@link Peering.engage}), and the removal
 * of the own record (in {@link Peering.stop}). {@link Peering.paused} tells whether the
 * operator must pause; {@link Peering.changes} announces every change.
 */
export class Peering {
  /** This operator's identity: the key of its record. */
  readonly identity: string;
  readonly #api: ApiClient;
  readonly #resource: Resource;
  readonly #settings: PeeringSettings;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #fail: ((error: unknown) => void) | undefined;
  /** Fixed namespaces (or `[undefined]` for the cluster-scoped object); else a filter. */
  readonly #fixed: readonly (string | undefined)[] | undefined;
  readonly #served: ((namespace: string) => boolean) | undefined;
  /** The statuses of the peering objects that exist, by namespace ("" when cluster-scoped). */
  readonly #objects = new Map<string, unknown>();
  readonly #cleaning = new Set<string>();
  readonly #stop = new AbortController();
  /** Aborts an in-flight keep-alive: only after it had its time to finish on exit. */
  readonly #keepAliveAbort = new AbortController();
  readonly #tasks: Promise<void>[] = [];
  readonly #changes = new Channel<boolean>();
  #unlisted = 0;
  #listedResolve!: () => void;
  #paused = false;
  #reasons = "";
  #cancelWakeup: (() => void) | undefined;
  #engaged = false;
  #stopped: Promise<void> | undefined;

  /** Resolves once every peering watch has listed its objects for the first time. */
  readonly listed: Promise<void>;

  /** Set up; nothing happens until {@link Peering.start}. */
  constructor(options: PeeringOptions) {
    this.#api = options.api;
    this.#resource = options.resource;
    this.#settings = options.settings;
    this.#logger = options.logger;
    this.#clock = options.clock ?? realClock;
    this.#fail = options.fail;
    this.identity = options.identity ?? detectOwnIdentity(this.#clock.wall());
    const namespaces = options.namespaces;
    if (!this.#resource.namespaced) this.#fixed = [undefined];
    else if (namespaces === undefined || !("clusterwide" in namespaces)) {
      this.#fixed = [...namespaces ?? []];
    } else if (namespaces.clusterwide) this.#fixed = [];
    else if (!needsNamespaceWatching(namespaces)) {
      this.#fixed = literalNamespaces(namespaces.namespaces);
    } else this.#served = (namespace) => isServedNamespace(namespace, namespaces);
    this.listed = new Promise((resolve) => (this.#listedResolve = resolve));
  }

  /** The peering object's name. */
  get name(): string {
    return this.#settings.name;
  }

  /** Whether the operator must pause now. */
  get paused(): boolean {
    return this.#paused;
  }

  /** Whether any peering object was seen (after {@link Peering.listed}). */
  get found(): boolean {
    return this.#objects.size > 0;
  }

  /**
   * Every change of {@link Peering.paused} (the new value), from the creation on; the
   * iteration ends once the peering has stopped.
   */
  get changes(): AsyncIterable<boolean> {
    return this.#changes;
  }

  /** Start watching the peering objects. */
  start(): void {
    const watches: readonly (string | undefined)[] = this.#fixed ?? [undefined];
    this.#unlisted = watches.length;
    if (this.#unlisted === 0) this.#listedResolve();
    for (const namespace of watches) this.#tasks.push(this.#watch(namespace));
  }

  /** Start the keep-alives (and the decisions): the operator takes part in the peering. */
  engage(): void {
    if (this.#engaged) return;
    this.#engaged = true;
    this.#evaluate();
    this.#tasks.push(this.#keepAlive());
  }

  /**
   * Stop watching and keeping alive; if engaged, remove the own record from the peering
   * objects, so that others need not wait for it to expire.
   */
  stop(): Promise<void> {
    this.#stopped ??= (async () => {
      this.#stop.abort();
      this.#changes.close();
      this.#cancelWakeup?.();
      // A keep-alive already sent is let to finish: were it abandoned, the server could
      // still apply it after the farewell below, and the record would outlive the operator.
      const grace = setTimeout(() => this.#keepAliveAbort.abort(), FAREWELL_TIMEOUT * 1000);
      await Promise.all(this.#tasks);
      clearTimeout(grace);
      this.#keepAliveAbort.abort();
      if (this.#engaged) await this.#touch(null, AbortSignal.timeout(FAREWELL_TIMEOUT * 1000));
    })();
    return this.#stopped;
  }

  /** Where the own record goes: the fixed places, or where peering objects were seen. */
  #places(): (string | undefined)[] {
    if (this.#fixed !== undefined) return [...this.#fixed];
    return [...this.#objects.keys()];
  }

  #describe(namespace: string | undefined): string {
    const name = JSON.stringify(this.#settings.name);
    return namespace === undefined || namespace === ""
      ? `${this.#resource.kind} ${name}`
      : `${this.#resource.kind} ${name} in ${JSON.stringify(namespace)}`;
  }

  /**
   * Watch the peering objects until the stop. The watch keeps going by itself (it reports
   * its failures and pauses along its backoff); a watch that fails before its first listing
   * must not hold the start: the peering counts as absent meanwhile. A watch that ends
   * otherwise (a defect) is reported and watched anew after a pause: left ended, this
   * operator would no longer see its peers come and go.
   */
  async #watch(namespace: string | undefined): Promise<void> {
    const signal = this.#stop.signal;
    let listed = false;
    const settleListing = () => {
      if (listed) return;
      listed = true;
      if (--this.#unlisted === 0) this.#listedResolve();
    };
    const restarts = new WatchRestarts(`Watching the peering ${this.#describe(namespace)}`, {
      backoff: WATCH_BACKOFF,
      clock: this.#clock,
      logger: this.#logger,
    });
    try {
      while (!signal.aborted) {
        let failure: { error: unknown } | undefined;
        try {
          await this.#follow(namespace, settleListing);
        } catch (error) {
          failure = { error };
        }
        if (signal.aborted) return;
        settleListing();
        if (!await restarts.after(signal, failure)) return;
      }
    } catch (error) {
      this.#fail?.(error); // only the restarts throw: a defect that keeps coming back
    } finally {
      settleListing();
    }
  }

  /** Follow one persistent watch of the peering objects until it ends or the stop. */
  async #follow(namespace: string | undefined, settleListing: () => void): Promise<void> {
    const signal = this.#stop.signal;
    const items = watchObjects(this.#api, this.#resource, {
      namespace,
      fieldSelector: `metadata.name=${this.#settings.name}`,
      signal,
      persistent: true,
      logger: this.#logger,
      clock: this.#clock,
      backoff: WATCH_BACKOFF,
      onFailure: () => void settleListing(),
    });
    for await (const item of items) {
      if (signal.aborted) break;
      const known = new Set(this.#objects.keys());
      if (item.type === "LISTED") {
        for (const key of [...this.#objects.keys()]) {
          if (namespace === undefined || key === namespace) this.#objects.delete(key);
        }
        for (const object of item.objects) this.#store(object, false);
        settleListing();
      } else {
        this.#store(item.object, item.type === "DELETED");
      }
      // A peering object that appears gets the own record at once, not only with the
      // next keep-alive: else the peers it pauses would run side by side until then.
      const appeared = [...this.#objects.keys()].filter((key) => !known.has(key));
      if (this.#engaged && appeared.length > 0) this.#announce(appeared);
      if (this.#engaged) this.#evaluate();
    }
  }

  #store(object: RawBody, deleted: boolean): void {
    const meta = object.metadata ?? {};
    if (meta.name !== this.#settings.name) return;
    const key = this.#resource.namespaced ? meta.namespace ?? "" : "";
    if (this.#served !== undefined && !this.#served(key)) return;
    if (deleted) this.#objects.delete(key);
    else this.#objects.set(key, (object as JsonObject).status ?? {});
  }

  /** Decide whether to pause; remove dead peers' records; wake up when a blocker expires. */
  #evaluate(): void {
    if (this.#stop.signal.aborted) return;
    const now = this.#clock.wall();
    const self = { identity: this.identity, priority: this.#settings.priority };
    const higher: Peer[] = [];
    const same: Peer[] = [];
    for (const [namespace, status] of this.#objects) {
      const verdict = judgePeers(parsePeers(status, now), self, now);
      higher.push(...verdict.higher);
      same.push(...verdict.same);
      const dead = verdict.dead.filter((p) => !this.#cleaning.has(`${namespace}\0${p.identity}`));
      if (dead.length > 0) void this.#clean(namespace, dead);
    }
    const absent = !this.#settings.mandatory
      ? []
      : this.#fixed !== undefined
      ? this.#fixed.filter((ns) => !this.#objects.has(ns ?? ""))
      : this.#objects.size === 0
      ? [undefined]
      : [];

    const names = (peers: Peer[]) =>
      [
        ...new Set(peers.map((p) =>
          `${p.identity} (priority ${p.priority}${
            p.message === undefined ? "" : `: ${JSON.stringify(p.message)}`
          })`
        )),
      ].sort().join(", ");
    const reasons = [
      higher.length ? `higher: ${names(higher)}` : "",
      same.length ? `same: ${names(same)}` : "",
      absent.length ? `absent: ${absent.join(",")}` : "",
    ].filter(Boolean).join("; ");
    if (reasons !== this.#reasons) {
      this.#reasons = reasons;
      if (higher.length) {
        this.#logger.info(
          `Pausing operations in favour of operators with a higher priority: ${names(higher)}.`,
        );
      }
      if (same.length) {
        this.#logger.warning(
          `Operators with the same priority (${self.priority}) are running: ${names(same)}; ` +
            "all of them pause to avoid conflicting changes. Give each a distinct priority.",
        );
      }
      for (const namespace of absent) {
        this.#logger.warning(
          `The mandatory peering object ${this.#describe(namespace)} does not exist: ` +
            `pausing until it does. Create it: ${this.#manifestOf(namespace)}`,
        );
      }
    }
    const paused = reasons !== "";
    if (paused !== this.#paused) {
      this.#paused = paused;
      if (!paused) this.#logger.info("Resuming operations: no peer stands in the way any more.");
      this.#changes.send(paused);
    }

    this.#cancelWakeup?.();
    this.#cancelWakeup = undefined;
    const deadlines = [...higher, ...same].map((p) => p.deadline);
    if (deadlines.length > 0) {
      const delay = (Math.max(0, Math.min(...deadlines) - now) + 10) / 1000;
      this.#cancelWakeup = this.#clock.schedule(delay, () => this.#evaluate());
    }
  }

  /** A one-line manifest of the peering object, for `kubectl apply -f -`. */
  #manifestOf(namespace: string | undefined): string {
    const metadata = namespace === undefined
      ? { name: this.#settings.name }
      : { namespace, name: this.#settings.name };
    const manifest = { apiVersion: this.#resource.apiVersion, kind: this.#resource.kind, metadata };
    return `echo '${JSON.stringify(manifest)}' | kubectl apply -f -`;
  }

  async #clean(namespace: string, dead: readonly Peer[]): Promise<void> {
    const keys = dead.map((p) => `${namespace}\0${p.identity}`);
    for (const key of keys) this.#cleaning.add(key);
    try {
      const status: JsonObject = {};
      for (const peer of dead) status[peer.identity] = null;
      await this.#patchStatus(namespace === "" ? undefined : namespace, status, this.#stop.signal);
      this.#logger.debug(
        `Removed the expired peers from the peering ${this.#describe(namespace)}: ` +
          `${dead.map((p) => p.identity).join(", ")}.`,
      );
    } catch (error) {
      if (!this.#stop.signal.aborted && !(error instanceof APINotFoundError)) {
        this.#logger.warning(
          `Removing the expired peers from the peering ${this.#describe(namespace)} failed: ` +
            `${error instanceof Error ? error.message : String(error)}`,
        );
      }
    } finally {
      for (const key of keys) this.#cleaning.delete(key);
    }
  }

  /** The own record as of now. */
  #record(): PeerRecord {
    return {
      priority: this.#settings.priority,
      lifetime: recordLifetime(this.#settings),
      lastseen: formatLastseen(this.#clock.wall()),
    };
  }

  async #keepAlive(): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      const record = this.#record();
      await this.#touch(record, this.#keepAliveAbort.signal);
      await sleep(keepAliveInterval(record.lifetime), signal, this.#clock);
    }
  }

  /** Write the own record into peering objects that have just appeared (by their keys). */
  #announce(keys: readonly string[]): void {
    if (this.#stop.signal.aborted) return;
    const places = keys.map((key) => this.#resource.namespaced ? key : undefined);
    this.#tasks.push(this.#touch(this.#record(), this.#keepAliveAbort.signal, places));
  }

  /** Write (or with `null`, remove) the own record in every peering object. */
  async #touch(
    record: PeerRecord | null,
    signal: AbortSignal,
    places: readonly (string | undefined)[] = this.#places(),
  ): Promise<void> {
    await Promise.all(places.map(async (namespace) => {
      const where = this.#describe(namespace);
      try {
        const entry: JsonObject | null = record === null ? null : { ...record };
        await this.#patchStatus(namespace, { [this.identity]: entry }, signal);
        if (!this.#settings.stealth) {
          this.#logger.debug(
            record === null ? `Left the peering ${where}.` : `Keep-alive in the peering ${where}.`,
          );
        }
      } catch (error) {
        if (error instanceof APINotFoundError) {
          this.#logger.debug(`Keep-alive in the peering ${where}: not found.`);
        } else if (!(signal.aborted && record !== null)) {
          this.#logger.warning(
            `${record === null ? "Leaving" : "Keep-alive in"} the peering ${where} failed: ` +
              `${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
    }));
  }

  async #patchStatus(
    namespace: string | undefined,
    status: JsonObject,
    signal: AbortSignal,
  ): Promise<void> {
    await patchPeeringStatus(this.#api, this.#resource, this.#settings.name, namespace, status, {
      signal,
    });
  }
}

/** Options of {@link startPeering}. */
export interface StartPeeringOptions extends Omit<PeeringOptions, "resource"> {
  /** The resources the cluster serves (from discovery). */
  readonly resources: readonly Resource[];
  /** Stops a start that waits for the initial listings. */
  readonly signal: AbortSignal;
}

/**
 * Join the peering the settings describe, or say why the operator runs alone:
 *
 * - without the peering resource, a mandatory peering fails with one line saying what to
 *   install; else the operator runs alone;
 * - without the peering object, a peering that is not mandatory runs alone; a mandatory
 *   one pauses the operator until the object exists;
 * - else the operator takes part: it keeps its record alive and pauses as its peers tell.
 *
 * Returns the engaged {@link Peering}, or `undefined` to run alone.
 */
export async function startPeering(options: StartPeeringOptions): Promise<Peering | undefined> {
  const { settings, logger } = options;
  const name = JSON.stringify(settings.name);
  const resource = findPeeringResource(options.resources, settings.clusterwide);
  if (resource === undefined) {
    const kind = settings.clusterwide ? "ClusterKopfPeering" : "KopfPeering";
    if (settings.mandatory) {
      throw new PeeringConfigurationError(
        `The peering ${name} is mandatory, but the ${kind} resource is not served: apply ` +
          "Kopf's peering CRDs (examples/peering.yaml), then create the peering object, " +
          "or run standalone.",
      );
    }
    logger.warning("No peering resources found: running standalone.");
    return undefined;
  }
  const peering = new Peering({ ...options, resource });
  peering.start();
  const stopped = new Promise<void>((resolve) => {
    if (options.signal.aborted) resolve();
    options.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  await Promise.race([peering.listed, stopped]);
  if (options.signal.aborted) {
    await peering.stop();
    return undefined;
  }
  if (!peering.found && !settings.mandatory) {
    await peering.stop();
    logger.warning(
      `The peering object ${name} (${resource.kind}) is not found: running standalone.`,
    );
    return undefined;
  }
  peering.engage();
  logger.debug(
    `Peering as ${JSON.stringify(peering.identity)} with priority ${settings.priority} ` +
      `in ${resource.kind} ${name}.`,
  );
  return peering;
}
