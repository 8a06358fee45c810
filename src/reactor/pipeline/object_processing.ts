/**
 * One processing of one state of one object: the context that every stage of the pipeline
 * works on ({@link Stage}), and what comes of it ({@link Reconciliation}). Made once per
 * processed state, in place of the arguments and closures each step would otherwise need.
 *
 * @module
 */

import type { BodySource, ObservedEvent, RawBody } from "../../structs/bodies.ts";
import type { Index } from "../../structs/indices.ts";
import type { ObjectLogger } from "../../structs/loggers.ts";
import type { ObjectReference } from "../../structs/object_refs.ts";
import { Patch } from "../../structs/patches.ts";
import type { Resource } from "../../structs/resources.ts";
import type { FinalizerChange } from "../../handling/application.ts";
import type { CycleTarget } from "../../handling/changing.ts";
import type { ObjectEntry } from "../objects/object_entries.ts";
import { createObjectScope, type ObjectScope } from "../../handling/object_loggers.ts";

/**
 * What a processing asks of its caller: what the queueing does with the object next (the
 * reconciler's answer, as kube-runtime's `Action` or controller-runtime's `Result`).
 */
export interface Reconciliation {
  /**
   * The `resourceVersion` from the response of the last patch made to the object. Older
   * states are then not processed until this one arrives (or the consistency timeout).
   */
  readonly expectedResourceVersion?: string;
  /**
   * Seconds after which the object's latest state is processed again even if no newer
   * event arrives (e.g. when a delayed handler becomes due); a newer event comes first
   * if it arrives earlier.
   */
  readonly delay?: number;
  /**
   * The versions our writes made (`ApplyResult.versions`), when the states they
   * made need no processing of their own: this processing left nothing to do -- its
   * handlers all done and their outcome stored, or nothing to do at all -- and no stage of
   * the resource acts on every state (no event, index, daemon, timer or child handlers).
   * Processed, such a state would come to nothing; the queueing lets its event pass
   * unprocessed, if every event of the object since the processed state is one of these.
   */
  readonly echoes?: readonly string[];
}

/**
 * Waits for a promise without holding a place among the processings of objects (e.g. for
 * other objects to be processed first); the place is taken again afterwards.
 */
export type AsideWait = (promise: Promise<void>) => Promise<void>;

/** A wait that keeps the worker's place: when no queueing gives a way to wait aside. */
export const waitInPlace: AsideWait = (promise) => promise;

/** One step of the per-object pipeline. */
export interface Stage {
  /** What the stage does, for the docs and the traces. */
  readonly name: string;
  /**
   * Work on the object's state; `false` ends its processing here (with what the
   * processing has come to so far, see {@link ObjectProcessing.result}).
   */
  run(processing: ObjectProcessing): boolean | Promise<boolean>;
}

/** The context of one processing; see the module docs. */
export class ObjectProcessing implements CycleTarget {
  /** The object's resource. */
  readonly resource: Resource;
  /**
   * The event being processed (its type: `null` for a listing, `DELETED` for the end, `LEFT`
   * for an object that may have left its watch's selection); an object that left and
   * turned out to be deleted becomes a `DELETED`.
   */
  event: ObservedEvent;
  /** Aborted when the processing must give up (the operator's stop). */
  readonly signal: AbortSignal | undefined;
  /** Waits without holding a place among the processings. */
  readonly aside: AsideWait;
  /** The operator's declared indices by name, given to the handlers. */
  readonly indices: Readonly<Record<string, Index>> | undefined;
  /** Where the changes of all stages accumulate, applied by the last stage. */
  readonly patch: Patch = new Patch();
  /** What the operator knows of the object, its memory among it: set by the first stage. */
  memory!: ObjectEntry;
  /** The object's state being processed (it may be read afresh, or be our stored one). */
  body: RawBody;
  /**
   * For a state known by its metadata only (a metadata-only watch's, or our write's answer
   * to one): where the whole object is read. None for a whole state.
   */
  source: BodySource | undefined;
  /** Whether this replica handles the object (leader election, sharding); else only indexed. */
  owned = true;
  /** Daemons or timers of the object are exiting: its changing handlers wait for them. */
  spawningStops = false;
  /** What the finalizer should become: added, removed, or left. */
  finalizerChange: FinalizerChange | undefined = undefined;
  /** The changes to apply instead of the patch if a finalizer's removal is refused. */
  fallback: Patch | undefined = undefined;
  /** The handlers run, whose outcomes the patch holds. */
  ran: readonly string[] = NONE;
  /**
   * The handlers whose progress records the patch holds for a cause not done yet: the
   * stored object must show them, or they would run again (see `StoringStage`).
   */
  recorded: readonly string[] = NONE;
  /**
   * Set by the changing stage when the state our writes make will leave it nothing to do:
   * the handlers of the cause are all done and stored with the diff-base, or there was
   * nothing to do (see {@link Reconciliation.echoes}).
   */
  settles = false;
  /** The object's logger and reference: made when first asked (an echo's cycle may not). */
  #scope: (ObjectScope & { readonly ref: ObjectReference }) | undefined = undefined;
  #delay: number | undefined = undefined;
  #expected: string | undefined = undefined;
  #written: readonly string[] | undefined = undefined;
  #final: Reconciliation | undefined = undefined;

  /** The processing of one event of an object of the resource. */
  constructor(
    resource: Resource,
    event: ObservedEvent,
    signal: AbortSignal | undefined,
    aside: AsideWait,
    indices: Readonly<Record<string, Index>> | undefined,
  ) {
    this.resource = resource;
    this.event = event;
    this.signal = signal;
    this.aside = aside;
    this.indices = indices;
    this.body = event.object;
    this.source = event.source;
  }

  /** The object's logger (posting Kubernetes Events at the posting level). */
  get logger(): ObjectLogger {
    return (this.#scope ??= createObjectScope(this.body)).logger;
  }

  /** The object's reference, shared by its loggers and scope. */
  get ref(): ObjectReference {
    return (this.#scope ??= createObjectScope(this.body)).ref;
  }

  /** Whether the object is gone from the cluster (a `DELETED` event). */
  get gone(): boolean {
    return this.event.type === "DELETED";
  }

  /**
   * Whether the object left the selection of its watch (see `LeavingEvent`): still there,
   * once the first stage has confirmed it.
   */
  get left(): boolean {
    return this.event.type === "LEFT";
  }

  /** The object that left its watch's selection is found deleted: a deletion from now on. */
  becomeGone(): void {
    this.event = { type: "DELETED", object: this.body };
  }

  /**
   * Go on with another state of the object (read afresh, or the one our write produced):
   * a whole one, unless a source says where its whole object is read.
   */
  moveTo(body: RawBody, source?: BodySource): void {
    this.body = body;
    this.source = source;
    this.#scope = undefined;
  }

  /** Process the object again after this many seconds at the latest. */
  revisitIn(seconds: number): void {
    if (this.#delay === undefined || seconds < this.#delay) this.#delay = seconds;
  }

  /**
   * Our writes produced these `resourceVersion`s, the last one last: older states are not
   * processed again.
   */
  wrote(version: string | undefined, versions?: readonly string[]): void {
    this.#expected = version;
    this.#written = versions;
  }

  /** End the processing here with this answer, whatever the stages noted; `false`. */
  finish(result: Reconciliation = NOTHING): false {
    this.#final = result;
    return false;
  }

  /**
   * What comes of the processing. `quiet` tells whether the states our writes made need
   * nothing from the other stages either (see {@link Reconciliation.echoes}): asked only
   * when this processing wrote and settles, not for every state.
   */
  result(quiet?: (processing: ObjectProcessing) => boolean): Reconciliation {
    if (this.#final !== undefined) return this.#final;
    if (this.#expected === undefined && this.#delay === undefined) return NOTHING;
    const result: { expectedResourceVersion?: string; delay?: number; echoes?: readonly string[] } =
      {};
    if (this.#expected !== undefined) result.expectedResourceVersion = this.#expected;
    if (this.#delay !== undefined) result.delay = this.#delay;
    const written = this.#written;
    const settled = this.settles && this.#delay === undefined && written !== undefined &&
      this.finalizerChange === undefined && !this.gone && !this.left;
    if (settled && quiet?.(this)) result.echoes = written;
    return result;
  }
}

const NONE: readonly string[] = Object.freeze([]);

/** The answer of most processings: nothing more to do (one for all, not one per event). */
const NOTHING: Reconciliation = Object.freeze({});
