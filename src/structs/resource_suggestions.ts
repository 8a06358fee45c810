/**
 * "Did you mean": the served resources whose names are a typo away from a selector's name
 * that matches none (`webaps` -> `webapps.apps`). A name close to a served one is far more
 * often a typo than a resource still to come, and an operator that waits for a typo does
 * nothing, silently.
 *
 * @module
 */
import type { Resource } from "./resources.ts";
import type { Selector } from "./resource_selectors.ts";

/**
 * The edit distance of two words (insertions, deletions, substitutions, and swaps of two
 * neighbouring letters), or `limit + 1` once it is sure to exceed `limit`.
 */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, before[j - 2] + 1);
      }
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length];
}

/** How many edits a name of this length may be from another and still be its typo. */
function allowance(length: number): number {
  return length <= 3 ? 0 : length <= 6 ? 1 : 2;
}

/** The name a selector gives, when it names a resource without a group; else undefined. */
function nameOf(selector: Selector): string | undefined {
  if (selector.group !== undefined || selector.predicate !== undefined) return undefined;
  const name = selector.anyName ?? selector.plural ?? selector.kind ?? selector.singular ??
    selector.shortcut;
  return typeof name === "string" ? name : undefined;
}

/**
 * The served resources (as `plural` or `plural.group`) whose plural, singular, kind or
 * short names are within a typo of the name the selector gives, nearest first; none when
 * the selector names a group (a resource still to come), or nothing by name.
 */
export function suggestResources(selector: Selector, resources: Iterable<Resource>): string[] {
  const name = nameOf(selector)?.toLowerCase();
  if (name === undefined) return [];
  const limit = allowance(name.length);
  const found = new Map<string, number>();
  for (const resource of resources) {
    if (!resource.preferred || resource.plural.includes("/")) continue;
    const names = [resource.plural, resource.singular, resource.kind, ...resource.shortcuts];
    let distance = limit + 1;
    for (const candidate of names) {
      if (!candidate) continue;
      distance = Math.min(distance, editDistance(name, candidate.toLowerCase(), limit));
    }
    if (distance > limit) continue;
    const label = resource.group ? `${resource.plural}.${resource.group}` : resource.plural;
    found.set(label, Math.min(found.get(label) ?? distance, distance));
  }
  return [...found].sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0])).map(([label]) => label);
}

/**
 * The line that stops an operator whose selector matches nothing but is a typo away from
 * served resources; `undefined` when there is nothing to suggest.
 */
export function typoMessage(
  selector: Selector,
  resources: Iterable<Resource>,
  what: string,
): string | undefined {
  const suggestions = suggestResources(selector, resources);
  if (suggestions.length === 0) return undefined;
  const name = nameOf(selector)!;
  const choices = suggestions.slice(0, 3).map((s) => `"${s}"`).join(" or ");
  return `No served resource is named "${name}" (${what}); did you mean ${choices}? ` +
    `Fix the name; or, if "${name}" is a resource still to come (a CRD applied later), ` +
    `name it with its group (e.g. "${name}.example.com") and the operator waits for it.`;
}
