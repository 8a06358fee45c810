/**
 * Admission webhooks: the fake API server calls the webhooks of
 * `MutatingWebhookConfiguration` and `ValidatingWebhookConfiguration` objects as a real
 * one does -- matching rules, namespace and object selectors, `AdmissionReview` v1 over
 * HTTPS with the configured CA bundle, JSON patches from mutating webhooks, denials as
 * `Status` errors, `failurePolicy`, `timeoutSeconds`, `sideEffects` with dry runs.
 * Webhooks are reached by `clientConfig.url` (a cluster without a network cannot reach
 * services: those calls fail, and `failurePolicy` decides).
 *
 * @module
 */
import {
  ADMISSION_REVIEW_API_VERSION,
  type AdmissionReviewRequestBody,
} from "../../structs/admission_reviews.ts";
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { ConnectTimeoutError } from "../../platform/connect_timeout.ts";
import { createHttpClient } from "../../platform/http_client.ts";
import { type ResourceType, type ServedVersion, typeKey } from "../../catalog/resource_types.ts";
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

/** One call of an admission webhook, as {@link Admission.calls} records it. */
export interface AdmissionCall {
  /** When the call started. */
  time: Date;
  /** `mutating` or `validating`. */
  phase: "mutating" | "validating";
  /** The name of the webhook configuration. */
  configuration: string;
  /** The name of the webhook within it. */
  webhook: string;
  /** The URL posted to (with the `timeout` parameter), if the webhook has one. */
  url?: string;
  /** What was admitted. */
  operation: "CREATE" | "UPDATE" | "DELETE";
  /** The resource: group, version, plural name. */
  resource: { group: string; version: string; resource: string };
  /** The subresource, e.g. `status`, when one was written. */
  subResource?: string;
  /** The object's namespace (none for cluster-scoped objects). */
  namespace?: string;
  /** The object's name. */
  name: string;
  /** Whether the request was a dry run. */
  dryRun: boolean;
  /**
   * How it ended: `allowed` (without a patch), `patched`, `denied`, `failed` (the request
   * failed with it), `ignored` (a failure let through by `failurePolicy: Ignore`), or
   * `refused` (not called: it has side effects and the request is a dry run).
   */
  outcome: "allowed" | "patched" | "denied" | "failed" | "ignored" | "refused";
  /** The denial's or failure's message. */
  message?: string;
  /** The webhook's warnings. */
  warnings: string[];
}

/** How many calls {@link Admission.calls} keeps. */
const CALL_LOG_LIMIT = 10_000;

/** A webhook with the configuration it belongs to. */
interface Hook {
  configuration: string;
  hook: JsonObject;
  rules: JsonObject[];
}

/** A failed call (not a denial): `failurePolicy` decides whether it fails the request. */
class CallFailure extends Error {}

/** The `AdmissionReview` v1 of a request, as kube-apiserver posts it. */
function reviewOf(a: AdmissionAttributes, uid: string): AdmissionReviewRequestBody {
  const gvk = { group: a.type.group, version: a.version.name, kind: a.type.kind };
  const gvr = { group: a.type.group, version: a.version.name, resource: a.type.plural };
  return {
    apiVersion: ADMISSION_REVIEW_API_VERSION,
    kind: "AdmissionReview",
    request: {
      uid,
      kind: gvk,
      resource: gvr,
      ...(a.subresource ? { subResource: a.subresource } : {}),
      requestKind: gvk,
      requestResource: gvr,
      ...(a.subresource ? { requestSubResource: a.subresource } : {}),
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
        ...(a.dryRun ? { dryRun: ["All"] } : {}),
      },
    },
  };
}

/** The CA bundle of a webhook's `clientConfig`, decoded. */
function caBundleOf(config: JsonObject): string | undefined {
  if (typeof config.caBundle !== "string" || !config.caBundle) return undefined;
  try {
    return atob(config.caBundle);
  } catch {
    throw new CallFailure("the webhook's caBundle is not base64");
  }
}

/** Send the review; the status and the text of the answer. */
async function send(
  url: string,
  seconds: number,
  ca: string | undefined,
  review: AdmissionReviewRequestBody,
): Promise<{ status: number; text: string }> {
  // A timer cleared once answered, not `AbortSignal.timeout()`, whose timer keeps the
  // process alive to its end: `kopf fake-cluster` would linger that long after a stop.
  const deadline = new AbortController();
  const signal = deadline.signal;
  const timer = setTimeout(() => deadline.abort(), seconds * 1000);
  let client;
  try {
    client = await createHttpClient({ caCertificates: ca ? [ca] : [], connectTimeout: seconds });
    const response = await client.fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(review),
      signal,
    });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    const why = signal.aborted || error instanceof ConnectTimeoutError
      ? "context deadline exceeded"
      : error instanceof Error
      ? error.message
      : String(error);
    throw new CallFailure(`failed to call webhook: Post ${JSON.stringify(url)}: ${why}`);
  } finally {
    clearTimeout(timer);
    await client?.close();
  }
}

/** The `response` of a webhook's answer, checked as kube-apiserver checks it. */
function answerOf(text: string, uid: string, phase: AdmissionCall["phase"]): JsonObject {
  const invalid = (why: string) => new CallFailure(`received invalid webhook response: ${why}`);
  let parsed: JsonValue;
  try {
    parsed = JSON.parse(text) as JsonValue;
  } catch {
    throw invalid("the body is not JSON");
  }
  if (
    !isObject(parsed) || parsed.apiVersion !== ADMISSION_REVIEW_API_VERSION ||
    parsed.kind !== "AdmissionReview"
  ) {
    const got = isObject(parsed) ? `${parsed.apiVersion}, Kind=${parsed.kind}` : typeof parsed;
    throw invalid(
      `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${got}`,
    );
  }
  const answer = isObject(parsed.response) ? parsed.response : undefined;
  if (!answer) throw invalid("response is missing");
  if (answer.uid !== uid) {
    throw invalid(
      `expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(answer.uid)}`,
    );
  }
  const patched = typeof answer.patch === "string" && answer.patch.length > 0;
  if (patched && phase === "validating") {
    throw invalid("validating webhook may not return response.patch");
  }
  if (patched && answer.patchType === undefined) {
    throw invalid("webhook returned response.patch but not response.patchType");
  }
  if (patched && answer.patchType !== "JSONPatch") {
    throw invalid(
      `webhook returned invalid response.patchType of ${JSON.stringify(answer.patchType)}`,
    );
  }
  return answer;
}

/** Post the review; every way this can fail is a {@link CallFailure}. */
async function postReview(
  phase: AdmissionCall["phase"],
  url: string,
  seconds: number,
  config: JsonObject,
  a: AdmissionAttributes,
): Promise<JsonObject> {
  const ca = caBundleOf(config);
  const uid = crypto.randomUUID();
  const { status, text } = await send(url, seconds, ca, reviewOf(a, uid));
  if (status !== 200) {
    throw new CallFailure(
      `failed to call webhook: the server responded with the status code ${status}: ${
        text.slice(0, 200)
      }`,
    );
  }
  return answerOf(text, uid, phase);
}

/**
 * Calls the admission webhooks configured in the store. The configurations are indexed
 * (rebuilt only after one of them changes), so a cluster without any costs nothing.
 */
export class Admission {
  #index: Map<string, Hook[]> | undefined;
  readonly #calls: AdmissionCall[] = [];

  constructor(readonly store: Store) {
    store.listen((change) => {
      if (change.typeKey === MUTATING || change.typeKey === VALIDATING) this.#index = undefined;
    });
  }

  /** The webhook calls so far (the last 10,000 at most), oldest first. */
  get calls(): readonly AdmissionCall[] {
    return this.#calls.slice(-CALL_LOG_LIMIT);
  }

  #hooks(): Map<string, Hook[]> {
    if (this.#index) return this.#index;
    const index = new Map<string, Hook[]>();
    for (const key of [MUTATING, VALIDATING]) {
      const hooks: Hook[] = [];
      // Configurations in name order (the store lists them so), webhooks in their order.
      for (const config of this.store.list(key)) {
        const configuration = String((config.metadata as JsonObject).name);
        for (const hook of Array.isArray(config.webhooks) ? config.webhooks : []) {
          if (!isObject(hook)) continue;
          const rules = Array.isArray(hook.rules) ? hook.rules.filter(isObject) : [];
          hooks.push({ configuration, hook, rules });
        }
      }
      if (hooks.length) index.set(key, hooks);
    }
    this.#index = index;
    return index;
  }

  /** Whether any webhook exists (admission is skipped when none does). */
  get active(): boolean {
    return this.#hooks().size > 0;
  }

  #webhooks(key: string, a: AdmissionAttributes): Hook[] {
    // Configurations about webhook configurations are never called, as on a real server.
    if (a.type.group === "admissionregistration.k8s.io") return [];
    return (this.#hooks().get(key) ?? []).filter((h) =>
      h.rules.some((rule) => ruleMatches(rule, a)) && this.#selectorsMatch(h.hook, a)
    );
  }

  #selectorsMatch(hook: JsonObject, a: AdmissionAttributes): boolean {
    const objectSelector = hook.objectSelector;
    // As the API server does: the new or the old object must match, an absent one never does.
    if (
      isObject(objectSelector) && Object.keys(objectSelector).length &&
      !(a.object && selectorMatches(objectSelector, labelsOf(a.object))) &&
      !(a.oldObject && selectorMatches(objectSelector, labelsOf(a.oldObject)))
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
      const response = await this.#call("mutating", hook, { ...a, object });
      if (!response) continue;
      warnings.push(...strings(response.warnings));
      if (typeof response.patch === "string" && object && a.operation !== "DELETE") {
        let operations: JsonValue;
        try {
          operations = JSON.parse(atob(response.patch));
        } catch {
          throw new ApiError(
            500,
            `Internal error occurred: the patch of webhook "${hook.hook.name}" is not base64-encoded JSON`,
          );
        }
        try {
          object = jsonPatch(object, operations) as JsonObject;
        } catch (error) {
          if (error instanceof ApiError) {
            throw new ApiError(
              500,
              `Internal error occurred: the patch of webhook "${hook.hook.name}" does not apply: ${error.message}`,
            );
          }
          throw error;
        }
      }
    }
    return { object, warnings };
  }

  /** Run the validating webhooks (in parallel); returns their warnings, throws on a denial. */
  async validate(a: AdmissionAttributes): Promise<string[]> {
    const results = await Promise.allSettled(
      this.#webhooks(VALIDATING, a).map((hook) => this.#call("validating", hook, a)),
    );
    const rejected = results.find((r) => r.status === "rejected");
    if (rejected) throw rejected.reason;
    return results.flatMap((r) => r.status === "fulfilled" ? strings(r.value?.warnings) : []);
  }

  /** Call one webhook; `undefined` when its failure is ignored by `failurePolicy`. */
  async #call(
    phase: AdmissionCall["phase"],
    { configuration, hook }: Hook,
    a: AdmissionAttributes,
  ): Promise<JsonObject | undefined> {
    const name = String(hook.name);
    const config = isObject(hook.clientConfig) ? hook.clientConfig : {};
    const seconds = typeof hook.timeoutSeconds === "number" ? hook.timeoutSeconds : 10;
    let url: string | undefined;
    if (typeof config.url === "string") {
      try {
        const parsed = new URL(config.url);
        parsed.searchParams.set("timeout", `${seconds}s`);
        url = parsed.href;
      } catch {
        url = config.url;
      }
    }
    const record: AdmissionCall = {
      time: new Date(),
      phase,
      configuration,
      webhook: name,
      ...(url ? { url } : {}),
      operation: a.operation,
      resource: { group: a.type.group, version: a.version.name, resource: a.type.plural },
      ...(a.subresource ? { subResource: a.subresource } : {}),
      ...(a.namespace ? { namespace: a.namespace } : {}),
      name: a.name,
      dryRun: a.dryRun,
      outcome: "allowed",
      warnings: [],
    };
    this.#calls.push(record);
    if (this.#calls.length > 2 * CALL_LOG_LIMIT) {
      this.#calls.splice(0, this.#calls.length - CALL_LOG_LIMIT);
    }
    const sideEffects = String(hook.sideEffects ?? "Unknown");
    if (a.dryRun && sideEffects !== "None" && sideEffects !== "NoneOnDryRun") {
      record.outcome = "refused";
      record.message = `admission webhook "${name}" does not support dry run`;
      throw new ApiError(400, record.message);
    }
    try {
      if (url === undefined) {
        throw new CallFailure(
          "the fake cluster has no service network to reach clientConfig.service: give the webhook a clientConfig.url",
        );
      }
      const answer = await postReview(phase, url, seconds, config, a);
      record.warnings = strings(answer.warnings);
      if (answer.allowed !== true) {
        const denial = this.#denial(name, answer);
        record.outcome = "denied";
        record.message = denial.message;
        throw denial;
      }
      if (typeof answer.patch === "string" && answer.patch) record.outcome = "patched";
      return answer;
    } catch (error) {
      if (!(error instanceof CallFailure)) throw error;
      record.message = `failed calling webhook "${name}": ${error.message}`;
      if (hook.failurePolicy === "Ignore") {
        record.outcome = "ignored";
        return undefined;
      }
      record.outcome = "failed";
      throw new ApiError(500, `Internal error occurred: ${record.message}`);
    }
  }

  /** A denial as kube-apiserver words it: the webhook's status, 400 at least. */
  #denial(name: string, answer: JsonObject): ApiError {
    const result = isObject(answer.status) ? answer.status : {};
    const code = typeof result.code === "number" && result.code >= 400 ? result.code : 400;
    const reason = typeof result.reason === "string" && result.reason ? result.reason : undefined;
    const deniedBy = `admission webhook "${name}" denied the request`;
    const message = typeof result.message === "string" && result.message
      ? `${deniedBy}: ${result.message}`
      : reason
      ? `${deniedBy}: ${reason}`
      : `${deniedBy} without explanation`;
    return new ApiError(code, message, { reason });
  }
}
