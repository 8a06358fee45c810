/**
 * The resource-changing handling of the object's state: its cause is detected
 * (`handling/cause_detection.ts`); our finalizer is added in a cycle of its own, before any
 * handler runs, when a matching handler requires it, and removed when none does any more --
 * or when the delete handlers are all done. Objects that match no handler's filters are
 * handled in stealth: nothing is written and nothing is logged about them. The handlers due
 * for the cause run (`handling/changing.ts`); when all are done, the diff-base is stored,
 * the progress purged, and the object counts as fully handled. After a cycle, or an event
 * with nothing to do, the standard status conditions are put into the patch
 * (`status_conditions.ts`).
 *
 * @module
 */

import type { RawBody } from "../../structs/bodies.ts";
import type { Clock } from "../../structs/clock.ts";
import { diff } from "../../structs/diffs.ts";
import { resolve } from "../../structs/dicts.ts";
import type { ObjectLogger } from "../../structs/loggers.ts";
import { PRESENT } from "../../structs/markers.ts";
import type { OperatorMetrics } from "../../structs/operator_metrics.ts";
import { type Essences, loadEssences } from "../../settings/essences.ts";
import { isThenable } from "../../structs/thenables.ts";
import type { OperatorSettings } from "../../settings/operator_settings.ts";
import type { Cause } from "../../intents/causes.ts";
import {
  type HandlerFilters,
  KwargsCache,
  matchesFilters,
  matchesValue,
} from "../../intents/filters.ts";
import type { CauseMatch, HandlerMatcher } from "../../intents/handler_matching.ts";
import type { ChangingHandler } from "../../intents/handlers.ts";
import { buildResourceKwargs } from "../../intents/kwargs_builders.ts";
import type { LifeCycleFn } from "../../intents/lifecycles.ts";
import type { Reason } from "../../intents/reasons.ts";
import {
  capitalize,
  detectCause,
  HANDLER_REASONS,
  hasFinalizer,
  isDeletionOngoing,
  TITLES,
} from "../../handling/cause_detection.ts";
import { causeMatch, type CycleContext, runChangingCycle } from "../../handling/changing.ts";
import type { Spawner } from "../../engines/daemons.ts";
import type { ObjectProcessing, Stage } from "./object_processing.ts";
import { StatusConditions } from "./status_conditions.ts";

/** What the changing handling needs of the operator. */
export interface ChangingStageOptions {
  /** The handlers' matching. */
  readonly matcher: HandlerMatcher;
  /** The settings: the finalizer, the storages. */
  readonly settings: OperatorSettings;
  /** The clock of the progress records. */
  readonly clock: Clock;
  /** Where handler runs are counted. */
  readonly metrics: OperatorMetrics | undefined;
  /** Which due handlers run per cycle. */
  readonly lifecycle: LifeCycleFn | undefined;
  /** The daemons and timers, whose resources keep our finalizer while they run. */
  readonly spawner: Spawner | undefined;
}

/** A cause, with what its handlers' selection and the finalizer look at. */
interface Detected {
  readonly cause: Cause;
  readonly match: CauseMatch;
  /** Delete handlers without our finalizer (optional ones), if they apply. */
  readonly optional: readonly ChangingHandler[] | undefined;
  /** The stored diff-base holds plain values where digests belong: store it anew. */
  readonly rewrite: boolean;
}

/** Detect the cause and run its handlers; see the module docs. */
export class ChangingStage implements Stage {
  readonly name = "changing handlers";
  readonly #options: ChangingStageOptions;
  readonly #cycle: CycleContext;
  readonly #conditions: StatusConditions;

  /** The stage over the operator's handlers and settings. */
  constructor(options: ChangingStageOptions) {
    this.#options = options;
    this.#conditions = new StatusConditions(options.settings.conditions, options.clock);
    this.#cycle = {
      settings: options.settings,
      clock: options.clock,
      metrics: options.metrics,
      lifecycle: options.lifecycle,
    };
  }

  /** The cause's handling, unless daemons are still exiting (the handlers wait for them). */
  run(processing: ObjectProcessing): boolean | Promise<boolean> {
    if (processing.spawningStops) return true;
    const { matcher, settings, spawner } = this.#options;
    if (processing.left) {
      // Out of the watch's selection, the object would keep our finalizer for ever.
      if (hasFinalizer(processing.body, settings.persistence.finalizer)) {
        processing.logger.debug("Removing the finalizer: the object left the watch's selection.");
        processing.finalizerChange = "remove";
      }
      return true;
    }
    const owned = matcher.handlersFor(processing.resource).changing;
    if (owned.length > 0) return this.#handle(processing, owned);
    const blocked = hasFinalizer(processing.body, settings.persistence.finalizer);
    if (spawner?.serves(processing.resource)) return this.#spawningFinalizer(processing, blocked);
    // Nothing of ours needs the object any more, e.g. handlers removed since an older version.
    if (blocked && !processing.gone) processing.finalizerChange = "remove";
    return true;
  }

  /**
   * Not async unless handlers run or a storage answers later: most events of an object (our
   * own writes' echoes) come to nothing, and would cost a promise and a turn at each stage.
   */
  #handle(processing: ObjectProcessing, owned: readonly ChangingHandler[]): true | Promise<true> {
    const detecting = this.#detect(processing);
    return isThenable(detecting)
      ? detecting.then((detected) => this.#handleCause(processing, owned, detected))
      : this.#handleCause(processing, owned, detecting);
  }

  #handleCause(
    processing: ObjectProcessing,
    owned: readonly ChangingHandler[],
    detected: Detected,
  ): true | Promise<true> {
    const { body, logger } = processing;
    const { cause, match } = detected;
    const blocked = hasFinalizer(body, this.#options.settings.persistence.finalizer);
    if (cause.reason === "gone") {
      if (prematch(owned, cause, match)) {
        logger.debug("Deleted, really deleted, and we are notified.");
      }
      return true;
    }
    // The finalizer: added in a cycle of its own, removed when no handler needs it.
    if (!cause.deleted) {
      const required = this.#options.matcher.requiresFinalizer(processing.resource, match);
      if (changeFinalizer(processing, required, blocked)) return true;
    }
    if (!prematch(owned, cause, match)) {
      // Stealth: not ours; but a finalizer we put there earlier must not hold the object.
      if (cause.deleted && blocked) processing.finalizerChange = "remove";
      return true;
    }
    if (!HANDLER_REASONS.has(cause.reason)) {
      if (cause.reason === "free") {
        logger.debug("Deletion, but we are done with it; not our concern.");
      }
      if (cause.reason === "noop") {
        logger.debug("Something has changed, but not the essence; nothing to do.");
        const storing = detected.rewrite ? this.#storeDiffBase(processing, cause.new) : undefined;
        if (isThenable(storing)) return storing.then(() => this.#afterNothing(processing));
        return this.#afterNothing(processing);
      }
      return true;
    }
    return this.#runCycle(processing, detected, owned, blocked);
  }

  #afterNothing(processing: ObjectProcessing): true {
    this.#conditions.afterNothing(processing);
    processing.settles = true; // our write's state has the same essence: nothing again
    return true;
  }

  /**
   * The cause of this state: from the event, the deletion mark, and the essences' diff (not
   * a promise when the diff-base storage answers at once).
   */
  #detect(processing: ObjectProcessing): Detected | Promise<Detected> {
    const { matcher, settings } = this.#options;
    const extra = matcher.extraFields(processing.resource);
    const essences = loadEssences(settings.persistence, processing.body, extra);
    return isThenable(essences)
      ? essences.then((loaded) => this.#detected(processing, loaded))
      : this.#detected(processing, essences);
  }

  #detected(processing: ObjectProcessing, essences: Essences): Detected {
    const { resource, body, memory, event } = processing;
    const { matcher, settings } = this.#options;
    const persistence = settings.persistence;
    const changes = diff(essences.old, essences.new);
    const initial = memory.noticedByListing && !memory.fullyHandledOnce;
    const causeOf = (reason: Reason, deleted: boolean, initialNow: boolean): Cause => ({
      body,
      reason,
      initial: initialNow,
      deleted,
      old: essences.old,
      new: essences.new,
      diff: changes,
    });
    // Delete handlers without our finalizer (optional ones): selected once, for the cause
    // detection and, if they apply, for the cycle (the cause is then this very one).
    const blocked = hasFinalizer(body, persistence.finalizer);
    const optional = !processing.gone && isDeletionOngoing(body) && !blocked &&
        !memory.deletionHandled
      ? matcher.selectChangingHandlers(
        resource,
        causeMatch(processing, causeOf("delete", true, initial)),
      )
      : undefined;
    const detected = detectCause({
      eventType: event.type,
      body,
      finalizer: persistence.finalizer,
      old: essences.old,
      diff: changes,
      initial,
      optionalDeletion: optional !== undefined && optional.length > 0,
    });
    const cause = causeOf(detected.reason, detected.deleted, detected.initial);
    const rewrite = essences.rewrite ?? false;
    return { cause, match: causeMatch(processing, cause), optional, rewrite };
  }

  /** Run the handlers due for the cause; when all are done, store the diff-base. */
  async #runCycle(
    processing: ObjectProcessing,
    { cause, match, optional, rewrite }: Detected,
    owned: readonly ChangingHandler[],
    blocked: boolean,
  ): Promise<true> {
    const { resource, memory, logger } = processing;
    const handlers = optional ?? this.#options.matcher.selectChangingHandlers(resource, match);
    // A diff-base that cannot be stored must not cost the outcome: the progress stays.
    const storage = this.#options.settings.persistence.diffbaseStorage;
    const oversize = storage.oversize({ body: processing.body, essence: cause.new });
    const context = oversize === undefined ? this.#cycle : { ...this.#cycle, keepProgress: true };
    const cycle = await runChangingCycle(processing, cause, owned, handlers, context);
    processing.ran = cycle.ran;
    // The essence the cause began with becomes the diff-base when it completes: a change
    // made between its cycles is then handled as an update, not lost in the cause.
    const base = memory.causeBase?.reason === cause.reason ? memory.causeBase : undefined;
    if (!cycle.done) {
      memory.causeBase = base ?? { reason: cause.reason, essence: cause.new };
      processing.recorded = cycle.ran;
      for (const delay of cycle.delays) processing.revisitIn(delay);
      this.#conditions.afterCycle(processing, cycle.fates);
      return true;
    }
    memory.causeBase = undefined;
    if (oversize !== undefined) {
      reportOversize(processing, oversize);
    } else if (base !== undefined) {
      const storing = this.#storeDiffBase(processing, base.essence);
      if (isThenable(storing)) await storing;
    } else if (cause.diff.length > 0 || rewrite) { // the diff is empty when the essences are equal
      const storing = this.#storeDiffBase(processing, cause.new);
      if (isThenable(storing)) await storing;
    }
    // After the diff-base: where it goes decides whether the write makes a generation.
    this.#conditions.afterCycle(processing, cycle.fates);
    memory.fullyHandledOnce = true;
    if (cause.reason !== "delete") {
      // The state our write makes has the essence stored as its diff-base: nothing to do.
      // Not if the diff-base could not be stored, nor if it is the essence an earlier cycle
      // of the cause began with: that state would find a cause (an update) again.
      processing.settles = oversize === undefined && base === undefined;
      return true;
    }
    memory.deletionHandled = true;
    if (blocked) {
      logger.debug("Removing the finalizer, thus allowing the actual deletion.");
      processing.finalizerChange = "remove";
      processing.fallback = cycle.fallback;
    } else {
      logger.debug(`${capitalize(TITLES.delete)} is done without a finalizer (optional).`);
    }
    return true;
  }

  /** The essence becomes the diff-base, in the patch. */
  #storeDiffBase(processing: ObjectProcessing, essence: RawBody): void | Promise<void> {
    // Not async: the built-in storages only put it into the patch, at no turn's cost.
    const storage = this.#options.settings.persistence.diffbaseStorage;
    return storage.store({ body: processing.body, patch: processing.patch, essence });
  }

  /**
   * Our finalizer on objects of resources with daemons or timers but no changing handlers:
   * there while any of them applies; removed once the object is marked for deletion (its
   * daemons and timers have exited by then).
   */
  #spawningFinalizer(processing: ObjectProcessing, blocked: boolean): true {
    const { resource, body, source, memory, logger, indices } = processing;
    const memoOf = () => memory.memo;
    if (processing.gone) return true;
    if (isDeletionOngoing(body)) {
      if (!blocked) return true;
      logger.debug("Removing the finalizer, thus allowing the actual deletion.");
      processing.finalizerChange = "remove";
      return true;
    }
    const required = this.#options.matcher.requiresFinalizer(resource, {
      body,
      kwargs: () => buildResourceKwargs({ resource, body, source, memoOf, indices }, {}),
    });
    changeFinalizer(processing, required, blocked);
    return true;
  }
}

/** The objects whose diff-base could not be stored, told once each at the error level. */
const toldOversize = new WeakSet<object>();

/** Say once per object (then at the debug level) that its diff-base cannot be stored. */
function reportOversize(processing: ObjectProcessing, why: string): void {
  const { memory, logger, resource, body } = processing;
  const name =
    `${resource.plural} ${body.metadata?.namespace ? `${body.metadata.namespace}/` : ""}` +
    `${body.metadata?.name ?? ""}`;
  const message = `The diff-base of ${name} cannot be stored: ${why}. The handlers' outcome is ` +
    "stored, and their progress is kept, so they do not run again; but later changes of the " +
    "object are not seen as updates. Keep large fields out of the essence " +
    "(settings.persistence.sensitiveFields keeps them as digests) or the diff-base out of the " +
    "annotations (settings.persistence.diffbaseStorage = new kopf.StatusDiffBaseStorage()).";
  if (toldOversize.has(memory)) {
    logger.debug(message);
  } else {
    toldOversize.add(memory);
    logger.error(message);
  }
}

/**
 * A round of its own to add or remove our finalizer, if it is needed or held for nothing;
 * true if there is one.
 */
function changeFinalizer(
  processing: ObjectProcessing,
  required: boolean,
  blocked: boolean,
): boolean {
  const logger: ObjectLogger = processing.logger;
  if (required && !blocked) {
    logger.debug("Adding the finalizer, thus preventing the actual deletion.");
    processing.finalizerChange = "add";
    return true;
  }
  if (!required && blocked) {
    logger.debug("Removing the finalizer, as there are no handlers requiring it.");
    processing.finalizerChange = "remove";
    return true;
  }
  return false;
}

/** The label, annotation and `when` filters of each handler, without its field ones. */
const scopes = new WeakMap<ChangingHandler, HandlerFilters>();

/** The handler's filters but the field's: built once per handler, not per event. */
function scopeFilters(handler: ChangingHandler): HandlerFilters {
  let filters = scopes.get(handler);
  if (filters === undefined) {
    filters = {
      ...handler,
      field: undefined,
      value: undefined,
      old: undefined,
      new: undefined,
      fieldNeedsChange: false,
    };
    scopes.set(handler, filters);
  }
  return filters;
}

/**
 * Whether any changing handler of the resource may be interested in the object at all:
 * its label, annotation and `when` filters pass, and its field (if any) has a fitting value
 * on either side of the change -- whatever the reason, and whether the field changed.
 */
function prematch(owned: readonly ChangingHandler[], cause: Cause, match: CauseMatch): boolean {
  // Checked for every event: handlers without filters need no arguments built.
  if (owned.some((h) => !h.hasFilters)) return true;
  const kwargs = new KwargsCache(match);
  return owned.some((h) => {
    if (!matchesFilters(scopeFilters(h), match, kwargs)) return false;
    if (h.field === undefined) return true;
    const criterion = h.value ?? PRESENT;
    return [cause.new, cause.old].some((side) =>
      side !== null && matchesValue(criterion, resolve(side, h.field!), kwargs, "value")
    );
  });
}
