/**
 * The registry of handlers: the public {@link OperatorRegistry} that `kopf.on.*` fill and
 * `kopf.operator()` runs, and -- outside the class, for the framework only -- what it
 * holds: the handler records with their matching (`handler_matching.ts`), the generated
 * ids and the warnings.
 *
 * @module
 */
import { UsageError } from "../structs/errors.ts";
import { categoryLogger, isLoggingConfigured } from "../platform/logging.ts";
import type { Handler } from "./handlers.ts";
import { HandlerMatcher } from "./handler_matching.ts";

/** What a registry holds; the framework reaches it through the functions below. */
interface Contents {
  readonly matcher: HandlerMatcher;
  readonly warnings: string[];
  readonly onWarning: (message: string) => void;
  /** How many ids were generated from each base. */
  readonly generated: Map<string, number>;
}

/**
 * Each registry's contents, out of the public class: a registry offers its users only what
 * they call, and the framework's matching changes without changing the package's API.
 */
const contents: WeakMap<OperatorRegistry, Contents> = new WeakMap();

/**
 * The handlers of an operator. The `kopf.on.*` functions add to the default registry
 * ({@link getDefaultRegistry}) unless given one as the `registry` option; `kopf.operator()`,
 * `kopf.spawnTasks()` and the testing kit's `KopfRunner` run the default one unless given
 * one. Several operators in one process each take a registry of their own.
 *
 * A registry offers nothing else on purpose: the handler records and their matching are the
 * framework's own, and may change without notice.
 *
 * @example One registry per operator of a program that embeds two
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * const registry = new kopf.OperatorRegistry();
 * kopf.on.create("kopfexamples", { registry }, ({ name, logger }) => {
 *   logger.info(`${name} is new`);
 * });
 * await kopf.operator({ registry, namespaces: ["default"], signal: AbortSignal.timeout(60_000) });
 * ```
 */
export class OperatorRegistry {
  readonly #contents: Contents;

  /** An empty registry. */
  constructor(options: {
    /**
     * Where warnings go (generated ids, ambiguous selectors); by default the `kopf.registry`
     * logger, in the configured format (JSON lines too), or `console.warn` before logging is
     * configured (handlers are often registered at import, before `kopf.run()`).
     */
    onWarning?: (message: string) => void;
  } = {}) {
    this.#contents = {
      matcher: new HandlerMatcher(),
      warnings: [],
      onWarning: options.onWarning ?? warnAboutRegistration,
      generated: new Map(),
    };
    contents.set(this, this.#contents);
  }

  /**
   * The warnings about the registrations so far, oldest first (each also went to
   * `onWarning`): e.g. handlers without a name, whose generated ids depend on the order of
   * registration. A test of an operator can require none.
   */
  get warnings(): readonly string[] {
    return this.#contents.warnings;
  }
}

function contentsOf(registry: OperatorRegistry): Contents {
  const found = contents.get(registry);
  if (found === undefined) {
    throw new UsageError(
      `Expected a kopf.OperatorRegistry, got ${
        registry === null ? "null" : typeof registry
      }; create one with new kopf.OperatorRegistry().`,
    );
  }
  return found;
}

/**
 * The registry's handlers and their matching: what the framework asks which handlers
 * apply. Not part of the package's API. Take it once per component, not per event.
 */
export function matcherOf(registry: OperatorRegistry): HandlerMatcher {
  return contentsOf(registry).matcher;
}

/** Add a handler record to the registry (the `kopf.on.*` functions build them). */
export function addHandler(registry: OperatorRegistry, handler: Handler): void {
  contentsOf(registry).matcher.add(handler);
}

/** Issue a warning about a registration: kept in the registry and given to `onWarning`. */
export function warnOfRegistration(registry: OperatorRegistry, message: string): void {
  const found = contentsOf(registry);
  found.warnings.push(message);
  found.onWarning(message);
}

/** A generated id from a base: the base itself first, then `base-2`, `base-3`, .... */
export function nextGeneratedId(registry: OperatorRegistry, base: string): string {
  const generated = contentsOf(registry).generated;
  const n = (generated.get(base) ?? 0) + 1;
  generated.set(base, n);
  return n === 1 ? base : `${base}-${n}`;
}

let defaultRegistry = new OperatorRegistry();

/**
 * The registry that `kopf.on.*` use when not given one, and that operators run when not
 * given one.
 *
 * @example Check at startup that the handlers were registered with stable ids
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.create("kopfexamples", function createFn() {});
 * kopf.on.startup(({ logger }) => {
 *   for (const warning of kopf.getDefaultRegistry().warnings) logger.warning(warning);
 * });
 * ```
 */
export function getDefaultRegistry(): OperatorRegistry {
  return defaultRegistry;
}

/**
 * Replace the default registry: `kopf.on.*` called without a `registry` add to this one from
 * now on, and operators without one run it.
 *
 * @example A fresh default registry for each test, so that handlers do not pile up
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * Deno.test("a handler without a name is warned about", () => {
 *   kopf.setDefaultRegistry(new kopf.OperatorRegistry({ onWarning: () => {} }));
 *   kopf.on.create("kopfexamples", () => {});
 *   if (kopf.getDefaultRegistry().warnings.length !== 1) throw new Error("no warning");
 * });
 * ```
 */
export function setDefaultRegistry(registry: OperatorRegistry): void {
  if (!(registry instanceof OperatorRegistry)) {
    throw new UsageError("setDefaultRegistry() takes a kopf.OperatorRegistry.");
  }
  defaultRegistry = registry;
}

const registryLogger = categoryLogger(["kopf", "registry"]);

function warnAboutRegistration(message: string): void {
  if (isLoggingConfigured()) registryLogger.warning(message);
  else console.warn(message);
}
