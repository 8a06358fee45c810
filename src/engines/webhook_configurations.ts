/**
 * The managed webhook configurations: their resources, the webhooks of one configuration
 * (one per handler: its name, rules, object selector and client config), and writing a
 * configuration to the cluster.
 *
 * @module
 */
import type { JsonObject, RawBody } from "../structs/bodies.ts";
import { ABSENT, PRESENT } from "../structs/markers.ts";
import { Resource } from "../structs/resources.ts";
import type { ApiClient } from "../client/api.ts";
import { APINotFoundError } from "../client/api_errors.ts";
import { createObject, getObject, patchObject } from "../client/objects.ts";
import type { WebhookHandler } from "../intents/handlers.ts";
import type { WebhookClientConfig } from "./webhook_servers.ts";

/** The webhook configurations' resources. */
export const VALIDATING_CONFIGURATIONS: Resource = new Resource({
  group: "admissionregistration.k8s.io",
  version: "v1",
  plural: "validatingwebhookconfigurations",
  kind: "ValidatingWebhookConfiguration",
  namespaced: false,
});

/** The mutating webhook configurations' resource. */
export const MUTATING_CONFIGURATIONS: Resource = new Resource({
  group: "admissionregistration.k8s.io",
  version: "v1",
  plural: "mutatingwebhookconfigurations",
  kind: "MutatingWebhookConfiguration",
  namespaced: false,
});

/** Seconds the API server waits for a webhook: the most Kubernetes permits. */
export const WEBHOOK_TIMEOUT = 30;

/** The webhook's name in a configuration: the handler id made a DNS name, then the suffix. */
export function webhookName(id: string, suffix: string): string {
  // A DNS subdomain: each dot-separated label starts and ends with a letter or digit.
  const dns = (text: string) =>
    text.split(".").map((label) => label.replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, ""))
      .filter(Boolean).join(".");
  let name = dns(id.toLowerCase().replace(/[^a-z0-9.-]+/g, "-"));
  if (!name) name = "webhook";
  const full = `${name}.${suffix}`;
  return full.length <= 253 ? full : `${dns(name.slice(0, 253 - suffix.length - 1))}.${suffix}`;
}

/** A short, stable hash of a handler id (FNV-1a, 8 hex digits). */
function idHash(id: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(id)) hash = Math.imul(hash ^ byte, 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/** The client config with the handler id appended to the URL's (or service's) path. */
export function clientConfigFor(config: WebhookClientConfig, id: string): WebhookClientConfig {
  const segment = encodeURIComponent(id);
  const out: WebhookClientConfig = { ...config };
  if (config.url !== undefined) out.url = `${config.url.replace(/\/+$/, "")}/${segment}`;
  if (config.service !== undefined) {
    const path = (config.service.path ?? "").replace(/\/+$/, "");
    out.service = { ...config.service, path: `${path}/${segment}` };
  }
  return out;
}

/** The label selector the API server can check itself: strings and the markers. */
function objectSelector(labels: WebhookHandler["labels"]): JsonObject | undefined {
  if (labels === undefined) return undefined;
  const expressions: JsonObject[] = [];
  for (const [key, value] of Object.entries(labels)) {
    if (value === PRESENT) expressions.push({ key, operator: "Exists" });
    else if (value === ABSENT) expressions.push({ key, operator: "DoesNotExist" });
    else if (typeof value === "string") expressions.push({ key, operator: "In", values: [value] });
  }
  return expressions.length > 0 ? { matchExpressions: expressions } : undefined;
}

/**
 * The webhooks of one configuration: one per handler of the type (only the persistent
 * ones if asked), with rules for each served resource its selector matches.
 */
export function buildWebhooks(
  handlers: readonly WebhookHandler[],
  options: {
    resources: readonly Resource[];
    suffix: string;
    clientConfig: WebhookClientConfig;
    persistentOnly?: boolean;
  },
): JsonObject[] {
  const out: JsonObject[] = [];
  const seen = new Set<string>();
  const names = new Set<string>();
  for (const handler of handlers) {
    if (seen.has(handler.id)) continue;
    seen.add(handler.id);
    // Names must be unique in a configuration: ids that read alike (`a_b`, `a-b`, `A-b`)
    // are told apart by a hash of the id.
    let name = webhookName(handler.id, options.suffix);
    if (names.has(name)) name = webhookName(`${handler.id}-${idHash(handler.id)}`, options.suffix);
    names.add(name);
    if (options.persistentOnly && !handler.persistent) continue;
    const rules = options.resources.filter((r) => handler.selector.check(r)).map((r) => ({
      apiGroups: [r.group],
      apiVersions: [r.version],
      // `plural/*` matches only the subresources: "*" means the main body too.
      resources: handler.subresource === null
        ? [r.plural]
        : handler.subresource === "*"
        ? [r.plural, `${r.plural}/*`]
        : [`${r.plural}/${handler.subresource}`],
      operations: handler.operations === null ? ["*"] : [...handler.operations],
      scope: "*",
    }));
    const selector = objectSelector(handler.labels);
    out.push({
      name,
      sideEffects: handler.sideEffects ? "NoneOnDryRun" : "None",
      failurePolicy: handler.ignoreFailures ? "Ignore" : "Fail",
      matchPolicy: "Equivalent",
      rules,
      ...(selector === undefined ? {} : { objectSelector: selector }),
      clientConfig: clientConfigFor(options.clientConfig, handler.id) as JsonObject,
      timeoutSeconds: WEBHOOK_TIMEOUT,
      admissionReviewVersions: ["v1"],
    });
  }
  return out;
}

/** Create the configuration if absent, then replace its webhooks. */
export async function writeConfiguration(
  api: ApiClient,
  resource: Resource,
  name: string,
  webhooks: JsonObject[],
): Promise<void> {
  try {
    await getObject(api, resource, { name });
  } catch (error) {
    if (!(error instanceof APINotFoundError)) throw error;
    await createObject(api, resource, {
      apiVersion: resource.apiVersion,
      kind: resource.kind,
      metadata: { name },
      webhooks,
    } as RawBody);
    return;
  }
  await patchObject(api, resource, { name }, { webhooks } as JsonObject);
}
