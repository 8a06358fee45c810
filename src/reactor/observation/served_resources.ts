/**
 * Which of the discovered resources the operator serves: those its handlers select (the
 * watched kinds of handlers; admission handlers are called, not watched). A selector that
 * matches nothing is warned of once -- or, a typo away from a served name, ends the
 * operator with the suggestion -- and told of again when resources matching it appear.
 * Also here: which resources' watches keep their objects' last full states.
 *
 * @module
 */

import type { Resource } from "../../structs/resources.ts";
import { ConfigurationError } from "../../structs/errors.ts";
import type { Logger } from "../../structs/loggers.ts";
import { typoMessage } from "../../structs/resource_suggestions.ts";
import type { HandlerKind } from "../../intents/handlers.ts";
import type { HandlerMatcher } from "../../intents/handler_matching.ts";

/** The kinds of handlers served by watching objects (admission handlers are called instead). */
const WATCHED_KINDS: readonly HandlerKind[] = [
  "changing",
  "event",
  "daemon",
  "timer",
  "index",
  "child",
];

/** The resources served for the handlers; see the module docs. */
export class ServedResources {
  readonly #matcher: HandlerMatcher;
  readonly #logger: Logger;
  /** The selectors that matched no served resource yet, warned of once each. */
  readonly #missing = new Set<string>();

  /** The serving of the matcher's handlers, reporting to the logger. */
  constructor(matcher: HandlerMatcher, logger: Logger) {
    this.#matcher = matcher;
    this.#logger = logger;
  }

  /** The served resources that the handlers select; warns of selectors matching none. */
  select(discovered: readonly Resource[]): readonly Resource[] {
    const matcher = this.#matcher;
    const logger = this.#logger;
    for (const selector of matcher.selectors(WATCHED_KINDS)) {
      const selection = selector.select(discovered);
      const key = String(selector);
      if (selection.resources.length === 0 && !this.#missing.has(key)) {
        // A name a typo away from a served one is a typo: an operator waiting for it would
        // do nothing, silently. (Thrown at the first discovery, it ends the operator.)
        const typo = typoMessage(selector, discovered, "the resource of handlers");
        if (typo !== undefined) throw new ConfigurationError(typo);
        this.#missing.add(key);
        logger.warning(`No served resource matches ${key} yet; it is served once it appears.`);
      } else if (selection.resources.length > 0 && this.#missing.delete(key)) {
        logger.info(`Resources matching ${key} have appeared: serving them.`);
      }
      for (const warning of selection.warnings) logger.warning(warning);
    }
    return matcher.resolve(discovered, WATCHED_KINDS).resources.filter((r) =>
      matcher.hasHandlers(r)
    );
  }
}

/**
 * Whether a resource's watches keep each object's last full state: a deletion missed while
 * a watch was down reaches the handlers with the last known body only where handlers look at
 * deleted objects; elsewhere, identities suffice.
 */
export function keepsLastStates(matcher: HandlerMatcher, resource: Resource): boolean {
  const handlers = matcher.handlersFor(resource);
  return handlers.event.length > 0 ||
    handlers.changing.some((h) => h.reason === "delete" || h.reason === null);
}
