/**
 * Who a write is by, as kube-apiserver reads it from a request: the `fieldManager` query
 * parameter (at most 128 printable characters; required for applies), or else the
 * product of the `User-Agent` (`kubectl/v1.32.0 (linux/amd64) ...` is `kubectl`); and an
 * apply's `force`, which only applies take.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { ApiError, type Cause } from "./errors.ts";
import { queryFlag } from "./requests.ts";
import type { ApplyRequest } from "./server_side_apply.ts";

/** The longest field manager the API server accepts. */
const MAX_MANAGER_LENGTH = 128;

/** The options kind a write's query parameters are validated as. */
export type OptionsKind = "CreateOptions" | "UpdateOptions" | "PatchOptions";

/** A 422 about the request's options, as the API server words it. */
function invalidOptions(kind: OptionsKind, causes: Cause[]): ApiError {
  const text = causes.map((c) => `${c.field}: ${c.message}`).join(", ");
  const details: JsonObject = {
    name: "",
    group: "meta.k8s.io",
    kind,
    causes: causes.map((c) => ({
      reason: c.reason ?? "FieldValueInvalid",
      message: c.message,
      field: c.field,
    })),
  };
  return new ApiError(422, `${kind}.meta.k8s.io "" is invalid: ${text}`, { details });
}

/** Whether a character is printable, as Go's `unicode.IsPrint` (ASCII space included). */
function printable(char: string): boolean {
  return char === " " || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(char);
}

function managerCauses(manager: string): Cause[] {
  const causes: Cause[] = [];
  if (new TextEncoder().encode(manager).length > MAX_MANAGER_LENGTH) {
    causes.push({
      field: "fieldManager",
      reason: "FieldValueTooLong",
      message: `Too long: may not be more than ${MAX_MANAGER_LENGTH} bytes`,
    });
  }
  let at = 0;
  for (const char of manager) {
    if (!printable(char)) {
      const code = char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
      causes.push({
        field: "fieldManager",
        message: `Invalid value: ${
          JSON.stringify(manager)
        }: invalid character U+${code} (at position ${at})`,
      });
    }
    at += new TextEncoder().encode(char).length;
  }
  return causes;
}

/** The product of a user agent: before its first `/`, printable, at most 128 bytes. */
export function managerFromUserAgent(userAgent: string): string {
  let out = "";
  let bytes = 0;
  for (const char of userAgent.split("/")[0]) {
    if (!printable(char)) continue;
    const size = new TextEncoder().encode(char).length;
    if (bytes + size > MAX_MANAGER_LENGTH) break;
    out += char;
    bytes += size;
  }
  return out;
}

/**
 * The manager of a create, update or non-apply patch: `fieldManager`, or the product of
 * the user agent. `force` is refused on them (422), as the server refuses it.
 */
export function managerOf(
  params: URLSearchParams,
  userAgent: string | null,
  kind: OptionsKind,
): string {
  const manager = params.get("fieldManager") ?? "";
  const causes = managerCauses(manager);
  if (kind === "PatchOptions" && params.has("force")) {
    causes.unshift({
      field: "force",
      reason: "FieldValueForbidden",
      message: "Forbidden: may not be specified for non-apply patch",
    });
  }
  if (causes.length) throw invalidOptions(kind, causes);
  return manager || managerFromUserAgent(userAgent ?? "");
}

/** The manager and `force` of an apply; a 422 without a `fieldManager`. */
export function applyRequestOf(params: URLSearchParams): ApplyRequest {
  const manager = params.get("fieldManager") ?? "";
  const causes = managerCauses(manager);
  if (!manager) {
    causes.unshift({
      field: "fieldManager",
      reason: "FieldValueRequired",
      message: "Required value: is required for apply patch",
    });
  }
  if (causes.length) throw invalidOptions("PatchOptions", causes);
  return { manager, force: queryFlag(params, "force") };
}
