/**
 * Which API groups discovery needs to ask for the operator's handlers: only those their
 * selectors name, when every selector names its group (`kopfexamples.kopf.dev`,
 * `{ group, version, plural }`) -- a start without a request per group-version served,
 * which under API Priority and Fairness is also a burst of requests. A selector by name
 * alone (`kopfexamples`, a kind, a short name), `EVERYTHING` or a predicate may match in any
 * group: then every group is discovered.
 *
 * @module
 */

import type { DiscoveredGroup } from "../../client/discovery.ts";
import type { HandlerMatcher } from "../../intents/handler_matching.ts";

/**
 * The groups (and versions) the handlers' resources and children are in; `undefined` when
 * some selector needs them all.
 */
export function discoveredGroups(matcher: HandlerMatcher): DiscoveredGroup[] | undefined {
  const selectors = [
    ...matcher.selectors(),
    ...matcher.childHandlers().map((handler) => handler.childSelector),
  ];
  const groups: DiscoveredGroup[] = [];
  for (const selector of selectors) {
    // A predicate without a version matches every version of its group, not the preferred
    // one only: it is given everything rather than a group's every version.
    if (selector.group === undefined || selector.predicate !== undefined) return undefined;
    groups.push({ group: selector.group, version: selector.version });
  }
  return groups;
}
