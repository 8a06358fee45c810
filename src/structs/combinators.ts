/**
 * Combinators of filter callbacks: `all`, `any`, `none`, `not`. They work for both
 * whole-object callbacks (`when`) and per-value callbacks (labels, annotations, value).
 *
 * @module
 */

/** A synchronous predicate over some arguments. */
type Predicate<A extends unknown[]> = (...args: A) => boolean;

function checked<A extends unknown[]>(fns: readonly Predicate<A>[], what: string): void {
  if (!Array.isArray(fns) || fns.some((fn) => typeof fn !== "function")) {
    throw new TypeError(`kopf.${what}() takes an array of functions.`);
  }
}

/**
 * Passes when every function passes (and for an empty list).
 *
 * @example Handle only the objects that are both labelled and enabled
 * ```ts
 * import { kopf, type ChangingKwargs } from "@kopf/kopf";
 *
 * const labelled = ({ labels }: ChangingKwargs) => labels.team !== undefined;
 * const enabled = ({ spec }: ChangingKwargs) => spec.enabled === true;
 * kopf.on.create("kopfexamples", { when: kopf.all([labelled, enabled]) }, ({ name }) => {
 *   console.log(`${name} is labelled and enabled`);
 * });
 * ```
 */
export function all<A extends unknown[]>(
  fns: readonly ((...args: A) => boolean)[],
): (...args: A) => boolean {
  checked(fns, "all");
  const list = [...fns];
  return (...args: A) => list.every((fn) => fn(...args));
}

/**
 * Passes when at least one function passes.
 *
 * @example Accept one of several label values
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * const isProd = (value: unknown) => value === "prod";
 * const isStaging = (value: unknown) => value === "staging";
 * kopf.on.update("kopfexamples", { labels: { env: kopf.any([isProd, isStaging]) } }, () => {
 *   console.log("a deployed object changed");
 * });
 * ```
 */
export function any<A extends unknown[]>(
  fns: readonly ((...args: A) => boolean)[],
): (...args: A) => boolean {
  checked(fns, "any");
  const list = [...fns];
  return (...args: A) => list.some((fn) => fn(...args));
}

/**
 * Passes when no function passes.
 *
 * @example Skip the objects that are paused or being migrated
 * ```ts
 * import { kopf, type TimerKwargs } from "@kopf/kopf";
 *
 * const paused = ({ spec }: TimerKwargs) => spec.paused === true;
 * const migrating = ({ annotations }: TimerKwargs) => "example.com/migrating" in annotations;
 * kopf.timer("kopfexamples", { interval: 60, when: kopf.none([paused, migrating]) }, () => {
 *   console.log("reconciling");
 * });
 * ```
 */
export function none<A extends unknown[]>(
  fns: readonly ((...args: A) => boolean)[],
): (...args: A) => boolean {
  checked(fns, "none");
  const list = [...fns];
  return (...args: A) => !list.some((fn) => fn(...args));
}

/**
 * Passes when the function does not.
 *
 * @example Everything but the objects of the system namespace
 * ```ts
 * import { kopf, type EventKwargs } from "@kopf/kopf";
 *
 * const inSystem = ({ namespace }: EventKwargs) => namespace === "kube-system";
 * kopf.on.event("pods", { when: kopf.not(inSystem) }, ({ name, type }) => {
 *   console.log(`${type} pod ${name}`);
 * });
 * ```
 */
export function not<A extends unknown[]>(fn: (...args: A) => boolean): (...args: A) => boolean {
  if (typeof fn !== "function") throw new TypeError("kopf.not() takes a function.");
  return (...args: A) => !fn(...args);
}
