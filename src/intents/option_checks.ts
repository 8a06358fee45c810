/**
 * Compile-time checks of registration options, so that a mistake is named on the first line
 * of the compiler's error -- as the registration names it at run time -- rather than as an
 * options type that the options given do not match. Types only: nothing here runs.
 *
 * @module
 */

/**
 * What a registration's options type parameter is when it was not inferred from an options
 * object: type arguments were given (TypeScript then infers none of the others), or the
 * options did not fit their type at all. The options are then checked as their declared
 * type, without the checks of {@link CheckedOptions}.
 */
export interface UninferredOptions {
  /** Never set: the key only tells this type from any options object. */
  readonly "kopf: options not inferred": never;
}

/**
 * The options parameter of a registration of the family `F` (`timer`, `field`, ...) given
 * options of type `G`, whose declared type is `D`: `G` itself when it is fine; `D` when `G` has
 * an unknown option (the compiler then names it, and suggests the option meant) or was not
 * inferred; else what is wrong with `G`, whose mismatch names the problem -- in the order the
 * registration checks them at run time: `G` with the message as the type of `value` when it is
 * given with `old` or `new`; the message (a string type) of an option missing -- `field` for a
 * filter of a field's values, and for `kopf.on.field`; `interval` or `idle` for `kopf.timer`.
 * What is given for sure counts for a clash (an optional key may be absent); any key at all
 * counts as given for a requirement (it may be present). `A` may stand in place of the options
 * (a resource, a name), unless they are the message of a problem, which `A` would swallow.
 */
export type CheckedOptions<F extends string, G, D, A = never> = [
  Extract<G, UninferredOptions>,
] extends [never] ? [Exclude<keyof G, keyof D>] extends [never] ? (
      { [K in keyof G]-?: object extends Pick<G, K> ? never : K }[keyof G] extends infer Given ? (
          ["value" & Given] extends [never] ? false
            : [("old" | "new") & Given] extends [never] ? false
            : true
        ) extends true ? Omit<G, "value"> & {
            value: "the options value and old/new cannot be combined: use either value or old/new";
          }
        : (
          [("value" | "old" | "new") & Given] extends [never] ? false
            : "field" extends keyof G ? false
            : true
        ) extends true
          ? "the options value, old and new filter a field's value: give the option field too"
        : [F, "field" extends keyof G ? true : false] extends ["field", false]
          ? "kopf.on.field needs the option field, the field to watch, e.g. { field: 'spec.size' }"
        : [F, [("interval" | "idle") & keyof G] extends [never] ? true : false] extends
          ["timer", true] ? "kopf.timer needs the option interval or idle (or both), in seconds"
        : never
        : never
    ) extends infer Problem ? [Problem] extends [never] ? G | A
      : [Problem] extends [string] ? Problem
      : Problem | A
    : never
  : D | A
  : D | A;
