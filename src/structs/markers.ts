/**
 * Special markers used in selectors and filters, distinct from any real value.
 *
 * Each marker's type is a branded symbol rather than `typeof` the constant: the constants
 * are reached as `kopf.PRESENT` (a value of the `kopf` namespace) and the types by name
 * (`Marker<"present">`), and a type written in terms of a namespace member would not be
 * documented.
 *
 * @module
 */

/**
 * The type of a marker -- `Marker<"present">` of {@link PRESENT}, `Marker<"absent">` of
 * {@link ABSENT}, `Marker<"everything">` of {@link EVERYTHING}: a symbol that no other
 * value is.
 */
export type Marker<Kind extends "present" | "absent" | "everything"> = symbol & {
  readonly "kopf.marker": Kind;
};

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
export const PRESENT: Marker<"present"> = Symbol.for("kopf.PRESENT") as Marker<"present">;

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
export const ABSENT: Marker<"absent"> = Symbol.for("kopf.ABSENT") as Marker<"absent">;

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
export const EVERYTHING: Marker<"everything"> = Symbol.for("kopf.EVERYTHING") as Marker<
  "everything"
>;
