/**
 * A scripted, in-memory stand-in for the API as observation sees it: the test decides
 * what discovery returns and what every watch stream yields, and when. Like the client's
 * watches, a watch given recovery options goes on through the failures and ends of its
 * streams (the client's own `keepWatching`): each opens a new stream after a pause.
 */
import type { BodySource, RawBody } from "../../src/structs/bodies.ts";
import type { Resource } from "../../src/structs/resources.ts";
import type { WatchItem } from "../../src/client/watch.ts";
import { keepWatching, WatchHealth } from "../../src/client/watch_recovery.ts";
import { silentLogger } from "../../src/reactor/default_logger.ts";
import type {
  ObservationClient,
  WatchOptions,
} from "../../src/reactor/observation/observation_client.ts";
import { type Deferred, deferred } from "../clocks.ts";

/** One open watch stream, fed by the test. */
/**
 * A listing's version when a test names none: as kube-apiserver's, the cluster's current
 * revision, newer than every object a test scripts.
 */
const CURRENT_REVISION = "1000000";

export class Stream {
  readonly resource: Resource;
  readonly namespace: string | undefined;
  readonly signal: AbortSignal;
  /** How it was asked for (selectors, parts, recovery). */
  readonly options: WatchOptions | undefined;
  readonly #items: (WatchItem | { error: unknown } | { end: true })[] = [];
  #wake: (() => void) | undefined;
  #returned = false;

  constructor(
    resource: Resource,
    namespace: string | undefined,
    signal: AbortSignal,
    options?: WatchOptions,
  ) {
    this.resource = resource;
    this.namespace = namespace;
    this.signal = signal;
    this.options = options;
    signal.addEventListener("abort", () => this.#wake?.(), { once: true });
  }

  /** How many scripted items the consumer has not taken yet. */
  get unread(): number {
    return this.#items.length;
  }

  /** Whether the consumer has stopped this stream (its signal, or the end of its reading). */
  get closed(): boolean {
    return this.signal.aborted || this.#returned;
  }

  listed(objects: RawBody[], resourceVersion = CURRENT_REVISION): void {
    this.#put({ type: "LISTED", objects, resourceVersion });
  }

  /** A part of a listing; `continued: false` begins a listing anew. */
  listing(objects: RawBody[], continued: boolean): void {
    this.#put({ type: "LISTING", objects, continued });
  }

  /** The last part of a listing that came in parts. */
  listedAfterParts(objects: RawBody[], resourceVersion = CURRENT_REVISION): void {
    this.#put({ type: "LISTED", objects, resourceVersion, continued: true });
  }

  event(type: "ADDED" | "MODIFIED" | "DELETED", object: RawBody): void {
    this.#put({ type, object });
  }

  fail(error: unknown): void {
    this.#put({ error });
  }

  end(): void {
    this.#put({ end: true });
  }

  #put(entry: WatchItem | { error: unknown } | { end: true }): void {
    this.#items.push(entry);
    this.#wake?.();
  }

  async *iterate(): AsyncGenerator<WatchItem> {
    try {
      for (;;) {
        while (this.#items.length === 0 && !this.signal.aborted) {
          await new Promise<void>((resolve) => (this.#wake = resolve));
          this.#wake = undefined;
        }
        if (this.signal.aborted) return;
        const entry = this.#items.shift()!;
        if ("error" in entry) throw entry.error;
        if ("end" in entry) return;
        yield entry;
      }
    } finally {
      this.#returned = true;
    }
  }
}

function id(resource: Resource, namespace: string | undefined): string {
  return `${resource.plural}@${namespace ?? "*"}`;
}

/** The scripted client. Streams are named `plural@namespace` (`plural@*` cluster-wide). */
export class ScriptedClient implements ObservationClient {
  resources: Resource[];
  discoveries: { fresh: boolean }[] = [];
  /** When set, discovery waits for this before answering. */
  discoveryGate: Deferred<void> | undefined;
  /** When set, the next discovery fails with this. */
  discoveryError: unknown;
  /** The groups discovery asks (each in its preferred version); every group when unset. */
  askedGroups: string[] | undefined;
  /**
   * The versions that currentVersion() answers, by stream id; without one, it fails (and
   * the observer watches no live events beside a held listing).
   */
  readonly versions = new Map<string, string>();
  /** Errors thrown by the next watch() of a stream id, instead of opening it. */
  readonly openErrors = new Map<string, unknown>();
  /**
   * Errors that a watch of a stream id throws at its next item past its own recovery, as a
   * defect of the client's would: once each.
   */
  readonly defects = new Map<string, unknown>();
  /** All streams ever opened, by id, in order. */
  readonly opened = new Map<string, Stream[]>();
  readonly #waiters = new Map<string, Deferred<Stream>[]>();

  constructor(resources: Resource[]) {
    this.resources = resources;
  }

  covers(resource: Resource): boolean {
    const asked = this.askedGroups;
    return asked === undefined || (asked.includes(resource.group) && resource.preferred);
  }

  async discover(options: { fresh: boolean; signal: AbortSignal }): Promise<readonly Resource[]> {
    this.discoveries.push({ fresh: options.fresh });
    if (this.discoveryGate) await this.discoveryGate.promise;
    if (this.discoveryError !== undefined) {
      const error = this.discoveryError;
      this.discoveryError = undefined;
      throw error;
    }
    return [...this.resources];
  }

  /** The whole objects of a metadata-only watch: none is scripted. */
  wholeSource(_resource: Resource): BodySource {
    return { read: () => Promise.reject(new Error("the scripted client reads no whole objects")) };
  }

  currentVersion(resource: Resource, namespace: string | undefined): Promise<string> {
    const version = this.versions.get(id(resource, namespace));
    if (version === undefined) return Promise.reject(new Error("no version scripted"));
    return Promise.resolve(version);
  }

  watch(
    resource: Resource,
    namespace: string | undefined,
    signal: AbortSignal,
    options: WatchOptions = {},
  ): AsyncIterable<WatchItem> {
    const key = id(resource, namespace);
    const recovery = options.recovery;
    const open = () => this.#open(key, resource, namespace, signal, options);
    if (recovery === undefined) return open();
    const health = new WatchHealth(`The watch of ${key}`, {
      ...recovery,
      logger: recovery.logger ?? silentLogger,
    });
    return this.#withDefects(key, keepWatching(open, health, { ...recovery, signal }));
  }

  async *#withDefects(key: string, items: AsyncIterable<WatchItem>): AsyncGenerator<WatchItem> {
    for await (const item of items) {
      const defect = this.defects.get(key);
      if (defect !== undefined) {
        this.defects.delete(key);
        throw defect;
      }
      yield item;
    }
  }

  #open(
    key: string,
    resource: Resource,
    namespace: string | undefined,
    signal: AbortSignal,
    options: WatchOptions,
  ): AsyncGenerator<WatchItem> {
    const error = this.openErrors.get(key);
    if (error !== undefined) {
      this.openErrors.delete(key);
      // deno-lint-ignore require-yield
      return (async function* (): AsyncGenerator<WatchItem> {
        throw error;
      })();
    }
    const stream = new Stream(resource, namespace, signal, options);
    this.opened.set(key, [...this.opened.get(key) ?? [], stream]);
    const waiters = this.#waiters.get(key) ?? [];
    this.#waiters.delete(key);
    for (const waiter of waiters) waiter.resolve(stream);
    return stream.iterate();
  }

  /** The latest stream of an id, if any. */
  latest(key: string): Stream | undefined {
    return this.opened.get(key)?.at(-1);
  }

  /** The ids of the streams open now, sorted. */
  openIds(): string[] {
    const ids: string[] = [];
    for (const [key, streams] of this.opened) if (streams.some((s) => !s.closed)) ids.push(key);
    return ids.sort();
  }

  /** Resolve with the stream of an id: the open one, or the next one opened. */
  stream(key: string): Promise<Stream> {
    const current = this.latest(key);
    if (current && !current.closed) return Promise.resolve(current);
    return this.next(key);
  }

  /** Resolve with the next stream opened for an id (not the current one). */
  next(key: string): Promise<Stream> {
    const waiter = deferred<Stream>();
    this.#waiters.set(key, [...this.#waiters.get(key) ?? [], waiter]);
    return waiter.promise;
  }
}
