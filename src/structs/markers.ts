/**
 * Special markers used in selectors and filters, distinct from any real value.
 *
 * Each marker's type is a branded symbol rather than `typeof` the constant: the constants
 * are reached as `kopf.PRESENT` (a value of the `kopf` namespace) and the types by name
 * (`Present`), and a type written in terms of a namespace member would not be documented.
 *
 * @module
 */

/** The type of the {@link PRESENT} marker: a symbol that no other value is. */
export type Present = symbol & { readonly "kopf.marker": "present" };
/** The type of the {@link ABSENT} marker: a symbol that no other value is. */
export type Absent = symbol & { readonly "kopf.marker": "absent" };
/** The type of the {@link EVERYTHING} marker: a symbol that no other value is. */
export type Everything = symbol & { readonly "kopf.marker": "everything" };

/**
 * In a label, annotation or field filter: the key must exist, with any value.
 *
 * @example Handle only the objects that carry an `owner` label, whatever its value
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.create("kopfexamples", { labels: { owner: kopf.PRESENT } }, ({ labels, logger }) => {
 *   logger.info(`owned by ${labels.owner}`);
 * });
 * ```
 */
export const PRESENT: Present = Symbol.for("kopf.PRESENT") as Present;

/**
 * In a label, annotation or field filter: the key must not exist.
 *
 * @example Fill in a default only while the field is missing
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.create("kopfexamples", { field: "spec.size", value: kopf.ABSENT }, ({ patch }) => {
 *   patch.spec.size = "small";
 * });
 * ```
 */
export const ABSENT: Absent = Symbol.for("kopf.ABSENT") as Absent;

/**
 * In the name position of a selector: every resource (of the group/version, if given).
 *
 * @example Log the events of every resource of one API group
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.event("kopf.dev", kopf.EVERYTHING, ({ type, resource, name }) => {
 *   console.log(`${type} ${resource.plural}/${name}`);
 * });
 * ```
 */
export const EVERYTHING: Everything = Symbol.for("kopf.EVERYTHING") as Everything;
