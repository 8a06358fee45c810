/**
 * The framework's standard conditions on the objects of custom resources (see
 * `handling/cycle_conditions.ts`): after a handling cycle, or an event with nothing to do,
 * the conditions and `status.observedGeneration` are put into the processing's patch -- so
 * they ride in the write of the cycle's own outcome -- and only when they differ from the
 * object's (by type, status, reason, message, `observedGeneration`): a cycle whose
 * conditions are right writes nothing more, and the event of our own write finds them so.
 * The list starts from what the handlers put into the patch this cycle (`kopf.setCondition`),
 * else from the object's; conditions of other types stay in place.
 *
 * Without a status subresource, the API server counts every change of the status as a new
 * generation: the conditions then name the generation that the write itself makes, or
 * every write of them would leave them one generation behind, and write again.
 *
 * @module
 */

import { isBuiltinResource } from "../../catalog/builtin_types.ts";
import type { RawBody } from "../../structs/bodies.ts";
import type { Resource } from "../../structs/resources.ts";
import type { Clock } from "../../structs/clock.ts";
import {
  type ConditionInit,
  conditionsInPatch,
  conditionsOf,
  findType,
  mergeConditions,
  sameConditions,
  transitionTime,
} from "../../structs/condition_lists.ts";
import { isMapping } from "../../structs/dicts.ts";
import { mergePatchChanges, patchContent, setInPatch } from "../../structs/patches.ts";
import type { ConditionsSettings } from "../../settings/output_settings.ts";
import { cycleConditions, unchangedConditions } from "../../handling/cycle_conditions.ts";
import type { HandlerFate } from "../../handling/handler_states.ts";
import type { ObjectProcessing } from "./object_processing.ts";

/** Puts the standard conditions into the processings' patches; see the module docs. */
export class StatusConditions {
  readonly #settings: ConditionsSettings;
  readonly #clock: Clock;
  /** Whether each resource is a built-in one: asked for every event with nothing to do. */
  readonly #builtin = new WeakMap<Resource, boolean>();

  /** Conditions of the given settings (read at each use: startup handlers may change them). */
  constructor(settings: ConditionsSettings, clock: Clock) {
    this.#settings = settings;
    this.#clock = clock;
  }

  /**
   * Whether the object gets conditions at all: enabled, a custom resource, not deleted, and
   * watched whole -- a metadata-only object's status is not seen, so its conditions could
   * never be found right, and every write of them would be written again.
   */
  applies(processing: ObjectProcessing): boolean {
    const { resource, body } = processing;
    if (!this.#settings.enabled || processing.gone || processing.left) return false;
    if (body.metadata?.deletionTimestamp) return false;
    if (processing.source !== undefined) return false;
    let builtin = this.#builtin.get(resource);
    if (builtin === undefined) {
      builtin = isBuiltinResource(resource.group);
      this.#builtin.set(resource, builtin);
    }
    return !builtin;
  }

  /** After a handling cycle: from where its handlers stand (none: nothing to do). */
  afterCycle(processing: ObjectProcessing, fates: readonly HandlerFate[]): void {
    if (fates.length === 0) return this.afterNothing(processing);
    if (!this.applies(processing)) return;
    this.#put(processing, cycleConditions(fates, this.#settings));
  }

  /** After an event with nothing to do: the object's conditions, for the generation seen. */
  afterNothing(processing: ObjectProcessing): void {
    if (!this.applies(processing)) return;
    const held = conditionsInPatch(processing.patch);
    // Most events with nothing to do are the echoes of our own writes: all is as it should be.
    if (held === undefined && this.#observed(processing.body)) return;
    const current = held ?? conditionsOf(processing.body.status);
    this.#put(processing, unchangedConditions(current, this.#settings));
  }

  /**
   * Whether the object's conditions are ours, for its generation, and not left reconciling:
   * what {@link afterNothing} would keep as they are.
   */
  #observed(body: RawBody): boolean {
    const status = body.status;
    const generation = generationOf(body);
    if (!isMapping(status) || status.observedGeneration !== generation) return false;
    const { ready, reconciling, stalled } = this.#settings;
    const conditions = conditionsOf(status);
    const readiness = findType(conditions, ready);
    if (readiness === undefined || readiness.observedGeneration !== generation) return false;
    const progress = findType(conditions, reconciling);
    if (
      progress !== undefined &&
      (progress.status === "True" || progress.observedGeneration !== generation)
    ) {
      return false;
    }
    const stall = findType(conditions, stalled);
    return stall === undefined || stall.observedGeneration === generation;
  }

  #put(processing: ObjectProcessing, updates: readonly ConditionInit[]): void {
    const { body, patch, resource } = processing;
    const current = conditionsOf(body.status);
    const held = conditionsInPatch(patch); // the handlers' own, this cycle
    const base = this.#withoutUnset(held ?? current, updates);
    const now = transitionTime(this.#clock.wall());
    const seen = generationOf(body);
    const observed = isMapping(body.status) ? body.status.observedGeneration : undefined;
    let generation = seen;
    // Without a status subresource, a write of anything but the metadata makes a generation.
    const counted = seen !== undefined && !resource.has("status");
    if (counted && changesBeyondMetadata(body, patchContent(patch))) generation = seen + 1;
    let merged = mergeConditions(updates, { current, base, generation, now });
    const same = held === undefined && sameConditions(merged, current) && observed === generation;
    if (same) return;
    if (counted && generation === seen) {
      generation = seen + 1; // this write makes one
      merged = mergeConditions(updates, { current, base, generation, now });
    }
    setInPatch(patch, ["status", "conditions"], merged);
    if (generation !== undefined && observed !== generation) {
      setInPatch(patch, ["status", "observedGeneration"], generation);
    }
  }

  /**
   * The list without those of the framework's types that the updates do not set: a
   * `Reconciling` or `Stalled` that is not True is not kept (see `cycle_conditions.ts`).
   * Per cycle: the list is copied only when it holds one to drop (rarely: most have none).
   */
  #withoutUnset(list: readonly unknown[], updates: readonly ConditionInit[]): readonly unknown[] {
    const { reconciling, stalled } = this.#settings;
    const dropReconciling = isUnset(list, updates, reconciling);
    const dropStalled = isUnset(list, updates, stalled);
    if (!dropReconciling && !dropStalled) return list;
    return list.filter((entry) =>
      !isMapping(entry) ||
      !((dropReconciling && entry.type === reconciling) || (dropStalled && entry.type === stalled))
    );
  }
}

/** Whether the list holds a condition of the type that the updates do not set. */
function isUnset(
  list: readonly unknown[],
  updates: readonly ConditionInit[],
  type: string,
): boolean {
  return findType(list, type) !== undefined && findType(updates, type) === undefined;
}

/** The object's `metadata.generation`, if it has one. */
function generationOf(body: RawBody): number | undefined {
  const generation = body.metadata?.generation;
  return typeof generation === "number" && Number.isSafeInteger(generation)
    ? generation
    : undefined;
}

/** Whether the patch changes more of the object than its metadata. */
function changesBeyondMetadata(body: RawBody, patch: Readonly<Record<string, unknown>>): boolean {
  for (const key in patch) {
    if (key === "metadata" || patch[key] === undefined) continue;
    if (mergePatchChanges((body as Record<string, unknown>)[key], patch[key])) return true;
  }
  return false;
}
