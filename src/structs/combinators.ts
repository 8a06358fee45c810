/**
 * Combinators of filter callbacks: `all`, `any`, `none`, `not`. They work for both
 * whole-object callbacks (`when`) and per-value callbacks (labels, annotations, value).
 *
 * @module
 */

/** A synchronous predicate over some arguments. */
export type Predicate<A extends unknown[]> = (...args: A) => boolean;

function checked<A extends unknown[]>(fns: readonly Predicate<A>[], what: string): void {
  if (!Array.isArray(fns) || fns.some((fn) => typeof fn !== "function")) {
    throw new TypeError(`kopf.${what}() takes an array of functions.`);
  }
}

/** Passes when every function passes (and for an empty list). */
export function all<A extends unknown[]>(fns: readonly Predicate<A>[]): Predicate<A> {
  checked(fns, "all");
  const list = [...fns];
  return (...args: A) => list.every((fn) => fn(...args));
}

/** Passes when at least one function passes. */
export function any<A extends unknown[]>(fns: readonly Predicate<A>[]): Predicate<A> {
  checked(fns, "any");
  const list = [...fns];
  return (...args: A) => list.some((fn) => fn(...args));
}

/** Passes when no function passes. */
export function none<A extends unknown[]>(fns: readonly Predicate<A>[]): Predicate<A> {
  checked(fns, "none");
  const list = [...fns];
  return (...args: A) => !list.some((fn) => fn(...args));
}

/** Passes when the function does not. */
export function not<A extends unknown[]>(fn: Predicate<A>): Predicate<A> {
  if (typeof fn !== "function") throw new TypeError("kopf.not() takes a function.");
  return (...args: A) => !fn(...args);
}
