/**
 * The section of `OperatorSettings` on how objects share the operator's processing: whose
 * objects take turns (the tenants), and how big a burst of changes is taken in. With the
 * rule that tells an object's tenant, the one place where it is written.
 *
 * @module
 */

import type { RawBody } from "../structs/bodies.ts";
import { isLabelKey } from "../structs/label_selectors.ts";

/**
 * How objects share the operator's processing. Objects wait for their processing in lanes
 * (live changes first, then retries and revisits, then listings, each lane served later but
 * never starved) and, within a lane, the **tenants** take turns: a burst of 20,000 objects of
 * one tenant does not delay another tenant's objects by more than a turn each.
 *
 * A tenant is, by `fairness`:
 * - `"namespace"` (the default): the object's namespace; cluster-scoped objects form one
 *   tenant;
 * - `{ label: "team" }`: the value of that label; objects without it form one tenant;
 * - a function of the object's body returning its tenant's name (called once when an
 *   object's work begins; keep it cheap). If it throws or returns no string, the object
 *   joins the tenant of the objects without one, and the error is logged once.
 *
 * A live watch of all namespaces tells of every tenant's changes in one stream, in the order
 * they were made: to reach the changes of one tenant made after another's burst, the queue
 * takes the burst's states in (each kept until processed), up to `burstLimit` objects waiting;
 * only then is the watch asked to wait. Listings are held back long before that.
 *
 * @example Teams label their objects; each team's objects take turns with the others'
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.queueing.fairness = { label: "team" };
 *   // or: settings.queueing.fairness = (body) => body.metadata?.namespace?.split("-")[0] ?? "";
 *   settings.queueing.burstLimit = 10_000; // big objects: keep fewer of them waiting
 * });
 * ```
 */
export class QueueingSettings {
  /** Whose objects take turns within a lane: see the class docs. */
  fairness: "namespace" | { readonly label: string } | ((body: RawBody) => string) = "namespace";
  /**
   * How many objects may wait with states told of by live events before the watches are
   * asked to wait (they go on at half as many). Each costs its state's body in memory: 10,000
   * Pods of about 15 KB parsed each hold about 180 MB, within the generated Deployment's
   * 512 MiB; raise it for small objects and bigger bursts, lower it for big objects.
   */
  burstLimit = 10_000;
}

/** What `settings.queueing.fairness` must be, if the value is not that; else `undefined`. */
export function fairnessProblem(value: unknown): string | undefined {
  if (value === "namespace" || typeof value === "function") return undefined;
  const label = typeof value === "object" && value !== null
    ? (value as { label?: unknown }).label
    : undefined;
  if (typeof label === "string" && isLabelKey(label)) return undefined;
  return '"namespace", { label: "<a label key>" } or a function of the body returning a string';
}

/**
 * The tenant of an object by `settings.queueing.fairness` (see {@link QueueingSettings}):
 * `""` for the objects of no tenant (cluster-scoped, unlabelled). A failing function throws.
 */
export function tenantOf(fairness: QueueingSettings["fairness"], body: RawBody): string {
  if (fairness === "namespace") return body.metadata?.namespace ?? "";
  if (typeof fairness === "function") {
    const tenant = fairness(body);
    if (typeof tenant !== "string") {
      throw new TypeError(`it returned ${tenant === null ? "null" : typeof tenant}, not a string`);
    }
    return tenant;
  }
  return body.metadata?.labels?.[fairness.label] ?? "";
}
