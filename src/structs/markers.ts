/**
 * Special markers used in selectors and filters, distinct from any real value.
 *
 * @module
 */

/** In a label, annotation or field filter: the key must exist, with any value. */
export const PRESENT: unique symbol = Symbol.for("kopf.PRESENT");
/** In a label, annotation or field filter: the key must not exist. */
export const ABSENT: unique symbol = Symbol.for("kopf.ABSENT");
/** In the name position of a selector: every resource (of the group/version, if given). */
export const EVERYTHING: unique symbol = Symbol.for("kopf.EVERYTHING");

/** The type of {@link PRESENT}. */
export type Present = typeof PRESENT;
/** The type of {@link ABSENT}. */
export type Absent = typeof ABSENT;
/** The type of {@link EVERYTHING}. */
export type Everything = typeof EVERYTHING;
