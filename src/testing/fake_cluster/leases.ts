/**
 * Leases (`coordination.k8s.io/v1`) as kube-apiserver checks them: the times are
 * `MicroTime` (RFC 3339 with microseconds), decoded strictly -- a time that does not parse
 * is a 400 before any validation, as the Go decoder refuses it -- and the durations and
 * counters must not be negative, a coordinated `strategy` must be one kube-apiserver knows
 * (or a qualified name of one's own), and a `preferredHolder` needs one. Optimistic concurrency (a stale `resourceVersion` on an
 * update is a 409) is the store's, as for every kind.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import type { Cause } from "./errors.ts";
import { badRequest } from "./errors.ts";
import { qualifiedNameErrors } from "./metadata.ts";
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
  causes.push(...strategyCauses(spec));
  return causes;
}

/** The coordinated-leader-election strategies kube-apiserver defines. */
const STRATEGIES: readonly string[] = ["OldestEmulationVersion"];

/**
 * The problems of `spec.strategy` and `spec.preferredHolder`, as `ValidateLeaseSpec` and
 * `ValidateCoordinatedLeaseStrategy` report them (the latter names its field
 * `spec.strategy.strategy`, being given `spec.strategy` and adding `strategy` again).
 */
function strategyCauses(spec: JsonObject): Cause[] {
  const causes: Cause[] = [];
  const strategy = spec.strategy;
  if (strategy !== undefined && strategy !== null) {
    const text = String(strategy);
    const field = "spec.strategy.strategy";
    if (!text.includes("/") && !STRATEGIES.includes(text)) {
      causes.push({
        field,
        reason: "FieldValueNotSupported",
        message: `Unsupported value: ${JSON.stringify(text)}: supported values: ${
          STRATEGIES.map((s) => JSON.stringify(s)).join(", ")
        }`,
      });
    } else if (text.includes("/")) {
      for (const message of qualifiedNameErrors(text)) {
        causes.push({ field, message: `Invalid value: ${JSON.stringify(text)}: ${message}` });
      }
    }
  }
  const holder = spec.preferredHolder;
  if (
    typeof holder === "string" && holder !== "" &&
    (strategy === undefined || strategy === null || strategy === "")
  ) {
    causes.push({
      field: "spec.preferredHolder",
      reason: "FieldValueForbidden",
      message: "Forbidden: may only be specified if `strategy` is defined",
    });
  }
  return causes;
}
