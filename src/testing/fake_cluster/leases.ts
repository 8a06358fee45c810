/**
 * Leases (`coordination.k8s.io/v1`) as kube-apiserver checks them: the times are
 * `MicroTime` (RFC 3339 with microseconds), decoded strictly — a time that does not parse
 * is a 400 before any validation, as the Go decoder refuses it — and the durations and
 * counters must not be negative. Optimistic concurrency (a stale `resourceVersion` on an
 * update is a 409) is the store's, as for every kind.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import type { Cause } from "./errors.ts";
import { badRequest } from "./errors.ts";
import { isObject } from "./patching.ts";

/** RFC 3339 with optional fractions and a zone, as Go's MicroTime decoder accepts. */
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** The problems of a Lease: a 400 for a time that does not decode, else the 422 causes. */
export function checkLease(object: JsonObject): Cause[] {
  const spec = isObject(object.spec) ? object.spec : {};
  for (const field of ["acquireTime", "renewTime"]) {
    const value: JsonValue | undefined = spec[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== "string" || !MICRO_TIME.test(value) || Number.isNaN(Date.parse(value))) {
      throw badRequest(
        `Lease in version "v1" cannot be handled as a Lease: parsing time ${
          JSON.stringify(value)
        } as "2006-01-02T15:04:05.000000Z07:00": cannot parse ${JSON.stringify(value)} as "2006"`,
      );
    }
  }
  const causes: Cause[] = [];
  const duration = spec.leaseDurationSeconds;
  if (duration !== undefined && duration !== null && !(Number(duration) > 0)) {
    causes.push({ field: "spec.leaseDurationSeconds", message: "must be greater than 0" });
  }
  const transitions = spec.leaseTransitions;
  if (transitions !== undefined && transitions !== null && !(Number(transitions) >= 0)) {
    causes.push({
      field: "spec.leaseTransitions",
      message: "must be greater than or equal to 0",
    });
  }
  return causes;
}
