/**
 * What the API server can filter for the operator: the label and field selectors of a
 * resource's list and watch requests, derived from the filters its handlers declare.
 *
 * Every handler that consumes the resource's watch -- resource-changing and event handlers,
 * daemons, timers, indices -- contributes what its filters require in a form the server
 * understands: a label with a given value (`key=value`), present (`key`) or absent (`!key`);
 * the same written as a field filter on `metadata.labels.<key>`; a field with a literal value,
 * for the fields the server selects by (`metadata.name`, `metadata.namespace`, and a
 * resource's own selectable fields). Callbacks (per value or `when`) cannot be sent: they add
 * nothing, though the handler's other criteria still count. Update and field handlers'
 * field criteria hold on either side of a change, so they are not sent either.
 *
 * The watch then asks for what all consumers require: a label that each of them constrains
 * becomes one requirement (different values joined as `key in (a,b)`; present wins over a
 * value; absent only if all want it absent), a field that all of them want equal to the same
 * value becomes `field=value`. One consumer without a requirement the server understands
 * means no selector on that resource. Admission handlers get their objects from the
 * requests, not from the watch: they do not count. The watch carries metadata only when
 * every consumer declared `metadataOnly`.
 *
 * @module
 */

import type { JsonValue } from "../structs/bodies.ts";
import {
  type FieldRequirement,
  formatFieldSelector,
  formatLabelSelector,
  isLabelKey,
  isLabelValue,
  type LabelRequirement,
} from "../structs/label_selectors.ts";
import { ABSENT, PRESENT } from "../structs/markers.ts";
import type { FieldFilterValue, HandlerFilters, MetaFilterValue } from "./filters.ts";
import type { ResourceHandlers } from "./handler_matching.ts";
import type { WatchedNeeds } from "./handlers.ts";

/** The selectors of one resource's watch, and why. */
export interface WatchSelection {
  /** The label requirements sent (derived and explicit), all of which must hold. */
  readonly labels: readonly LabelRequirement[];
  /** The field requirements sent (derived and explicit), all of which must hold. */
  readonly fields: readonly FieldRequirement[];
  /** The `labelSelector` parameter, if any. */
  readonly labelSelector: string | undefined;
  /** The `fieldSelector` parameter, if any. */
  readonly fieldSelector: string | undefined;
  /**
   * Watch and list the objects' metadata only (`PartialObjectMetadata`): every consumer of
   * the watch declared `metadataOnly`.
   */
  readonly metadataOnly: boolean;
  /** Why the watch selects this (or nothing), for the debug log. */
  readonly reason: string;
}

/** Selectors given explicitly for a resource (the command line, the settings). */
export interface ExplicitSelectors {
  /** Parsed label requirements, added to the derived ones. */
  readonly labels?: readonly LabelRequirement[];
  /** Parsed field requirements, added to the derived ones. */
  readonly fields?: readonly FieldRequirement[];
}

/** What one consumer requires of a label: values (any of them), presence, or absence. */
type LabelNeed = ReadonlySet<string> | "exists" | "absent";

/** What one handler requires, in the server's terms. */
interface Needs {
  readonly labels: Map<string, LabelNeed>;
  readonly fields: Map<string, string>;
}

/** A handler that consumes the watch, as this module sees it. */
type Consumer = HandlerFilters & WatchedNeeds & { readonly id: string; readonly registrar: string };

/** The handlers that get the resource's objects from its watch. */
function consumersOf(handlers: ResourceHandlers): Consumer[] {
  return [
    ...handlers.changing,
    ...handlers.event,
    ...handlers.daemon,
    ...handlers.timer,
    ...handlers.index,
    ...handlers.child,
  ];
}

/**
 * Whether the resource's watch may carry metadata only: it has consumers, and every one of
 * them declared `metadataOnly` (admission handlers get their objects from the requests).
 */
export function watchesMetadataOnly(handlers: ResourceHandlers): boolean {
  const consumers = consumersOf(handlers);
  return consumers.length > 0 && consumers.every((c) => c.metadataOnly === true);
}

/**
 * The selectors of a resource's watch for these handlers; see the module docs.
 * `selectableFields` are the resource's fields the server selects by, besides
 * `metadata.name` and `metadata.namespace`.
 */
export function deriveWatchSelection(
  handlers: ResourceHandlers,
  selectableFields: readonly string[],
  explicit: ExplicitSelectors = {},
): WatchSelection {
  const consumers = consumersOf(handlers);
  const selectable = new Set(["metadata.name", "metadata.namespace", ...selectableFields]);
  let labels: LabelRequirement[] = [];
  let fields: FieldRequirement[] = [];
  let reason: string;
  const unselective = consumers.find((c) => isEmpty(needsOf(c, selectable)));
  if (consumers.length === 0) {
    reason = "no handler consumes its watch";
  } else if (unselective !== undefined) {
    reason = `${describe(unselective)} has no filter that the API server can apply`;
  } else {
    const common = commonNeeds(consumers.map((c) => needsOf(c, selectable)));
    labels = labelRequirements(common.labels);
    fields = [...common.fields].map(([field, value]) => ({ field, op: "=", value }));
    reason = labels.length + fields.length > 0
      ? `what all ${consumers.length} of its handler(s) require`
      : "its handlers' filters have no requirement in common";
  }
  if (explicit.labels?.length || explicit.fields?.length) {
    labels = [...labels, ...explicit.labels ?? []];
    fields = [...fields, ...explicit.fields ?? []];
    reason += "; and the selectors given for it";
  }
  const metadataOnly = watchesMetadataOnly(handlers);
  if (metadataOnly) reason += "; metadata only, as all its handlers declare";
  return watchSelection(labels, fields, metadataOnly, reason);
}

/** The selection of these requirements, with the `labelSelector`/`fieldSelector` they make. */
export function watchSelection(
  labels: readonly LabelRequirement[],
  fields: readonly FieldRequirement[],
  metadataOnly: boolean,
  reason: string,
): WatchSelection {
  const labelSelector = formatLabelSelector(labels) || undefined;
  const fieldSelector = formatFieldSelector(fields) || undefined;
  return { labels, fields, labelSelector, fieldSelector, metadataOnly, reason };
}

/** What the consumer's filters require, in the server's terms. */
function needsOf(consumer: Consumer, selectable: ReadonlySet<string>): Needs {
  const labels = new Map<string, LabelNeed>();
  const fields = new Map<string, string>();
  for (const key in consumer.labels ?? {}) {
    const need = labelNeed(key, consumer.labels![key]);
    if (need !== undefined) labels.set(key, need);
  }
  const path = consumer.field;
  if (path !== undefined && !consumer.fieldNeedsChange) {
    const value = consumer.value ?? PRESENT;
    if (path.length === 3 && path[0] === "metadata" && path[1] === "labels") {
      const need = labelNeed(path[2], value);
      if (need !== undefined && !labels.has(path[2])) labels.set(path[2], need);
    } else if (!path.some((part) => part.includes("."))) {
      const text = literalText(value);
      const dotted = path.join(".");
      if (text !== undefined && selectable.has(dotted)) fields.set(dotted, text);
    }
  }
  return { labels, fields };
}

/** A label criterion as a need, if the server can check it. */
function labelNeed(
  key: string,
  criterion: MetaFilterValue<unknown> | FieldFilterValue<unknown>,
): LabelNeed | undefined {
  if (!isLabelKey(key)) return undefined;
  if (criterion === PRESENT) return "exists";
  if (criterion === ABSENT) return "absent";
  if (typeof criterion === "string" && isLabelValue(criterion)) return new Set([criterion]);
  return undefined;
}

/** A field criterion as the text the server compares, if it is a plain literal. */
function literalText(criterion: FieldFilterValue<unknown>): string | undefined {
  const value = criterion as JsonValue;
  if (typeof value === "string") return value;
  if (typeof value === "boolean" || (typeof value === "number" && Number.isInteger(value))) {
    return String(value);
  }
  return undefined;
}

function isEmpty(needs: Needs): boolean {
  return needs.labels.size === 0 && needs.fields.size === 0;
}

/** What every one of the needs requires (their union as the server can select it). */
function commonNeeds(all: readonly Needs[]): Needs {
  const [first, ...rest] = all;
  const labels = new Map(first.labels);
  const fields = new Map(first.fields);
  for (const needs of rest) {
    for (const [key, need] of labels) {
      const other = needs.labels.get(key);
      const joined = other === undefined ? undefined : joinLabelNeeds(need, other);
      if (joined === undefined) labels.delete(key);
      else labels.set(key, joined);
    }
    for (const [field, value] of fields) {
      if (needs.fields.get(field) !== value) fields.delete(field);
    }
  }
  return { labels, fields };
}

/** A need that both needs imply, if the server can express one. */
function joinLabelNeeds(a: LabelNeed, b: LabelNeed): LabelNeed | undefined {
  if (a === "absent" || b === "absent") return a === b ? a : undefined;
  if (a === "exists" || b === "exists") return "exists";
  return new Set([...a, ...b]);
}

function labelRequirements(needs: ReadonlyMap<string, LabelNeed>): LabelRequirement[] {
  return [...needs].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map(([key, need]) =>
    need === "exists" || need === "absent"
      ? { key, op: need }
      : { key, op: "in", values: [...need].sort() }
  );
}

function describe(consumer: Consumer): string {
  return `the handler ${JSON.stringify(consumer.id)} (${consumer.registrar})`;
}
