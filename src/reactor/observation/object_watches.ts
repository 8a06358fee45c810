/**
 * The watches of the served objects: what each remembers of the objects it has seen, and
 * how their items are fed — every event, every listed object as a listing's parts arrive (on
 * re-listings only those that changed), and once a listing is complete a `DELETED` for every
 * object it knew that the listing no longer has: the deletions missed while the watch was
 * broken. On a watch with selectors, each of those deletions, and each `DELETED` event, is fed
 * as a possible leaving of the selection (`ObjectEvent.left`): a server reports an object that
 * stops matching as deleted, with its previous content, so only a read can tell. A watch
 * remembers of each object only its version and identity, or its last full state where deleted
 * objects' bodies matter (see `ObserverOptions.keepsLastStates`).
 *
 * @module
 */

import type { ObjectEvent, RawBody, RawMeta } from "../../structs/bodies.ts";
import type { Clock } from "../../structs/clock.ts";
import { isNewerVersion, objectKey } from "../../structs/identities.ts";
import type { Resource } from "../../structs/resources.ts";
import { matchesFields, matchesLabels } from "../../structs/label_selectors.ts";
import type { WatchItem } from "../../client/watch.ts";
import type { WatchSelection } from "../../intents/watch_selections.ts";
import type { WatchedDimension } from "./observation_client.ts";

/** `settings.watching.listPatience` when no settings are given. */
const DEFAULT_LIST_PATIENCE = 120;

/** One watch of objects and what it remembers of them. */
export interface Watcher extends WatchedDimension {
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
  /** The watch's label and field selectors, if it has any. */
  readonly selection: WatchSelection | undefined;
  /**
   * One copy of every namespace name in `known`, shared by the objects there instead of one
   * copy per object; pruned at every full listing.
   */
  readonly namespaceNames: Map<string, string>;
  /** The keys of the objects of the listing in progress, which comes in parts. */
  listing?: Set<string>;
  /**
   * While a listing is in progress beside a live watch: the objects the live events told
   * of (the listing's older states of them are not fed, nor are they taken for deleted),
   * with the version of those deleted meanwhile.
   */
  during?: Map<string, string | typeof STILL_THERE>;
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

/** What a {@link WatchFeeder} is made of. */
export interface WatchFeederOptions {
  /** Receives the events of all served objects; a promise pushes back. */
  readonly feed: (resource: Resource, event: ObjectEvent) => void | Promise<void>;
  /** `listPatience`: seconds for which a listing's parts wait for the feed's back-pressure. */
  readonly watching?: { readonly listPatience: number };
  /** The clock of the listings' patience. */
  readonly clock: Clock;
  /** A watch has fed its first full listing. */
  readonly onFirstListing: (watcher: Watcher) => void;
}

/** Feeds the items of the objects' watches; see the module docs. */
export class WatchFeeder {
  readonly #feed: WatchFeederOptions["feed"];
  readonly #watching: WatchFeederOptions["watching"];
  readonly #clock: Clock;
  readonly #onFirstListing: WatchFeederOptions["onFirstListing"];

  /** A feeder into the given feed. */
  constructor(options: WatchFeederOptions) {
    this.#feed = options.feed;
    this.#watching = options.watching;
    this.#clock = options.clock;
    this.#onFirstListing = options.onFirstListing;
  }

  /**
   * Feed a watch's item; return the last promise the feed returned, to wait for before the
   * next item.
   */
  onItem(watcher: Watcher, item: WatchItem): Promise<void> | undefined {
    const { resource, known } = watcher;
    if (item.type !== "LISTED" && item.type !== "LISTING") {
      const { type, object } = item;
      const key = objectKey(object);
      // Beside a listing (see `consume`), a live watch tells of objects the listing has yet
      // to come to, or has come to with an older state.
      if (watcher.listing !== undefined) {
        const version = object.metadata?.resourceVersion;
        (watcher.during ??= new Map()).set(key, type === "DELETED" ? version ?? "" : STILL_THERE);
      }
      if (type !== "DELETED") {
        // Seen in this very version (or a newer one) already: a live watch that began before
        // a listing ended, or the listing itself, told of it.
        if (this.#remember(watcher, key, object)) return undefined;
        return promised(this.#feed(resource, { type, object }));
      }
      known.delete(key);
      // With selectors, the server reports an object that stops matching them as deleted,
      // with its previous content (which matches): only a read can tell (see RecallStage).
      const selection = watcher.selection;
      const event = isSelective(selection) ? leaving(selection, object) : { type, object };
      return promised(this.#feed(resource, event));
    }
    // A listing comes whole, or in parts: the objects of each part are fed as it arrives,
    // and the keys noted, so that the last part can tell which known objects are gone.
    if (!item.continued || watcher.listing === undefined) {
      watcher.listing = new Set();
      watcher.listingSince = this.#clock.now();
    }
    const listed = watcher.listing;
    const during = watcher.during;
    let last: Promise<void> | undefined;
    for (const object of item.objects) {
      const key = objectKey(object);
      listed.add(key);
      // Deleted meanwhile, as a live watch beside the listing told: an older state.
      const gone = during?.get(key);
      if (gone !== undefined && gone !== STILL_THERE) {
        if (!isNewerVersion(object.metadata?.resourceVersion, gone)) continue;
      }
      // Objects already fed in this very state (on re-listings, or in the parts of a listing
      // that broke off and began anew) — or in a newer one — are not fed again.
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
    watcher.during = undefined;
    const first = !watcher.listed;
    for (const [key, state] of known) {
      if (!listed.has(key) && !during?.has(key)) {
        known.delete(key);
        const object = state instanceof Trace ? deletionNotice(resource, key, state) : state;
        // With selectors, it may have left them rather than been deleted: it is read to tell.
        const selection = watcher.selection;
        const event = isSelective(selection)
          ? leaving(selection, object)
          : { type: "DELETED" as const, object };
        last = promised(this.#feed(resource, event)) ?? last;
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
      this.#onFirstListing(watcher);
    }
    return last;
  }

  /**
   * Remember an object's current state as the watch keeps it; true if the watch already
   * knew it in this very version, or a newer one (then nothing changes).
   */
  #remember(watcher: Watcher, key: string, object: RawBody): boolean {
    const meta = object.metadata;
    const version = meta?.resourceVersion;
    const previous = watcher.known.get(key);
    if (watcher.keeps) {
      const known = previous instanceof Trace ? undefined : previous?.metadata?.resourceVersion;
      if (notNewer(version, known)) return true;
      watcher.known.set(key, remembered(object));
      return false;
    }
    if (previous instanceof Trace) {
      // The same key is the same object: its name and namespace have not changed.
      if (notNewer(version, previous.resourceVersion)) return true;
      previous.resourceVersion = version;
      return false;
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
}

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

/** Whether the watch sends selectors (a selection may say only why it sends none). */
function isSelective(selection: WatchSelection | undefined): selection is WatchSelection {
  return selection !== undefined && selection.labels.length + selection.fields.length > 0;
}

/** Whether the object meets the watch's selectors. */
function matchesSelection(selection: WatchSelection, object: RawBody): boolean {
  return matchesLabels(selection.labels, object.metadata?.labels) &&
    matchesFields(selection.fields, object);
}

/** The event of an object that may have left the watch's selection (`ObjectEvent.left`). */
function leaving(selection: WatchSelection, object: RawBody): ObjectEvent {
  const selects = (fresh: RawBody) => matchesSelection(selection, fresh);
  return { type: "MODIFIED", object, left: true, selects };
}

/** Whether a version is the known one or older (as far as versions compare at all). */
function notNewer(version: string | undefined, known: string | undefined): boolean {
  if (version === undefined || known === undefined) return false;
  return version === known || isNewerVersion(known, version);
}

/** In {@link Watcher.during}: the object was told of, and not deleted. */
const STILL_THERE: unique symbol = Symbol("still there");

/** What a feed returned, if it is a promise to wait for. */
function promised(result: void | Promise<void>): Promise<void> | undefined {
  return result instanceof Promise ? result : undefined;
}

/** The key of a watch: its resource and namespace. */
export function watcherId(resource: Resource, namespace: string | undefined): string {
  return `${resource.key}\u0000${namespace ?? ""}`;
}
