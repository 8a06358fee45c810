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
  type LabelRequirement,
  parseFieldSelector,
  parseLabelSelector,
} from "../../structs/label_selectors.ts";
import { Selector } from "../../structs/resource_selectors.ts";
import type { PersistenceSettings } from "../../settings/processing_settings.ts";
import type { WatchingSettings } from "../../settings/api_settings.ts";
import type { Logger } from "../../structs/loggers.ts";
import { builtinTypes, isBuiltinResource } from "../../catalog/builtin_types.ts";
import { typeKey } from "../../catalog/resource_types.ts";
import type { HandlerMatcher } from "../../intents/handler_matching.ts";
import {
  deriveWatchSelection,
  watchesMetadataOnly,
  type WatchSelection,
  watchSelection,
} from "../../intents/watch_selections.ts";

const NO_FIELDS: readonly string[] = Object.freeze([]);

/** One entry of `settings.watching.selectors`, parsed. */
interface Explicit {
  readonly selector: Selector | undefined;
  readonly labels: readonly LabelRequirement[];
  readonly fields: readonly FieldRequirement[];
}

/** The built-in resources' selectable fields, by type key: made once, when first needed. */
let builtinFields: Map<string, readonly string[]> | undefined;

function selectableFieldsOf(resource: Resource): readonly string[] {
  // A custom resource's: none of the catalog's, whose table is not made for it.
  if (!isBuiltinResource(resource.group)) return NO_FIELDS;
  builtinFields ??= new Map(
    builtinTypes().map((
      type,
    ) => [typeKey(type.group, type.plural), type.versions[0].selectableFields]),
  );
  return builtinFields.get(typeKey(resource.group, resource.plural)) ?? [];
}

/** What the selecting needs of the operator's settings. */
export interface SelectingSettings {
  /** The watching settings: derived and explicit selectors. */
  readonly watching: WatchingSettings;
  /** Where progress and diff-bases are kept: metadata-only watches need them in metadata. */
  readonly persistence: PersistenceSettings;
}

/**
 * The selectors of the watches of the operator's resources; see the module docs. Made when
 * the observation starts: the settings are checked by then.
 */
export class WatchSelecting {
  readonly #matcher: HandlerMatcher;
  readonly #derive: boolean;
  readonly #explicit: readonly Explicit[];
  /** Why metadata-only watches cannot be, if they cannot (the storages need the status). */
  readonly #noMetadataOnly: string | undefined;
  readonly #logger: Logger | undefined;
  /** The resources already warned about. */
  readonly #warned = new Set<string>();

  /** The selecting of these handlers, with these settings. */
  constructor(matcher: HandlerMatcher, settings: SelectingSettings, logger?: Logger) {
    const { watching, persistence } = settings;
    this.#matcher = matcher;
    this.#logger = logger;
    this.#noMetadataOnly = persistence.progressStorage.readsStatusOnly
      ? "settings.persistence.progressStorage"
      : persistence.diffbaseStorage.readsStatusOnly
      ? "settings.persistence.diffbaseStorage"
      : undefined;
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
    const handlers = this.#matcher.handlersFor(resource);
    if (this.#derive) {
      const derived = deriveWatchSelection(handlers, selectableFieldsOf(resource), {
        labels,
        fields,
      });
      return this.#storable(resource, derived);
    }
    const metadataOnly = watchesMetadataOnly(handlers);
    if (labels.length + fields.length === 0 && !metadataOnly) return undefined;
    const reason =
      (labels.length + fields.length > 0
        ? "the selectors given for it; settings.watching.selectByFilters is off"
        : "no selectors: settings.watching.selectByFilters is off") +
      (metadataOnly ? "; metadata only, as all its handlers declare" : "");
    return this.#storable(resource, watchSelection(labels, fields, metadataOnly, reason));
  }

  /**
   * The selection as the persistence allows: whole objects where the progress or the
   * diff-base is read from the status, which metadata-only objects lack (said once).
   */
  #storable(resource: Resource, selection: WatchSelection): WatchSelection {
    if (!selection.metadataOnly || this.#noMetadataOnly === undefined) return selection;
    const key = typeKey(resource.group, resource.plural);
    if (!this.#warned.has(key)) {
      this.#warned.add(key);
      this.#logger?.warning(
        `All handlers of ${resource} declare metadataOnly, but ${this.#noMetadataOnly} reads ` +
          "from the status, which a metadata-only watch does not carry: whole objects are " +
          "watched. Keep the progress and the diff-base in annotations (the default) to " +
          "watch metadata only.",
      );
    }
    return {
      ...selection,
      metadataOnly: false,
      reason: `${selection.reason}; not metadata only: ${this.#noMetadataOnly} needs the status`,
    };
  }
}
