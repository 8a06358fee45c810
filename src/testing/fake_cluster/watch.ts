/**
 * Watch streams: each watch is a stream of JSON lines (`{"type":...,"object":...}`) fed
 * from the store's changes, after the initial state or a replay of the history.
 * Serialised lines are shared between watchers; writes are coalesced per tick; a
 * watcher that falls too far behind is closed, as a real server closes slow watchers.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import {
  apiVersionOf,
  type ResourceType,
  type ServedVersion,
  typeKey,
} from "../../catalog/resource_types.ts";
import { ApiError } from "./errors.ts";
import type { Change } from "./history.ts";
import { served } from "./object_rules.ts";
import type { Selector } from "./selectors.ts";
import type { Store } from "./store.ts";
import { partialMetadata } from "./renderings.ts";
import { goJson } from "./http_responses.ts";
import { type ResourceTraffic, Traffic } from "./traffic.ts";

/** What one watch asks for. */
export interface WatchRequest {
  type: ResourceType;
  version: ServedVersion;
  /** Only this namespace; all when omitted. */
  namespace?: string;
  labelSelector: Selector;
  fieldSelector: Selector;
  /** Start after this version; unset or "0" starts with the current objects. */
  resourceVersion?: string;
  /**
   * Send the current objects first, then a bookmark marking their end (if bookmarks are
   * allowed); `false` with no resourceVersion (or `0`) starts with no objects at all, from
   * now; unset, as before streaming lists: the current objects without a bookmark.
   */
  sendInitialEvents?: boolean;
  allowBookmarks: boolean;
  /** End the watch cleanly after so many seconds. */
  timeoutSeconds?: number;
  /** Turns each object into a Table (with the columns in the first one only). */
  format?: (object: JsonObject, first: boolean) => JsonObject;
  /**
   * Events carry the objects' metadata only, as `PartialObjectMetadata` of this apiVersion
   * (`meta.k8s.io/v1`): bookmarks too, as kube-apiserver transforms every object of such a
   * watch (`ERROR` statuses aside).
   */
  metadataOnly?: string;
}

const CRDS = typeKey("apiextensions.k8s.io", "customresourcedefinitions");

/** How far (in bytes) a watcher may fall behind before it is closed. */
const MAX_BACKLOG = 64 << 20;
/** How many bytes of initial events are written at a time, as the client reads them. */
const INITIAL_CHUNK = 256 << 10;
const encoder = new TextEncoder();

/** One open watch stream. */
class Watcher {
  readonly key: string;
  readonly stream: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #flushScheduled = false;
  #closed = false;
  #first = true;
  #timeout?: ReturnType<typeof setTimeout>;
  /**
   * The initial events still to send, written as the client reads (never all at once, as a
   * real server's flow control): the objects, the next one's index, and the resourceVersion
   * of the bookmark that ends them (if one is wanted). Live changes wait in `#deferred`.
   */
  #initial?: { objects: JsonObject[]; next: number; bookmark?: number };
  #deferred: Uint8Array[] = [];

  constructor(
    readonly request: WatchRequest,
    readonly onClose: (w: Watcher) => void,
    /** Where the lines written are counted. */
    readonly traffic: ResourceTraffic,
  ) {
    this.key = typeKey(request.type.group, request.type.plural);
    this.stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: () => this.#pullInitial(),
        cancel: () => this.#finish(),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: 1 << 20 }),
    );
    if (request.timeoutSeconds && request.timeoutSeconds > 0) {
      this.#timeout = setTimeout(() => this.close(), request.timeoutSeconds * 1000);
    }
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Whether the object passes the selectors (the namespace is checked on the change). */
  #matches(object: JsonObject): boolean {
    return this.request.labelSelector(object) && this.request.fieldSelector(object);
  }

  /**
   * The line of a change as it happened (not filtered into another type of event), cached on
   * the change for every watcher of its version, or of its metadata only.
   */
  #plainLine(change: Change): Uint8Array {
    const r = this.request;
    const metadataOnly = r.metadataOnly;
    // The metadata is the same in every version; a key with a space is no apiVersion.
    const key = metadataOnly === undefined
      ? apiVersionOf(r.type.group, r.version.name)
      : `${metadataOnly} PartialObjectMetadata`;
    change.lines ??= new Map();
    let line = change.lines.get(key);
    if (!line) {
      const object = metadataOnly === undefined
        ? served(change.object, r.type, r.version)
        : partialMetadata(change.object, metadataOnly);
      line = encoder.encode(`{"type":"${change.type}","object":${goJson(object)}}\n`);
      change.lines.set(key, line);
    }
    return line;
  }

  /**
   * Send one change if it concerns this watch, as kube-apiserver's cacher filters it
   * (storage/cacher/cache_watcher.go, `convertToWatchEvent`; storage/etcd3/watcher.go,
   * `transform`, does the same with its previous object decoded at the event's revision):
   * an object that starts to match is `ADDED`, one that stops matching is `DELETED` with its
   * previous content stamped with the change's resourceVersion, one that matches before and
   * after is `MODIFIED`.
   */
  deliver(change: Change): void {
    if (this.#closed || change.typeKey !== this.key) return;
    const r = this.request;
    if (r.namespace !== undefined && change.namespace !== r.namespace) return;
    const now = this.#matches(change.object);
    const before = change.type === "MODIFIED" && change.old ? this.#matches(change.old) : now;
    if (!now && !before) return;
    if (change.type === "MODIFIED" && !now) {
      this.send("DELETED", served(restamped(change.old!, change.rv), r.type, r.version));
      return;
    }
    const type = change.type === "MODIFIED" && !before ? "ADDED" : change.type;
    if (type === change.type && !r.format) {
      const line = this.#plainLine(change);
      this.traffic.events++;
      this.traffic.eventBytes += line.length;
      this.#write(line);
    } else this.send(type, served(change.object, r.type, r.version));
  }

  /** Send an event with this object (formatted as the client asked). */
  send(type: string, object: JsonObject, initial = false): void {
    const { format, metadataOnly } = this.request;
    let formatted = object;
    if (metadataOnly !== undefined && type !== "ERROR") {
      formatted = partialMetadata(object, metadataOnly);
    } else if (format && type !== "ERROR" && type !== "BOOKMARK") {
      formatted = format(object, this.#first);
      this.#first = false;
    }
    const line = encoder.encode(`{"type":"${type}","object":${goJson(formatted)}}\n`);
    this.traffic.watchLine(type, line.length);
    this.#write(line, initial);
  }

  /**
   * Begin with these objects as `ADDED` events, then (if `bookmark` is given) a bookmark at
   * that resourceVersion marked as the end of the initial events.
   */
  startWith(objects: JsonObject[], bookmark?: number): void {
    this.#initial = { objects, next: 0, bookmark };
    this.#pullInitial();
  }

  /** Write initial events while the client has room for them; then the deferred changes. */
  #pullInitial(): void {
    const initial = this.#initial;
    if (initial === undefined || this.#closed) return;
    let written = 0;
    while (initial.next < initial.objects.length && written < INITIAL_CHUNK) {
      const before = this.#pendingBytes;
      this.send("ADDED", initial.objects[initial.next++], true);
      written += this.#pendingBytes - before;
    }
    if (initial.next < initial.objects.length) {
      this.#flush(); // the stream pulls again when the client has read this
      return;
    }
    if (initial.bookmark !== undefined) {
      this.#bookmarkAt(initial.bookmark, { "k8s.io/initial-events-end": "true" }, true);
    }
    this.#initial = undefined;
    const deferred = this.#deferred;
    this.#deferred = [];
    for (const line of deferred) this.#write(line);
    this.#flush();
  }

  /** A BOOKMARK at the given resourceVersion (none while the initial events are sent). */
  bookmark(rv: number): void {
    if (this.#initial !== undefined) return;
    this.#bookmarkAt(rv);
  }

  #bookmarkAt(rv: number, annotations?: Record<string, string>, initial = false): void {
    const r = this.request;
    const metadata: JsonObject = { resourceVersion: String(rv) };
    if (annotations) metadata.annotations = annotations;
    this.send("BOOKMARK", {
      kind: r.type.kind,
      apiVersion: apiVersionOf(r.type.group, r.version.name),
      metadata,
    }, initial);
  }

  #write(line: Uint8Array, initial = false): void {
    if (this.#closed) return;
    if (this.#initial !== undefined && !initial) {
      this.#deferred.push(line);
      return;
    }
    this.#pending.push(line);
    this.#pendingBytes += line.length;
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      queueMicrotask(() => this.#flush());
    }
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#closed || !this.#pending.length) return;
    let chunk: Uint8Array;
    if (this.#pending.length === 1) chunk = this.#pending[0];
    else {
      chunk = new Uint8Array(this.#pendingBytes);
      let offset = 0;
      for (const part of this.#pending) {
        chunk.set(part, offset);
        offset += part.length;
      }
    }
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#controller.enqueue(chunk);
    const backlog = -(this.#controller.desiredSize ?? 0);
    if (backlog > MAX_BACKLOG) this.close();
  }

  /** End the stream cleanly, after what is already written. */
  close(): void {
    if (this.#closed) return;
    this.#flush();
    this.#finish();
    try {
      this.#controller.close();
    } catch {
      // Already cancelled by the client.
    }
  }

  /** End the stream abruptly: the client sees the connection break mid-stream. */
  drop(): void {
    if (this.#closed) return;
    this.#finish();
    try {
      this.#controller.error(new Error("the watch was dropped"));
    } catch {
      // Already cancelled by the client.
    }
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending = [];
    this.#initial = undefined;
    this.#deferred = [];
    clearTimeout(this.#timeout);
    this.onClose(this);
  }
}

/** The object with another resourceVersion (a copy: the stored state is shared). */
function restamped(object: JsonObject, rv: number): JsonObject {
  const metadata = (object.metadata ?? {}) as JsonObject;
  return { ...object, metadata: { ...metadata, resourceVersion: String(rv) } };
}

/** All open watches, fed from the store. */
export class WatchHub {
  readonly #watchers = new Set<Watcher>();
  /**
   * The open watches by type key, then by namespace (`undefined`: all namespaces), so
   * that a change is offered only to the watches of its type and namespace.
   */
  readonly #byType = new Map<string, Map<string | undefined, Set<Watcher>>>();
  /** How many open watches allow bookmarks. */
  #bookmarking = 0;
  #bookmarkTimer?: ReturnType<typeof setInterval>;
  /** Set by {@link WatchHub.closeAll}: watches opened afterwards end at once. */
  #closed = false;

  /**
   * @param bookmarkInterval seconds between BOOKMARK events on watches that allow them.
   * @param streamingLists whether watches may begin with the current objects and a bookmark
   * (`sendInitialEvents`), as Kubernetes 1.32+ by default; without, like older servers.
   * @param traffic where the lines written are counted.
   */
  constructor(
    readonly store: Store,
    readonly bookmarkInterval: number,
    readonly streamingLists = true,
    readonly traffic: Traffic = new Traffic(),
  ) {
    store.listen((change) => {
      const byNamespace = this.#byType.get(change.typeKey);
      if (byNamespace) {
        const everywhere = byNamespace.get(undefined);
        if (everywhere) { for (const watcher of everywhere) watcher.deliver(change); }
        const here = byNamespace.get(change.namespace);
        if (here) { for (const watcher of here) watcher.deliver(change); }
      }
      // A CRD that goes away ends the watches of its resource, as on a real server.
      if (change.type === "DELETED" && change.typeKey === CRDS) {
        const spec = (change.object.spec ?? {}) as JsonObject;
        const names = (spec.names ?? {}) as JsonObject;
        const key = typeKey(String(spec.group ?? ""), String(names.plural ?? ""));
        for (const watchers of [...(this.#byType.get(key)?.values() ?? [])]) {
          for (const watcher of [...watchers]) watcher.close();
        }
      }
    });
  }

  #add(watcher: Watcher): void {
    this.#watchers.add(watcher);
    let byNamespace = this.#byType.get(watcher.key);
    if (!byNamespace) this.#byType.set(watcher.key, byNamespace = new Map());
    const namespace = watcher.request.namespace;
    let set = byNamespace.get(namespace);
    if (!set) byNamespace.set(namespace, set = new Set());
    set.add(watcher);
    if (watcher.request.allowBookmarks) this.#bookmarking++;
  }

  #remove(watcher: Watcher): void {
    if (!this.#watchers.delete(watcher)) return;
    const byNamespace = this.#byType.get(watcher.key);
    const set = byNamespace?.get(watcher.request.namespace);
    if (set?.delete(watcher) && !set.size) {
      byNamespace!.delete(watcher.request.namespace);
      if (!byNamespace!.size) this.#byType.delete(watcher.key);
    }
    if (watcher.request.allowBookmarks) this.#bookmarking--;
  }

  /** How many watches are open. */
  get size(): number {
    return this.#watchers.size;
  }

  /** Open a watch: the initial events or the replay, then live changes. */
  open(request: WatchRequest, initial: () => JsonObject[]): ReadableStream<Uint8Array> {
    const rvText = request.resourceVersion;
    if (rvText !== undefined && rvText !== "" && !/^\d+$/.test(rvText)) {
      throw new ApiError(
        400,
        `invalid resourceVersion "${rvText}": it must be a number from a list or an object`,
      );
    }
    const watcher = new Watcher(request, (w) => {
      this.#remove(w);
      this.#updateTimer();
    }, this.traffic.of(request.type.group, request.type.plural));
    if (this.#closed) {
      // A request that was still on its way when the server began stopping: a stream
      // left open would hold the graceful shutdown forever.
      watcher.close();
      return watcher.stream;
    }
    const rv = Number(rvText || 0);
    if (request.sendInitialEvents === false && !rv) {
      // "From any resourceVersion": live changes only (watch_cache.go,
      // getAllEventsSinceLocked with sendInitialEvents=false and resourceVersion 0).
    } else if (request.sendInitialEvents || !rv) {
      const marked = request.sendInitialEvents && request.allowBookmarks;
      watcher.startWith(initial(), marked ? this.store.resourceVersion : undefined);
    } else {
      const replay = this.store.history.since(rv);
      if (!replay) {
        watcher.send("ERROR", {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          // The version before the oldest change kept, as watch_cache.go's
          // getAllEventsSinceLocked words it ("oldest-1").
          message: `too old resource version: ${rv} (${this.store.history.compactedRv})`,
          reason: "Expired",
          code: 410,
        });
        watcher.close();
        return watcher.stream;
      }
      for (const change of replay) watcher.deliver(change);
    }
    this.#add(watcher);
    this.#updateTimer();
    return watcher.stream;
  }

  #updateTimer(): void {
    const wanted = this.#bookmarking > 0;
    if (wanted && !this.#bookmarkTimer) {
      this.#bookmarkTimer = setInterval(() => {
        const rv = this.store.resourceVersion;
        for (const w of this.#watchers) if (w.request.allowBookmarks) w.bookmark(rv);
      }, this.bookmarkInterval * 1000);
    } else if (!wanted && this.#bookmarkTimer) {
      clearInterval(this.#bookmarkTimer);
      this.#bookmarkTimer = undefined;
    }
  }

  /** Break every open watch mid-stream. */
  dropAll(): number {
    const all = [...this.#watchers];
    for (const w of all) w.drop();
    return all.length;
  }

  /** End every open watch cleanly (on shutdown). */
  closeAll(): void {
    this.#closed = true;
    for (const w of [...this.#watchers]) w.close();
  }
}
