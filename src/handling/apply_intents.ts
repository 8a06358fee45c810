/**
 * What a handling cycle's outcome comes to as a server-side apply under the operator's field
 * manager (`settings.applying.outcomes`): the manager's whole intent for one place (the
 * object, or its `status` subresource).
 *
 * An apply states everything its manager means to own: what it applied before and omits
 * now is removed. So the intent is what the manager owns of the object now (read from its
 * `managedFields` entry), with the cycle's merge patch on top: a key set is set (and comes
 * to be owned), a key set to `null` is left out -- which removes it when this manager alone
 * owns it. A removal that leaving out cannot make (the field is also another manager's, or
 * was written before by a merge patch) is returned apart, as a merge patch of its own, and
 * so is the removal of our finalizer when it is not ours alone.
 *
 * The conditions are a list of items keyed by `type` where the schema says so (the
 * `x-kubernetes-list-type: map` of Kubernetes' own conditions): then the intent holds only
 * the items of this manager -- those it applied before, and those the cycle adds or changes
 * -- and other parties' conditions stay theirs. Where the list is atomic (an untyped status),
 * the whole list is stated, as a merge patch would.
 *
 * @module
 */

import type { JsonObject, JsonValue, RawBody } from "../structs/bodies.ts";
import { isMapping, jsonEqual } from "../structs/dicts.ts";
import {
  coverage,
  fieldElement,
  isAppliedBy,
  isKeyedList,
  keyElement,
  type ManagedFieldsEntry,
  ownedPart,
  ownsAllOf,
  valueElement,
} from "../structs/owned_fields.ts";
import { conditionsOf } from "../structs/condition_lists.ts";

/** Where an apply goes: the object itself, or its status subresource. */
export type ApplyPlace = "object" | "status";

/** What an intent is built from. */
export interface IntentOptions {
  /** The object as last seen, whole for the parts of the place that the manager owns. */
  readonly body: RawBody;
  /** The object's managed-fields entries (see `structs/owned_fields.ts`). */
  readonly entries: readonly ManagedFieldsEntry[];
  /** The field manager applying. */
  readonly fieldManager: string;
  /** The place applied to. */
  readonly place: ApplyPlace;
  /** The cycle's merge patch, as far as it goes to this place. */
  readonly merge: Readonly<Record<string, unknown>>;
  /** Our finalizer, and whether to add or remove it (only to the object itself). */
  readonly finalizer?: { readonly name: string; readonly change: "add" | "remove" };
}

/** The apply of one place, and what it cannot do. */
export interface Intent {
  /** The applied configuration, without its identity (apiVersion, kind, name, uid). */
  readonly config: JsonObject;
  /** Removals that leaving out cannot make: a merge patch for the same place, or empty. */
  readonly leftover: JsonObject;
  /** Our finalizer is to be removed, but not by leaving it out: it is not ours alone. */
  readonly finalizerLeft: boolean;
}

const CONDITIONS_PATH = [fieldElement("status"), fieldElement("conditions")];

/** The intent of the manager for the place; see the module docs. */
export function applyIntent(options: IntentOptions): Intent {
  const { body, entries, fieldManager, place } = options;
  const subresource = place === "status" ? "status" : undefined;
  const ours = entries.find((entry) => isAppliedBy(entry, fieldManager, subresource));
  const others = entries.filter((entry) => entry !== ours);
  const alone = (path: readonly string[], value: unknown) =>
    ours !== undefined && ownsAllOf(ours.fields, path, value) &&
    others.every((entry) => coverage(entry.fields, path) === "none");
  const owned = ours === undefined ? undefined : ownedPart(body, ours.fields);
  const config: JsonObject = isMapping(owned) ? { ...owned as JsonObject } : {};
  const leftover: JsonObject = {};
  mergeInto(config, options.merge, body, [], leftover, alone);
  const conditions = (options.merge.status as Record<string, unknown> | undefined)?.conditions;
  if (Array.isArray(conditions) && isMapping(config.status)) {
    ownConditions(config, conditions, body, ours, entries);
  }
  let finalizerLeft = false;
  if (options.finalizer !== undefined) {
    finalizerLeft = putFinalizer(config, body, options.finalizer, alone);
  }
  return { config, leftover, finalizerLeft };
}

/**
 * Merge the patch into the intent (RFC 7386, on copies): a `null` leaves the key out, and
 * goes into the leftover too when the key is on the object and not this manager's alone.
 * Maps left empty are dropped: an empty map applied would claim the map itself.
 */
function mergeInto(
  target: JsonObject,
  patch: Readonly<Record<string, unknown>>,
  live: unknown,
  path: readonly string[],
  leftover: JsonObject,
  alone: (path: readonly string[], value: unknown) => boolean,
): void {
  const held = isMapping(live) ? live : undefined;
  for (const key in patch) {
    const value = patch[key];
    if (value === undefined) continue;
    const here = [...path, fieldElement(key)];
    if (value === null) {
      delete target[key];
      if (held !== undefined && Object.hasOwn(held, key) && !alone(here, held[key])) {
        leftover[key] = null;
      }
      continue;
    }
    if (!isMapping(value)) {
      target[key] = value as JsonValue;
      continue;
    }
    const base: JsonObject = isMapping(target[key]) ? { ...target[key] as JsonObject } : {};
    const left: JsonObject = {};
    mergeInto(base, value, held?.[key], here, left, alone);
    if (Object.keys(base).length > 0) target[key] = base;
    else delete target[key];
    if (Object.keys(left).length > 0) leftover[key] = left;
  }
}

/**
 * Keep in the intent only this manager's conditions when the list is keyed by type: those
 * it owns, and those the cycle adds or changes; an atomic list is stated whole.
 */
function ownConditions(
  config: JsonObject,
  conditions: readonly unknown[],
  body: RawBody,
  ours: ManagedFieldsEntry | undefined,
  entries: readonly ManagedFieldsEntry[],
): void {
  if (!isKeyedList(entries, CONDITIONS_PATH)) return;
  const status = config.status as JsonObject;
  const live = conditionsOf(body.status);
  const mine = (item: Record<string, unknown>) =>
    ours !== undefined &&
    coverage(ours.fields, [...CONDITIONS_PATH, keyElement([["type", item.type as JsonValue]])]) !==
      "none";
  const kept = conditions.filter((item) => {
    if (!isMapping(item)) return false;
    if (mine(item)) return true;
    const held = live.find((other) => isMapping(other) && other.type === item.type);
    return held === undefined || !jsonEqual(held, item);
  });
  if (kept.length > 0) status.conditions = kept as JsonValue[];
  else delete status.conditions;
  if (Object.keys(status).length === 0) delete config.status;
}

/** Add or leave out our finalizer; whether its removal needs a request of its own. */
function putFinalizer(
  config: JsonObject,
  body: RawBody,
  finalizer: { readonly name: string; readonly change: "add" | "remove" },
  alone: (path: readonly string[], value: unknown) => boolean,
): boolean {
  const meta: JsonObject = isMapping(config.metadata) ? { ...config.metadata as JsonObject } : {};
  const held = Array.isArray(meta.finalizers) ? meta.finalizers : [];
  const { name, change } = finalizer;
  const others = held.filter((item) => item !== name);
  const finalizers = change === "add" ? [...others, name] : others;
  if (finalizers.length > 0) meta.finalizers = finalizers;
  else delete meta.finalizers;
  if (Object.keys(meta).length > 0) config.metadata = meta;
  else delete config.metadata;
  if (change === "add") return false;
  const present = body.metadata?.finalizers?.includes(name) ?? false;
  const path = [fieldElement("metadata"), fieldElement("finalizers"), valueElement(name)];
  return present && !alone(path, name);
}
