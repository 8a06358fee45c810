/**
 * Admission webhooks: the fake API server calls the webhooks of
 * `MutatingWebhookConfiguration` and `ValidatingWebhookConfiguration` objects as a real
 * one does — matching rules, namespace and object selectors, `AdmissionReview` v1 over
 * HTTPS with the configured CA bundle, JSON patches from mutating webhooks, denials as
 * `Status` errors, `failurePolicy`, `timeoutSeconds`, `sideEffects` with dry runs.
 * Webhooks are reached by `clientConfig.url` (a cluster without a network cannot reach
 * services: those calls fail, and `failurePolicy` decides).
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { createHttpClient } from "../../platform/http_client.ts";
import { type ResourceType, type ServedVersion, typeKey } from "./catalog.ts";
import { ApiError, type Cause } from "./errors.ts";
import { isObject, jsonPatch } from "./patching.ts";
import type { Store } from "./store.ts";

/** What is being admitted. */
export interface AdmissionAttributes {
  operation: "CREATE" | "UPDATE" | "DELETE";
  type: ResourceType;
  version: ServedVersion;
  subresource?: string;
  namespace?: string;
  name: string;
  /** The new object (not for DELETE). */
  object?: JsonObject;
  /** The current object (UPDATE and DELETE). */
  oldObject?: JsonObject;
  dryRun: boolean;
  /** Who asks: the user name and groups. */
  user: { username: string; groups: string[] };
}

const MUTATING = typeKey("admissionregistration.k8s.io", "mutatingwebhookconfigurations");
const VALIDATING = typeKey("admissionregistration.k8s.io", "validatingwebhookconfigurations");
const NAMESPACES = typeKey("", "namespaces");

function strings(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

function labelsOf(object: JsonObject | undefined): Record<string, string> {
  const meta = object && isObject(object.metadata) ? object.metadata : {};
  return isObject(meta.labels) ? meta.labels as Record<string, string> : {};
}

/** A `metav1.LabelSelector` (matchLabels, matchExpressions) against labels. */
function selectorMatches(selector: JsonValue | undefined, labels: Record<string, string>): boolean {
  if (!isObject(selector)) return true;
  const match = isObject(selector.matchLabels) ? selector.matchLabels : {};
  for (const [k, v] of Object.entries(match)) if (labels[k] !== v) return false;
  const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  for (const e of expressions) {
    if (!isObject(e)) continue;
    const key = String(e.key);
    const values = strings(e.values);
    const has = Object.hasOwn(labels, key);
    const ok = e.operator === "In"
      ? has && values.includes(labels[key])
      : e.operator === "NotIn"
      ? !has || !values.includes(labels[key])
      : e.operator === "Exists"
      ? has
      : e.operator === "DoesNotExist"
      ? !has
      : false;
    if (!ok) return false;
  }
  return true;
}

function ruleMatches(rule: JsonObject, a: AdmissionAttributes): boolean {
  const any = (list: string[], value: string) => list.includes("*") || list.includes(value);
  if (!any(strings(rule.operations), a.operation)) return false;
  if (!any(strings(rule.apiGroups), a.type.group)) return false;
  if (!any(strings(rule.apiVersions), a.version.name)) return false;
  const resource = a.subresource ? `${a.type.plural}/${a.subresource}` : a.type.plural;
  const resources = strings(rule.resources);
  const wanted = resources.some((r) =>
    r === resource || r === "*/*" || (r === "*" && !a.subresource) ||
    (a.subresource !== undefined && r === `*/${a.subresource}`) ||
    (a.subresource !== undefined && r === `${a.type.plural}/*`)
  );
  if (!wanted) return false;
  const scope = rule.scope ?? "*";
  return scope === "*" || (scope === "Namespaced") === a.type.namespaced;
}

/** Problems of a webhook configuration that a real server rejects with 422. */
export function checkWebhookConfiguration(object: JsonObject): Cause[] {
  const causes: Cause[] = [];
  const webhooks = Array.isArray(object.webhooks) ? object.webhooks : [];
  webhooks.forEach((hook, i) => {
    const config = isObject(hook) && isObject(hook.clientConfig) ? hook.clientConfig : {};
    const url = config.url;
    if (url === undefined && !isObject(config.service)) {
      causes.push({
        field: `webhooks[${i}].clientConfig`,
        reason: "FieldValueRequired",
        message: "Required value: exactly one of url or service is required",
      });
    } else if (typeof url === "string" && !url.startsWith("https://")) {
      causes.push({
        field: `webhooks[${i}].clientConfig.url`,
        message: `Invalid value: ${JSON.stringify(url)}: 'https' is the only allowed URL scheme`,
      });
    }
  });
  return causes;
}

/** Calls the admission webhooks configured in the store. */
export class Admission {
  constructor(readonly store: Store) {}

  /** Whether any webhook configuration exists (admission is skipped when none does). */
  get active(): boolean {
    return this.store.count(MUTATING) > 0 || this.store.count(VALIDATING) > 0;
  }

  #webhooks(key: string, a: AdmissionAttributes): JsonObject[] {
    // Configurations about webhook configurations are never called, as on a real server.
    if (a.type.group === "admissionregistration.k8s.io") return [];
    const found: JsonObject[] = [];
    for (const config of this.store.list(key)) {
      const hooks = Array.isArray(config.webhooks) ? config.webhooks.filter(isObject) : [];
      for (const hook of hooks) {
        const rules = Array.isArray(hook.rules) ? hook.rules.filter(isObject) : [];
        if (!rules.some((rule) => ruleMatches(rule, a))) continue;
        if (!this.#selectorsMatch(hook, a)) continue;
        found.push(hook);
      }
    }
    return found;
  }

  #selectorsMatch(hook: JsonObject, a: AdmissionAttributes): boolean {
    const objectSelector = hook.objectSelector;
    if (
      !selectorMatches(objectSelector, labelsOf(a.object)) &&
      !selectorMatches(objectSelector, labelsOf(a.oldObject))
    ) return false;
    let nsLabels: Record<string, string> | undefined;
    if (typeKey(a.type.group, a.type.plural) === NAMESPACES) {
      nsLabels = labelsOf(a.object ?? a.oldObject);
    } else if (a.type.namespaced && a.namespace) {
      nsLabels = labelsOf(this.store.get(NAMESPACES, "", a.namespace));
    }
    return nsLabels === undefined || selectorMatches(hook.namespaceSelector, nsLabels);
  }

  /** Run the mutating webhooks in order; returns the object as they left it, and warnings. */
  async mutate(a: AdmissionAttributes): Promise<{ object?: JsonObject; warnings: string[] }> {
    let object = a.object;
    const warnings: string[] = [];
    for (const hook of this.#webhooks(MUTATING, a)) {
      const response = await this.#call(hook, { ...a, object });
      if (!response) continue;
      warnings.push(...strings(response.warnings));
      if (typeof response.patch === "string" && object && a.operation !== "DELETE") {
        let operations: JsonValue;
        try {
          operations = JSON.parse(atob(response.patch));
        } catch {
          throw this.#failure(hook, "the webhook's patch is not base64-encoded JSON");
        }
        object = jsonPatch(object, operations) as JsonObject;
      }
    }
    return { object, warnings };
  }

  /** Run the validating webhooks; returns their warnings, throws on a denial. */
  async validate(a: AdmissionAttributes): Promise<string[]> {
    const responses = await Promise.all(
      this.#webhooks(VALIDATING, a).map((hook) => this.#call(hook, a)),
    );
    return responses.flatMap((r) => strings(r?.warnings));
  }

  #failure(hook: JsonObject, why: string): ApiError {
    return new ApiError(
      500,
      `Internal error occurred: failed calling webhook "${hook.name}": ${why}`,
    );
  }

  /** Call one webhook; `undefined` when its failure is ignored by `failurePolicy`. */
  async #call(hook: JsonObject, a: AdmissionAttributes): Promise<JsonObject | undefined> {
    const ignore = hook.failurePolicy === "Ignore";
    const sideEffects = String(hook.sideEffects ?? "Unknown");
    if (a.dryRun && sideEffects !== "None" && sideEffects !== "NoneOnDryRun") {
      throw new ApiError(
        400,
        `admission webhook "${hook.name}" does not support dry run (sideEffects: ${sideEffects})`,
      );
    }
    try {
      return this.#judge(hook, await this.#post(hook, a));
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (ignore) return undefined;
      throw this.#failure(hook, error instanceof Error ? error.message : String(error));
    }
  }

  async #post(hook: JsonObject, a: AdmissionAttributes): Promise<JsonObject> {
    const config = isObject(hook.clientConfig) ? hook.clientConfig : {};
    if (typeof config.url !== "string") {
      throw new Error(
        "the fake cluster has no service network: give the webhook a clientConfig.url",
      );
    }
    const ca = typeof config.caBundle === "string" && config.caBundle
      ? atob(config.caBundle)
      : undefined;
    const uid = crypto.randomUUID();
    const gvk = { group: a.type.group, version: a.version.name, kind: a.type.kind };
    const gvr = { group: a.type.group, version: a.version.name, resource: a.type.plural };
    const review = {
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: {
        uid,
        kind: gvk,
        resource: gvr,
        ...(a.subresource ? { subResource: a.subresource } : {}),
        requestKind: gvk,
        requestResource: gvr,
        name: a.name,
        ...(a.namespace ? { namespace: a.namespace } : {}),
        operation: a.operation,
        userInfo: a.user,
        object: a.object ?? null,
        oldObject: a.oldObject ?? null,
        dryRun: a.dryRun,
        options: {
          apiVersion: "meta.k8s.io/v1",
          kind: `${a.operation[0]}${a.operation.slice(1).toLowerCase()}Options`,
        },
      },
    };
    const seconds = typeof hook.timeoutSeconds === "number" ? hook.timeoutSeconds : 10;
    const client = await createHttpClient({
      caCertificates: ca ? [ca] : [],
      connectTimeout: seconds,
    });
    try {
      const response = await client.fetch(config.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(review),
        signal: AbortSignal.timeout(seconds * 1000),
      });
      const text = await response.text();
      if (response.status !== 200) {
        throw new Error(`the webhook answered HTTP ${response.status}: ${text.slice(0, 200)}`);
      }
      const parsed = JSON.parse(text) as JsonValue;
      const answer = isObject(parsed) && isObject(parsed.response) ? parsed.response : undefined;
      if (!answer) throw new Error("the webhook's answer has no response");
      if (answer.uid !== uid) {
        throw new Error(
          `the response's uid ${JSON.stringify(answer.uid)} is not the request's ${uid}`,
        );
      }
      return answer;
    } finally {
      await client.close();
    }
  }

  /** A denial becomes the API error the client sees; an allowance passes through. */
  #judge(hook: JsonObject, answer: JsonObject): JsonObject {
    if (answer.allowed === true) return answer;
    const result = isObject(answer.status) ? answer.status : {};
    const code = typeof result.code === "number" && result.code >= 400 ? result.code : 400;
    const message = typeof result.message === "string" ? `: ${result.message}` : "";
    throw new ApiError(code, `admission webhook "${hook.name}" denied the request${message}`, {
      reason: typeof result.reason === "string" && result.reason ? result.reason : undefined,
    });
  }
}
