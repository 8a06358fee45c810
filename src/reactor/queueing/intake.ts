/**
 * The queue's intake: where the watches' events enter the queueing. Each is counted, goes
 * no further when the pipeline's gate says the object is another replica's and nothing
 * here needs it, is awaited by the indexing when an initial listing's, and is queued for its
 * object -- the promise of a full backlog handed back to the watch, to push back. The
 * children's watching queues their parents again through it too.
 *
 * @module
 */

import type { ObjectEvent, ObservedEvent } from "../../structs/bodies.ts";
import type { OperatorMetrics } from "../../structs/operator_metrics.ts";
import { resourceLabel } from "../../structs/metric_labels.ts";
import type { Resource } from "../../structs/resources.ts";
import type { ParentQueue } from "../observation/child_watching.ts";
import type { Multiplexer } from "./multiplexer.ts";
import type { ObjectEntry } from "../objects/object_entries.ts";
import { deferredEvent } from "../objects/deferred_states.ts";
import type { ObjectVersion } from "../../client/watch.ts";

/** What the intake asks of the pipeline before an event is queued. */
export interface Gate {
  /** Whether a state needs no processing here at all (another replica's object). */
  skips(resource: Resource, event: ObservedEvent): boolean;
  /** A state is queued: the handling may wait for it to be indexed (initial listings). */
  expect(resource: Resource, event: ObservedEvent): void;
  /**
   * Whether {@link skips} and {@link expect} look at nothing of a live state of the resource
   * but its identity and version (a deferred state has no more until it is processed).
   */
  judgesByIdentity(resource: Resource): boolean;
}

/** The queue's intake; see the module docs. */
export class Intake implements ParentQueue {
  readonly #gate: Gate;
  readonly #queue: Pick<Multiplexer, "push" | "passEcho">;
  readonly #metrics: OperatorMetrics | undefined;

  /** The intake of the queue, asking the gate, counting in the metrics (if any). */
  constructor(
    gate: Gate,
    queue: Pick<Multiplexer, "push" | "passEcho">,
    metrics: OperatorMetrics | undefined,
  ) {
    this.#gate = gate;
    this.#queue = queue;
    this.#metrics = metrics;
  }

  /** A watch's event: queued for its object, unless the gate skips it; see the module docs. */
  feed(resource: Resource, event: ObservedEvent): Promise<void> | undefined {
    this.#metrics?.eventsReceived.inc([resourceLabel(resource), event.type ?? "LISTED"]);
    if (this.#gate.skips(resource, event)) return undefined;
    this.#gate.expect(resource, event);
    return this.#queue.push(resource, event);
  }

  /**
   * Whether the queue takes a live `MODIFIED` state of the object from its watch event's
   * text, unparsed: passed by at once (see `Multiplexer.passEcho`), or queued for the
   * object's worker as a deferred state (`objects/deferred_states.ts`), parsed if it is
   * processed -- where the object has a worker, and the gate judges by nothing else. Counted
   * as received, as a fed state is. The backlog's push-back is not awaited for it: only an
   * object with a worker has one, and it replaces the state that worker waits with.
   */
  takes(entry: ObjectEntry, object: ObjectVersion, text: string): boolean {
    const resource = entry.resource;
    if (!this.#queue.passEcho(entry, object.resourceVersion)) {
      if (entry.work === undefined || !this.#gate.judgesByIdentity(resource)) return false;
      void this.#queue.push(resource, deferredEvent(object, text), false, entry);
    }
    this.#metrics?.eventsReceived.inc([resourceLabel(resource), "MODIFIED"]);
    return true;
  }

  /** Whether the gate skips a parent's state (another replica's parent). */
  skips(resource: Resource, event: ObjectEvent): boolean {
    return this.#gate.skips(resource, event);
  }

  /** Queue a parent's state again for its children's changes; a state waiting is kept. */
  requeue(resource: Resource, event: ObjectEvent): void {
    void this.#queue.push(resource, event, true);
  }
}
