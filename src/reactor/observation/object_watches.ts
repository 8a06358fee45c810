/**
 * The watches of the served objects: how their items are fed -- every event, every listed
 * object as a listing's parts arrive (on re-listings only those that changed), and once a
 * listing is complete a `DELETED` for every object the watch knew that the listing no longer
 * has: the deletions missed while the watch was broken. On a watch with selectors, each of
 * those deletions, and each `DELETED` event, is fed as a possible leaving of the selection
 * (a `LeavingEvent`): a server reports an object that stops matching as deleted, with its
 * previous content, so only a read can tell. What a watch knows of each object is in the
 * object table (`reactor/objects/`): its version and identity, or its last full state where
 * deleted objects' bodies matter (see `ObserverOptions.keepsLastStates`).
 *
 * @module
 */

import type {
  BodySource,
  LeavingEvent,
  ObjectEvent,
  ObservedEvent,
  RawBody,
  RawMeta,
  WatchEventType,
} from "../../structs/bodies.ts";
import {
  asResourceObject,
  isPartialObjectMetadata,
  partialObjectMetadataOf,
} from "../../structs/metadata_only_bodies.ts";
import { deepCopy } from "../../settings/field_paths.ts";
import type { Clock } from "../../structs/clock.ts";
import { isAtLeastVersion, isNewerVersion, objectKey } from "../../structs/identities.ts";
import type { Resource } from "../../structs/resources.ts";
import { matchesFields, matchesLabels } from "../../structs/label_selectors.ts";
import type { ObjectVersion, WatchItem } from "../../client/watch.ts";
import type { WatchSelection } from "../../intents/watch_selections.ts";
import type { WatchedDimension } from "./observation_client.ts";
import type { ObjectEntry } from "../objects/object_entries.ts";
import type { ObjectTable } from "../objects/object_table.ts";

/** `settings.watching.listPatience` when no settings are given. */
const DEFAULT_LIST_PATIENCE = 120;

/** One watch of objects; what it knows of them is in the object table. */
export interface Watcher extends WatchedDimension {
  readonly id: string;
  readonly fingerprint: string;
  readonly controller: AbortController;
  /**
   * Whether the table keeps the objects' full last states for this watch (see
   * `ObserverOptions.keepsLastStates`); otherwise only their versions and identities.
   */
  readonly keeps: boolean;
  /** The watch's label and field selectors, if it has any. */
  readonly selection: WatchSelection | undefined;
  /**
   * For a watch of metadata only: where its objects' whole bodies are read. Its objects come
   * as `PartialObjectMetadata`; they are fed in their resource's `apiVersion` and `kind`,
   * their events carrying this source.
   */
  readonly source: BodySource | undefined;
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
  /** The version of the last complete listing. */
  listedAt?: string;
  /**
   * Where the operator's writes are told to the watch (see `WatchFeeder.told`): the objects
   * deleted since the last complete listing (by key), with the version of their deletion, the
   * latest {@link MAX_GONE}. A write's answer that comes after its object's deletion is not
   * taken for the object's state.
   */
  readonly gone?: Map<string, string>;
  listed: boolean;
  done?: Promise<void>;
}

/** What a {@link WatchFeeder} is made of. */
export interface WatchFeederOptions {
  /** Receives the events of all served objects; a promise pushes back. */
  readonly feed: (resource: Resource, event: ObservedEvent) => void | Promise<void>;
  /** `listPatience`: seconds for which a listing's parts wait for the feed's back-pressure. */
  readonly watching?: { readonly listPatience: number };
  /** The clock of the listings' patience. */
  readonly clock: Clock;
  /** A watch has fed its first full listing. */
  readonly onFirstListing: (watcher: Watcher) => void;
  /**
   * Whether the queueing takes a live `MODIFIED` state of a known object from its watch
   * event's text, unparsed (see `WatchFeeder.knows`). Never, if not given.
   */
  readonly takes?: (entry: ObjectEntry, object: ObjectVersion, text: string) => boolean;
  /** Where what the watches know of their objects is kept. */
  readonly table: ObjectTable;
}

/** Feeds the items of the objects' watches; see the module docs. */
export class WatchFeeder {
  readonly #feed: WatchFeederOptions["feed"];
  readonly #watching: WatchFeederOptions["watching"];
  readonly #clock: Clock;
  readonly #onFirstListing: WatchFeederOptions["onFirstListing"];
  readonly #table: ObjectTable;
  readonly #takes: WatchFeederOptions["takes"];

  /** A feeder into the given feed. */
  constructor(options: WatchFeederOptions) {
    this.#feed = options.feed;
    this.#takes = options.takes;
    this.#watching = options.watching;
    this.#clock = options.clock;
    this.#onFirstListing = options.onFirstListing;
    this.#table = options.table;
  }

  /**
   * Feed a watch's item; return the last promise the feed returned, to wait for before the
   * next item.
   */
  onItem(watcher: Watcher, item: WatchItem): Promise<void> | undefined {
    // A stopped watch tells of nothing more: its successor knows the objects now.
    if (watcher.controller.signal.aborted) return undefined;
    const { resource } = watcher;
    if (item.type !== "LISTED" && item.type !== "LISTING") {
      const { type, object } = item;
      const key = objectKey(object);
      // Beside a listing (see `consume`), a live watch tells of objects the listing has yet
      // to come to, or has come to with an older state.
      if (watcher.listing !== undefined) {
        const version = object.metadata?.resourceVersion;
        (watcher.during ??= new Map()).set(key, type === "DELETED" ? version ?? "" : STILL_THERE);
      }
      const source = partial(watcher, object);
      if (type !== "DELETED") {
        // Seen in this very version (or a newer one) already: a live watch that began before
        // a listing ended, or the listing itself, told of it.
        if (this.#remember(watcher, object)) return undefined;
        return promised(this.#feed(resource, eventOf(type, object, source)));
      }
      this.#table.unwatch(resource, object.metadata?.namespace, key);
      noteGone(watcher, key, object.metadata?.resourceVersion);
      // With selectors, the server reports an object that stops matching them as deleted,
      // with its previous content (which matches): only a read can tell (see RecallStage).
      const selection = watcher.selection;
      const event = isSelective(selection)
        ? leaving(selection, object, source)
        : eventOf(type, object, source);
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
      // that broke off and began anew) -- or in a newer one -- are not fed again.
      const source = partial(watcher, object);
      const unchanged = this.#remember(watcher, object);
      if (unchanged) continue;
      last = promised(this.#feed(resource, eventOf(null, object, source))) ?? last;
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
    watcher.listedAt = item.resourceVersion || undefined;
    watcher.gone?.clear();
    const first = !watcher.listed;
    for (const entry of this.#table.watched(resource, watcher.namespace)) {
      // Known in a state newer than the listing (a write's answer: see `told`), it may have
      // been made after the listing's snapshot: its absence tells nothing.
      if (!listed.has(entry.key) && !during?.has(entry.key) && !newer(entry, item)) {
        const object = entry.last ?? deletionNotice(resource, entry);
        this.#table.unwatch(resource, entry.namespace, entry.key);
        noteGone(watcher, entry.key, item.resourceVersion);
        // With selectors, it may have left them rather than been deleted: it is read to tell.
        const selection = watcher.selection;
        const event = isSelective(selection)
          ? leaving(selection, object, undefined)
          : eventOf("DELETED", object, undefined);
        last = promised(this.#feed(resource, event)) ?? last;
      }
    }
    if (first) {
      watcher.listed = true;
      this.#onFirstListing(watcher);
    }
    return last;
  }

  /**
   * Whether a live `MODIFIED` event of a known object needs no parsing here, told from its
   * identity and version before its text is parsed (`WatchObjectsOptions.knows`): the watch
   * knows the object in this version (or a newer one) already, as `onItem` would find; or
   * the queueing takes it from its text (see {@link WatchFeederOptions.takes}), and the
   * version is noted as `onItem` would note it. Not while a listing is in progress beside the
   * live watch (whose events it notes), nor where the watch keeps the objects' full states or
   * is of metadata only (both need the event's body here).
   */
  knows(watcher: Watcher, object: ObjectVersion, text: string): boolean {
    if (watcher.listing !== undefined || watcher.controller.signal.aborted) return false;
    const entry = this.#table.get(watcher.resource, object.namespace, object.uid);
    if (entry === undefined) return false;
    const version = object.resourceVersion;
    if (entry.told(version)) return true;
    const takes = this.#takes;
    if (watcher.keeps || watcher.source !== undefined || takes === undefined) return false;
    if (!takes(entry, object, text)) return false;
    entry.tell(version);
    return true;
  }

  /**
   * An object as a write of the operator's own answered it (see `client/written_objects.ts`):
   * fed as this watch's own event of it would be -- its later event of that version is then
   * passed over, and a listing without it tells of its deletion. Nothing if the watch's
   * selectors do not show it (the watch never would), if the watch knows that version or a
   * newer one already, or if it is metadata only and the watch is not. Metadata only where the
   * watch is.
   */
  told(watcher: Watcher, object: RawBody): Promise<void> | undefined {
    const selection = watcher.selection;
    if (selection !== undefined && !matchesSelection(selection, object)) return undefined;
    const metadataOnly = isPartialObjectMetadata(object);
    if (metadataOnly && watcher.source === undefined) return undefined;
    const known = this.#table.peek(watcher.resource, object)?.watched ?? false;
    // Deleted since: an answer that came after the deletion's event, or a listing without it.
    const version = object.metadata?.resourceVersion;
    const gone = watcher.gone?.get(objectKey(object));
    if (gone !== undefined && !isNewerVersion(version, gone)) return undefined;
    if (!known && isAtLeastVersion(watcher.listedAt, version ?? "")) return undefined;
    // A copy: the answer is the writer's too, who may change it, and a metadata-only one is
    // made its resource's kind in place as it is fed.
    const state = deepCopy(
      watcher.source === undefined || metadataOnly ? object : partialObjectMetadataOf(object),
    );
    // Not as a live event beside a listing (that one's fate a live watch tells): a listing
    // without it tells of its deletion once the listing is as new as this state.
    if (watcher.controller.signal.aborted || this.#remember(watcher, state)) return undefined;
    const type = known ? "MODIFIED" : "ADDED";
    return promised(this.#feed(watcher.resource, eventOf(type, state, partial(watcher, state))));
  }

  /**
   * Note in the table the object's state as the watch keeps it; true if the watch already
   * knew it in this very version, or a newer one (then nothing changes).
   */
  #remember(watcher: Watcher, object: RawBody): boolean {
    const entry = this.#table.entry(watcher.resource, object);
    if (!entry.tell(object.metadata?.resourceVersion)) return true;
    if (watcher.keeps) entry.last = remembered(object);
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
 * The body fed for a deletion missed in a gap when the table keeps no full state of the
 * object: its type and identity, and its last known version.
 */
function deletionNotice(resource: Resource, entry: ObjectEntry): RawBody {
  const { name, namespace, key, seen } = entry;
  // Without a uid, the key is `namespace/name` (see objectKey); otherwise it is the uid.
  const uid = key === `${namespace ?? ""}/${name ?? ""}` ? undefined : key;
  const metadata: RawMeta = {};
  if (name !== undefined) metadata.name = name;
  if (namespace !== undefined) metadata.namespace = namespace;
  if (uid !== undefined) metadata.uid = uid;
  if (seen !== undefined) metadata.resourceVersion = seen;
  return { apiVersion: resource.apiVersion, kind: resource.kind, metadata };
}

/**
 * Where the whole object is read, if the object is known by its metadata only; such an
 * object is then put in its resource's `apiVersion` and `kind` (in place: fresh from the
 * wire).
 */
function partial(watcher: Watcher, object: RawBody): BodySource | undefined {
  const source = watcher.source;
  if (source === undefined) return undefined;
  const { apiVersion, kind } = watcher.resource;
  return asResourceObject(object, apiVersion, kind) ? source : undefined;
}

/** The event of an object, with where it is read whole if it has only its metadata. */
function eventOf(
  type: WatchEventType,
  object: RawBody,
  source: BodySource | undefined,
): ObjectEvent {
  return source === undefined ? { type, object } : { type, object, source };
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

/** The event of an object that may have left the watch's selection. */
function leaving(
  selection: WatchSelection,
  object: RawBody,
  source: BodySource | undefined,
): LeavingEvent {
  const selects = (fresh: RawBody) => matchesSelection(selection, fresh);
  return source === undefined
    ? { type: "LEFT", object, selects }
    : { type: "LEFT", object, selects, source };
}

/** The most deletions a watch remembers between two listings (see {@link Watcher.gone}). */
const MAX_GONE = 1000;

/** Remember an object's deletion until the next complete listing, the latest ones only. */
function noteGone(watcher: Watcher, key: string, version: string | undefined): void {
  const gone = watcher.gone;
  if (gone === undefined || version === undefined || version === "") return;
  gone.delete(key);
  gone.set(key, version);
  if (gone.size > MAX_GONE) gone.delete(gone.keys().next().value!);
}

/** Whether the watch knows the object in a newer state than the listing's. */
function newer(entry: ObjectEntry, listing: { readonly resourceVersion: string }): boolean {
  return listing.resourceVersion !== "" && isNewerVersion(entry.seen, listing.resourceVersion);
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
