/**
 * The selectors of each served resource's watches: those derived from the handlers'
 * filters (`intents/watch_selections.ts`) unless `settings.watching.selectByFilters` is off,
 * and those of `settings.watching.selectors` (e.g. `kopf run -l`) for that resource. The
 * fields a built-in resource can be selected by come from the catalog of resource types; a
 * custom resource is selected by `metadata.name` and `metadata.namespace` only.
 *
 * @module
 */

import type { Resource } from "../../structs/resources.ts";
import {
  type FieldRequirement,
  formatFieldSelector,
  formatLabelSelector,
  type LabelRequirement,
  parseFieldSelector,
  parseLabelSelector,
} from "../../structs/label_selectors.ts";
import { Selector } from "../../structs/resource_selectors.ts";
import type { WatchingSettings } from "../../settings/operator_settings.ts";
import { builtinTypes } from "../../catalog/builtin_types.ts";
import { typeKey } from "../../catalog/resource_types.ts";
import type { HandlerMatcher } from "../../intents/handler_matching.ts";
import { deriveWatchSelection, type WatchSelection } from "../../intents/watch_selections.ts";

/** One entry of `settings.watching.selectors`, parsed. */
interface Explicit {
  readonly selector: Selector | undefined;
  readonly labels: readonly LabelRequirement[];
  readonly fields: readonly FieldRequirement[];
}

/** The built-in resources' selectable fields, by type key: made once, when first needed. */
let builtinFields: Map<string, readonly string[]> | undefined;

function selectableFieldsOf(resource: Resource): readonly string[] {
  builtinFields ??= new Map(
    builtinTypes().map((
      type,
    ) => [typeKey(type.group, type.plural), type.versions[0].selectableFields]),
  );
  return builtinFields.get(typeKey(resource.group, resource.plural)) ?? [];
}

/**
 * The selectors of the watches of the operator's resources; see the module docs. Made when
 * the observation starts: the settings are checked by then.
 */
export class WatchSelecting {
  readonly #matcher: HandlerMatcher;
  readonly #derive: boolean;
  readonly #explicit: readonly Explicit[];

  /** The selecting of these handlers, with these settings. */
  constructor(matcher: HandlerMatcher, watching: WatchingSettings) {
    this.#matcher = matcher;
    this.#derive = watching.selectByFilters;
    this.#explicit = watching.selectors.map((entry) => ({
      selector: entry.resource === undefined ? undefined : Selector.parse([entry.resource]),
      labels: parseLabelSelector(entry.labelSelector ?? ""),
      fields: parseFieldSelector(entry.fieldSelector ?? ""),
    }));
  }

  /** The selection of a resource's watches; `undefined` when it has no selectors. */
  of(resource: Resource): WatchSelection | undefined {
    const labels: LabelRequirement[] = [];
    const fields: FieldRequirement[] = [];
    for (const explicit of this.#explicit) {
      if (explicit.selector !== undefined && !explicit.selector.check(resource)) continue;
      labels.push(...explicit.labels);
      fields.push(...explicit.fields);
    }
    if (this.#derive) {
      const handlers = this.#matcher.handlersFor(resource);
      return deriveWatchSelection(handlers, selectableFieldsOf(resource), { labels, fields });
    }
    if (labels.length + fields.length === 0) return undefined;
    return {
      labels,
      fields,
      labelSelector: formatLabelSelector(labels) || undefined,
      fieldSelector: formatFieldSelector(fields) || undefined,
      reason: "the selectors given for it; settings.watching.selectByFilters is off",
    };
  }
}
