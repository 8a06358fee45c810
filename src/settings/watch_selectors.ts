/**
 * Selectors of one's own for the operator's list and watch requests
 * (`settings.watching.selectors`, `kopf run -l/--field-selector`), checked when set.
 *
 * @module
 */

import {
  parseFieldSelector,
  parseLabelSelector,
  SelectorSyntaxError,
} from "../structs/label_selectors.ts";
import { Selector, SelectorError } from "../structs/resource_selectors.ts";

/** Label and field selectors given for the watches of a resource (or of all of them). */
export interface WatchSelectors {
  /** The resource, named as handlers name it; every served resource if omitted. */
  resource?: string;
  /** A label selector in the API server's syntax, e.g. `app=web,tier in (a,b)`. */
  labelSelector?: string;
  /** A field selector in the API server's syntax, e.g. `status.phase=Running`. */
  fieldSelector?: string;
}

const EXPECTED = "a list of { resource?, labelSelector?, fieldSelector? } with strings";

/** What is wrong with the setting's value, as "what it should be (and why not)"; or nothing. */
export function checkWatchSelectors(value: unknown): string | undefined {
  if (!Array.isArray(value)) return EXPECTED;
  for (const [index, entry] of value.entries()) {
    const problem = entryProblem(entry);
    if (problem !== undefined) return `${EXPECTED} (entry ${index}: ${problem})`;
  }
  return undefined;
}

function entryProblem(entry: unknown): string | undefined {
  if (typeof entry !== "object" || entry === null) return "not an object";
  const { resource, labelSelector, fieldSelector, ...rest } = entry as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) return `unknown field ${JSON.stringify(extra[0])}`;
  for (
    const [name, field] of [["resource", resource], ["labelSelector", labelSelector], [
      "fieldSelector",
      fieldSelector,
    ]] as const
  ) {
    if (field !== undefined && typeof field !== "string") return `${name} is not a string`;
  }
  try {
    if (resource !== undefined) Selector.parse([resource]);
    if (labelSelector !== undefined) parseLabelSelector(labelSelector as string);
    if (fieldSelector !== undefined) parseFieldSelector(fieldSelector as string);
  } catch (error) {
    if (error instanceof SelectorSyntaxError || error instanceof SelectorError) {
      return error.message.replace(/\.$/, "");
    }
    throw error;
  }
  return undefined;
}
