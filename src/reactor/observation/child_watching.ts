/**
 * What the watches of children (`kopf.on.child`) do with what they see: which child
 * resources to watch, and with which selector (the label `kopf.zalando.org/owner-kind`
 * that `kopf.adopt()` puts on the children it adopts, unless a handler takes `unlabelled`
 * children too); each child's change noted for every parent its owner references name (see
 * `engines/child_changes.ts`), and the parent queued again with its current state, read
 * from the API, for the child stage of its pipeline to run the child handlers. Children
 * found by a watch's first listing change nothing (they are the state at start;
 * `kopf.on.resume` of the parent is for that); later re-listings' changes count, and so do
 * the changes of the children the operator wrote itself (it knows them from the answers).
 * A parent is never processed ahead of its listing: the changes noted before the served
 * resources are listed wait for it (or for the parent's own processing). The runnable
 * (`runnables/children_runnable.ts`) only wires this to a watch and to the queueing.
 *
 * @module
 */

import type { LeavingEvent, ObjectEvent, ObservedEvent, RawBody } from "../../structs/bodies.ts";
import type { Resource } from "../../structs/resources.ts";
import { Backoff } from "../../structs/backoffs.ts";
import { type Clock, sleep } from "../../structs/clock.ts";
import { ConfigurationError } from "../../structs/errors.ts";
import type { Logger } from "../../structs/loggers.ts";
import { typoMessage } from "../../structs/resource_suggestions.ts";
import type { LabelRequirement } from "../../structs/label_selectors.ts";
import { OWNER_KIND_LABEL, ownerKindLabel } from "../../structs/owner_labels.ts";
import { asResourceObject } from "../../structs/metadata_only_bodies.ts";
import type { ApiClient } from "../../client/api.ts";
import { readSameObject } from "../../client/same_objects.ts";
import type { HandlerMatcher } from "../../intents/handler_matching.ts";
import { type WatchSelection, watchSelection } from "../../intents/watch_selections.ts";
import type { ChildEventType } from "../../intents/kwargs.ts";
import {
  type KnownOwners,
  knownOwners,
  ownerReferencesOf,
  parentKindKey,
  type ParentRef,
  parentsOf,
} from "../../engines/child_changes.ts";
import type { ChildChanges } from "../objects/parent_changes.ts";
import type { WatchedDimension } from "./observation_client.ts";

/** Where the parents of changed children go to be processed again. */
export interface ParentQueue {
  /** Whether a parent's state needs no processing here (another replica's parent). */
  skips(resource: Resource, event: ObjectEvent): boolean;
  /** Queue the parent's state again; a state of it already waiting is kept. */
  requeue(resource: Resource, event: ObjectEvent): void;
}

/** What a {@link ChildWatching} is made of. */
export interface ChildWatchingOptions {
  /** The handlers: the child handlers among them. */
  readonly matcher: HandlerMatcher;
  /** The API client: children and parents are read with it. */
  readonly api: ApiClient;
  /** Where the children's changes wait for their parents. */
  readonly changes: ChildChanges;
  /** Where the parents go. */
  readonly parents: ParentQueue;
  /** Aborted when the watching stops: reads and their retries end. */
  readonly signal: AbortSignal;
  /** The clock of the retries. */
  readonly clock: Clock;
  /** Where to report. */
  readonly logger: Logger;
}

/**
 * The pauses between failed reads of a parent: the shared capped backoff, from a second up
 * to half a minute.
 */
const READ_BACKOFF = { initial: 1, cap: 30, jitter: 0.5 } as const;

/** The children's side of their watches; see the module docs. */
export class ChildWatching {
  readonly #options: ChildWatchingOptions;
  /** The parent resources by `group/Kind`, as last discovered. */
  #parents = new Map<string, Resource>();
  /** The owner-kind label values of each child resource's parents, by its key. */
  #labels = new Map<string, readonly string[]>();
  /** The watches whose first listing is over (by resource key and namespace). */
  readonly #listed = new Set<string>();
  /**
   * The parents named by each known child (by key), and its owner references as last seen: a
   * deletion may come without them (noticed in a re-listing, it carries no state).
   */
  readonly #owners = new Map<string, KnownOwners>();
  /** The parents being read to be processed again (by uid): asked again meanwhile? */
  readonly #reading = new Map<string, boolean>();
  /** Whether the served resources are listed: no parent is processed before. */
  #servedListed = false;
  /** The parents with changes noted before the served resources were listed (by uid). */
  readonly #deferred = new Map<string, ParentRef>();

  /** The watching of children for the given handlers. */
  constructor(options: ChildWatchingOptions) {
    this.#options = options;
  }

  /**
   * The served resources are listed: the parents with changes noted meanwhile are processed,
   * and from now on, each change reaches its parents at once.
   */
  servedListed(): void {
    this.#servedListed = true;
    for (const parent of this.#deferred.values()) void this.#process(parent);
    this.#deferred.clear();
  }

  /** A watch of children has fed its first listing. */
  listed(dimension: WatchedDimension): void {
    this.#listed.add(dimensionKey(dimension));
  }

  /** The child resources among the discovered ones; the parents and their labels noted. */
  select(discovered: readonly Resource[]): readonly Resource[] {
    const { matcher, logger } = this.#options;
    const parents = new Map<string, Resource>();
    const labels = new Map<string, Set<string>>();
    const children = new Map<string, Resource>();
    for (const handler of matcher.childHandlers()) {
      const served = handler.selector.select(discovered).resources;
      const childResources = handler.childSelector.select(discovered).resources;
      if (childResources.length === 0) {
        const typo = typoMessage(
          handler.childSelector,
          discovered,
          `the children of kopf.on.child handler ${handler.id}`,
        );
        if (typo !== undefined) throw new ConfigurationError(typo);
        logger.warning(
          `No served resource matches the children ${handler.childSelector} of ` +
            `kopf.on.child handler ${handler.id} yet; they are watched once one appears.`,
        );
      }
      for (const parent of served) parents.set(parentKindKey(parent.group, parent.kind), parent);
      for (const child of childResources) {
        if (!(child.verbs.length === 0 || child.verbs.includes("watch"))) continue;
        children.set(child.key, child);
        const values = labels.get(child.key) ?? new Set<string>();
        labels.set(child.key, values);
        for (const parent of served) {
          const value = handler.unlabelled ? undefined : ownerKindLabel(parent.kind, parent.group);
          // One parent kind without a label value (or a handler taking unlabelled children)
          // means no label selector for that child resource.
          values.add(value ?? "");
        }
      }
    }
    this.#parents = parents;
    this.#labels = new Map(
      [...labels].map(([key, values]) => [key, values.has("") ? [] : [...values].sort()]),
    );
    return [...children.values()];
  }

  /** What a child resource's watch asks for: the owner-kind label of its parents' kinds. */
  selection(resource: Resource): WatchSelection {
    const values = this.#labels.get(resource.key) ?? [];
    const labels: LabelRequirement[] = values.length === 0
      ? []
      : [{ key: OWNER_KIND_LABEL, op: "in", values }];
    return watchSelection(
      labels,
      [],
      true,
      values.length === 0
        ? "the children of kopf.on.child handlers, labelled or not (unlabelled); metadata only"
        : "the children of kopf.on.child handlers, by the label kopf.adopt() sets; metadata only",
    );
  }

  /** What a child's watch tells: a possible leaving is read first; the rest is noted. */
  feed(resource: Resource, event: ObservedEvent): void {
    if (event.type === "LEFT") void this.#confirm(resource, event);
    else this.#note(resource, event);
  }

  /** A child's state from its watch: noted for its parents, which are processed again. */
  #note(resource: Resource, event: ObjectEvent): void {
    let child = event.object;
    const key = childKey(resource, child);
    let type: ChildEventType | undefined;
    if (event.type === "DELETED") type = "DELETED";
    else if (event.type !== null) type = event.type;
    // Changed while not watched: a re-listing's, or one of a child known already (from the
    // part of a listing that broke off, or from the operator's own write) in an older state.
    else if (this.#relisted(resource, child) || this.#owners.has(key)) type = "MODIFIED";
    else type = undefined; // the state at the start: nothing changed
    // Any owner: the child stage checks each handler's `anyOwner`.
    let parents = parentsOf(child, this.#parents);
    if (type === "DELETED") {
      const known = this.#owners.get(key);
      if (parents.length === 0 && known !== undefined) {
        parents = [...known.parents];
        // As a watch's DELETED carries them, so that the handlers see whose child it was.
        const ownerReferences = ownerReferencesOf(known);
        child = { ...child, metadata: { ...child.metadata, ownerReferences } };
      }
      this.#owners.delete(key);
    } else if (parents.length > 0) {
      this.#owners.set(key, knownOwners(child, parents));
    } else {
      this.#owners.delete(key);
    }
    if (type === undefined) return;
    for (const parent of parents) {
      const change = { resource, event: type, child, source: event.source };
      if (!this.#options.changes.add(parent, change)) continue;
      // Before the served resources are listed, the parent waits: then it is processed.
      if (this.#servedListed) void this.#process(parent);
      else this.#deferred.set(parent.uid, parent);
    }
  }

  /**
   * A child that may have left its watch's selection (its `DELETED` on a watch with a
   * selector carries its previous content, which still matches): a read tells. Gone, or a
   * namesake there instead: a deletion. Back in the selection: nothing (its watch tells of it
   * again). Else a change, with its state now. A failed read is taken for a change.
   */
  async #confirm(resource: Resource, event: LeavingEvent): Promise<void> {
    const { api, signal, logger } = this.#options;
    const child = event.object;
    let now: RawBody | undefined = child;
    try {
      now = await readSameObject(api, resource, child, { signal, metadataOnly: true });
    } catch (error) {
      if (signal.aborted) return;
      const { name, namespace } = child.metadata ?? {};
      logger.warning(
        `Could not read ${resource.plural} ${namespace ?? ""}/${name} to tell whether it was ` +
          `deleted: ${(error as Error).message}; taken for a change.`,
      );
    }
    if (now === undefined) return this.#note(resource, { type: "DELETED", object: child });

    if (now !== child && event.selects(now)) return;
    // Read as metadata: in its resource's kind, with the source of its watch.
    const partial = now !== child && asResourceObject(now, resource.apiVersion, resource.kind);
    const source = now === child || partial ? event.source : undefined;
    this.#note(resource, { type: "MODIFIED", object: now, ...(source ? { source } : {}) });
  }

  /** Whether a listed state is a re-listing's: its watch has listed once before. */
  #relisted(resource: Resource, child: RawBody): boolean {
    return this.#listed.has(dimensionKey({ resource, namespace: child.metadata?.namespace })) ||
      this.#listed.has(dimensionKey({ resource, namespace: undefined }));
  }

  /**
   * Process the parent again with its current state (read), unless it is gone or not ours.
   * Asked again while it is being read, it is read again afterwards.
   */
  async #process(parent: ParentRef): Promise<void> {
    const { changes, parents, signal } = this.#options;
    if (this.#reading.has(parent.uid)) {
      this.#reading.set(parent.uid, true);
      return;
    }
    try {
      do {
        this.#reading.set(parent.uid, false);
        const body = await this.#read(parent);
        if (body === undefined) {
          changes.forget(parent); // gone, or re-created: not the children's parent
          return;
        }
        const event: ObjectEvent = { type: "MODIFIED", object: body };
        if (parents.skips(parent.resource, event)) {
          changes.forget(parent); // another replica's parent
          return;
        }
        parents.requeue(parent.resource, event);
      } while (this.#reading.get(parent.uid) && !signal.aborted);
    } finally {
      this.#reading.delete(parent.uid);
    }
  }

  /**
   * The parent's current state; none if it is gone (or re-created: another uid is not the
   * children's parent); retried with the shared capped backoff.
   */
  async #read(parent: ParentRef): Promise<RawBody | undefined> {
    const { api, signal, clock, logger } = this.#options;
    const backoff = new Backoff({ ...READ_BACKOFF, clock });
    while (!signal.aborted) {
      try {
        const { name, namespace, uid } = parent;
        const known: RawBody = { metadata: { name, namespace, uid } };
        return await readSameObject(api, parent.resource, known, { signal });
      } catch (error) {
        if (signal.aborted) return undefined;
        const delay = backoff.next();
        logger.warning(
          `Could not read ${parent.resource.plural} ${parent.namespace ?? ""}/${parent.name} ` +
            `for its children's changes: ${(error as Error).message}; again in ` +
            `${delay.toFixed(1)}s.`,
        );
        await sleep(delay, signal, clock);
      }
    }
    return undefined;
  }
}

function dimensionKey(dimension: WatchedDimension): string {
  return `${dimension.resource.key}\u0000${dimension.namespace ?? ""}`;
}

function childKey(resource: Resource, child: RawBody): string {
  const meta = child.metadata;
  return `${resource.key}\u0000${meta?.namespace ?? ""}\u0000${meta?.name ?? ""}`;
}
