/**
 * A handler's own API call refused with HTTP 403: which rule it lacks, and how to grant it
 * -- the handler's `rbac` option, from which `kopf manifests` makes the operator's RBAC.
 *
 * @module
 */
import { APIError } from "../client/api_errors.ts";
import { parseDeclaredRule, ruleOfForbidden } from "../structs/rbac_rules.ts";

/**
 * The texts of a 403 that may hold the API server's message: this framework's
 * {@link APIError}, and another client's error with the status code as `code` or
 * `statusCode` and the Status as its body (e.g. `@kubernetes/client-node`'s).
 */
function forbiddenTexts(error: unknown): string[] {
  if (error === null || typeof error !== "object") return [];
  if (error instanceof APIError) return error.code === 403 ? [error.message] : [];
  const { code, statusCode, body, message } = error as Record<string, unknown>;
  if (code !== 403 && statusCode !== 403) return [];
  return [statusMessage(body), message].filter((text): text is string => typeof text === "string");
}

/** The message of a Status, given as an object or as its JSON. */
function statusMessage(body: unknown): unknown {
  if (typeof body === "string") {
    try {
      return statusMessage(JSON.parse(body));
    } catch {
      return body;
    }
  }
  return body !== null && typeof body === "object"
    ? (body as { message?: unknown }).message
    : undefined;
}

/** Whether a declared rule (`RESOURCE:VERBS`) grants the rule (`RESOURCE:VERB`). */
function grants(declared: string, rule: string): boolean {
  const has = parseDeclaredRule(declared);
  const wanted = parseDeclaredRule(rule);
  if (has === undefined || wanted === undefined) return false;
  return has.group === wanted.group && has.plural === wanted.plural &&
    has.subresource === wanted.subresource &&
    (has.verbs.includes("*") || has.verbs.includes(wanted.verbs[0]));
}

/**
 * How to grant what a handler's failed API call was refused, as a sentence for the
 * handler's error line; `undefined` if the error is no 403 of a resource.
 */
export function forbiddenHint(
  handler: { readonly registrar?: string; readonly rbac?: readonly string[] },
  error: unknown,
): string | undefined {
  for (const text of forbiddenTexts(error)) {
    const rule = ruleOfForbidden(text);
    if (rule === undefined) continue;
    if ((handler.rbac ?? []).some((declared) => grants(declared, rule))) {
      return `The API server refused ${rule} (HTTP 403), which the handler's option rbac ` +
        "declares: apply the RBAC that kopf manifests prints to the operator's cluster.";
    }
    return `The API server refused ${rule} (HTTP 403): grant it with the handler's option ` +
      `rbac: ["${rule}"] (${
        handler.registrar ?? "kopf.on\u2026"
      }(\u2026, { rbac: [...] }, fn)), then ` +
      "apply the RBAC that kopf manifests prints.";
  }
  return undefined;
}
