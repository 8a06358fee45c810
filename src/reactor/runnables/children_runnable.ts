/**
 * The children of the served parents (`kopf.on.child`), watched apart from the served
 * resources: per child resource and namespace, a watch of metadata only, selecting by the
 * label `kopf.zalando.org/owner-kind` that `kopf.adopt()` puts on the children it adopts
 * (unless a handler takes `unlabelled` children too). A child's change is noted for each
 * parent its owner references name (see `engines/child_changes.ts`), and the parent is
 * processed again with its current state, read from the API: the child stage of its
 * pipeline runs the child handlers. Children found by a watch's first listing change
 * nothing (they are the state at start; `kopf.on.resume` of the parent is for that); later
 * re-listings' changes count. Nothing is noted before the served resources are listed, so
 * that a parent is never processed ahead of its listing.
 *
 * @module
 */

import type { LeavingEvent, ObjectEvent, RawBody } from "../../structs/bodies.ts";
import type { Resource } from "../../structs/resources.ts";
import { sleep } from "../../structs/clock.ts";
import { ConfigurationError } from "../../structs/errors.ts";
import { typoMessage } from "../../structs/resource_suggestions.ts";
import type { LabelRequirement } from "../../structs/label_selectors.ts";
import { OWNER_KIND_LABEL, ownerKindLabel } from "../../structs/owner_labels.ts";
import { asResourceObject, bodySourceOf } from "../../structs/metadata_only_bodies.ts";
import { readSameObject } from "../../client/same_objects.ts";
import { type WatchSelection, watchSelection } from "../../intents/watch_selections.ts";
import type { ChildEventType } from "../../intents/kwargs.ts";
import {
  type ChildChanges,
  parentKindKey,
  type ParentRef,
  parentsOf,
} from "../../engines/child_changes.ts";
import { observationClient, type WatchedDimension } from "../observation/observation_client.ts";
import { Observer } from "../observation/observer.ts";
import type { OperatorParts } from "../operator_parts.ts";
import type { Reactions, RunContext, Runnable } from "../manager.ts";
import type { ClientRunnable } from "./client_runnable.ts";
import type { ObservationRunnable } from "./observation_runnable.ts";
import type { PeeringRunnable } from "./peering_runnable.ts";
import type { ProcessingRunnable } from "./processing_runnable.ts";
import type { QueueingRunnable } from "./queueing_runnable.ts";

/** What the children's watching feeds and consults. */
export interface ChildrenNeeds {
  /** The API client and discovery. */
  readonly client: ClientRunnable;
  /** The peering: a paused operator does not watch. */
  readonly peering: PeeringRunnable;
  /** The processing: which parents are another replica's. */
  readonly processing: ProcessingRunnable;
  /** The queueing, where the parents are processed again. */
  readonly queueing: QueueingRunnable;
  /** The observation of the parents: none is processed again before they are listed. */
  readonly observation: ObservationRunnable;
}

/** How long a parent's read is retried after failures, at most, between attempts (s). */
const READ_BACKOFF_LIMIT = 30;

/** The watches of the served parents' children; see the module docs. */
export class ChildrenRunnable implements Runnable {
  readonly name = "children";
  readonly after: readonly Runnable[];
  readonly #parts: OperatorParts;
  readonly #needs: ChildrenNeeds;
  readonly #changes: ChildChanges;
  readonly #observing = new AbortController();
  /** The parent resources by `group/Kind`, as last discovered. */
  #parents = new Map<string, Resource>();
  /** The owner-kind label values of each child resource's parents, by its key. */
  #labels = new Map<string, readonly string[]>();
  /** The watches whose first listing is over (by resource key and namespace). */
  readonly #listed = new Set<string>();
  /** The parents named by each known child (by key): a deletion may come without them. */
  readonly #owners = new Map<string, readonly ParentRef[]>();
  /** The parents being read to be processed again (by uid): asked again meanwhile? */
  readonly #reading = new Map<string, boolean>();
  /** Whether the served resources are listed: no parent is processed before. */
  #servedListed = false;
  #observer: Observer | undefined;
  #running: Promise<void> | undefined;

  /** The children's watching of the operator; `changes` is where their changes wait. */
  constructor(parts: OperatorParts, needs: ChildrenNeeds, changes: ChildChanges) {
    this.#parts = parts;
    this.#needs = needs;
    this.#changes = changes;
    this.after = [
      needs.client,
      needs.peering,
      needs.processing,
      needs.queueing,
      needs.observation,
    ];
  }

  /** Pause and resume with the peering. */
  readonly reactions: Reactions = {
    paused: () => this.#observer?.pause(),
    resumed: () => this.#observer?.resume(),
  };

  /** Start watching the children. */
  start(context: RunContext): void {
    const observer = this.#observer = this.#makeObserver();
    if (this.#needs.peering.paused) observer.pause();
    void this.#needs.observation.listed.then(() => this.#servedListed = true);
    const running = this.#running = observer.run(this.#observing.signal);
    running.then(
      () => {
        if (!this.#observing.signal.aborted) {
          context.fail(new Error("The watching of children has ended by itself."));
        }
      },
      (error) => context.fail(error),
    );
  }

  /** Stop watching. */
  halt(): void {
    this.#observing.abort();
  }

  /** Wait for the watches to end. */
  async stop(): Promise<void> {
    await this.#running?.catch(() => {});
  }

  #makeObserver(): Observer {
    const { settings, clock, logger, scope } = this.#parts;
    const { client } = this.#needs;
    return new Observer({
      client: observationClient(client.api, client.discovery),
      scope,
      clock,
      select: (discovered) => this.#select(discovered),
      feed: (resource, event) =>
        event.type === "LEFT" ? void this.#confirm(resource, event) : this.#feed(resource, event),
      selection: (resource) => this.#selection(resource),
      onListed: (dimension) => this.#listed.add(dimensionKey(dimension)),
      scanning: settings.scanning,
      watching: settings.watching,
      logger,
    });
  }

  /** The child resources among the discovered ones; the parents and their labels noted. */
  #select(discovered: readonly Resource[]): readonly Resource[] {
    const { matcher, logger } = this.#parts;
    const handlers = matcher.childHandlers();
    const parents = new Map<string, Resource>();
    const labels = new Map<string, Set<string>>();
    const children = new Map<string, Resource>();
    for (const handler of handlers) {
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
  #selection(resource: Resource): WatchSelection {
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

  /** A child's state from its watch: noted for its parents, which are processed again. */
  #feed(resource: Resource, event: ObjectEvent): undefined {
    const child = event.object;
    const key = childKey(resource, child);
    let type: ChildEventType | undefined;
    if (event.type === "DELETED") type = "DELETED";
    else if (event.type !== null) type = event.type;
    else if (this.#relisted(resource, child)) type = "MODIFIED"; // changed while not watched
    else type = undefined; // the state at the start: nothing changed
    // Any owner: the child stage checks each handler's `anyOwner`.
    let parents = parentsOf(child, this.#parents);
    if (type === "DELETED") {
      if (parents.length === 0) parents = [...this.#owners.get(key) ?? []];
      this.#owners.delete(key);
    } else if (parents.length > 0) {
      this.#owners.set(key, parents);
    } else {
      this.#owners.delete(key);
    }
    if (type === undefined) return undefined;
    if (!this.#servedListed) return undefined;
    for (const parent of parents) {
      if (this.#changes.add(parent.uid, { resource, event: type, child })) {
        void this.#process(parent);
      }
    }
    return undefined;
  }

  /**
   * A child that may have left its watch's selection (its `DELETED` on a watch with a
   * selector carries its previous content, which still matches): a read tells. Gone, or a
   * namesake there instead: a deletion. Back in the selection: nothing (its watch tells of it
   * again). Else a change, with its state now. A failed read is taken for a change.
   */
  async #confirm(resource: Resource, event: LeavingEvent): Promise<void> {
    const child = event.object;
    let now: RawBody | undefined = child;
    try {
      now = await readSameObject(this.#needs.client.api, resource, child, {
        signal: this.#observing.signal,
        metadataOnly: true,
      });
    } catch (error) {
      if (this.#observing.signal.aborted) return;
      const { name, namespace } = child.metadata ?? {};
      this.#parts.logger.warning(
        `Could not read ${resource.plural} ${namespace ?? ""}/${name} to tell whether it was ` +
          `deleted: ${(error as Error).message}; taken for a change.`,
      );
    }
    if (now === undefined) return this.#feed(resource, { type: "DELETED", object: child });
    if (now !== child && event.selects(now)) return;
    const source = bodySourceOf(child);
    const body = now === child || source === undefined
      ? now
      : asResourceObject(now, resource.apiVersion, resource.kind, source);
    this.#feed(resource, { type: "MODIFIED", object: body });
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
    if (this.#reading.has(parent.uid)) {
      this.#reading.set(parent.uid, true);
      return;
    }
    const signal = this.#observing.signal;
    try {
      do {
        this.#reading.set(parent.uid, false);
        const body = await this.#read(parent, signal);
        if (body === undefined) {
          this.#changes.forget(parent.uid); // gone, or re-created: not the children's parent
          return;
        }
        const event: ObjectEvent = { type: "MODIFIED", object: body };
        if (this.#needs.processing.processor.skips(parent.resource, event)) {
          this.#changes.forget(parent.uid); // another replica's parent
          return;
        }
        void this.#needs.queueing.multiplexer.push(parent.resource, event, true);
      } while (this.#reading.get(parent.uid) && !signal.aborted);
    } finally {
      this.#reading.delete(parent.uid);
    }
  }

  /**
   * The parent's current state; none if it is gone (or re-created: another uid is not the
   * children's parent); retried with a capped backoff.
   */
  async #read(parent: ParentRef, signal: AbortSignal): Promise<RawBody | undefined> {
    const { logger, clock } = this.#parts;
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        const { name, namespace, uid } = parent;
        const known: RawBody = { metadata: { name, namespace, uid } };
        return await readSameObject(this.#needs.client.api, parent.resource, known, { signal });
      } catch (error) {
        if (signal.aborted) return undefined;
        const delay = Math.min(2 ** attempt, READ_BACKOFF_LIMIT);
        logger.warning(
          `Could not read ${parent.resource.plural} ${parent.namespace ?? ""}/${parent.name} ` +
            `for its children's changes: ${(error as Error).message}; again in ${delay}s.`,
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
