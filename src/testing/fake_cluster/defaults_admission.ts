/**
 * The defaults of the admission registrations (pkg/apis/admissionregistration/v1/defaults.go):
 * each webhook's policies, selectors and timeout, its rules' scope and its service's port;
 * a ValidatingAdmissionPolicy's failure policy and match resources, and its bindings'.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { at, child, fill, items } from "./default_values.ts";
import { isObject } from "./patching.ts";

/** `SetDefaults_Rule`: every scope. */
function defaultRules(holder: JsonObject, key: string): void {
  for (const rule of items(holder, key)) fill(rule, { scope: "*" });
}

/** `SetDefaults_MatchResources`: its policy and selectors, its rules' scope. */
function defaultMatchResources(match: JsonObject): void {
  fill(match, { matchPolicy: "Equivalent" });
  child(match, "namespaceSelector");
  child(match, "objectSelector");
  defaultRules(match, "resourceRules");
  defaultRules(match, "excludeResourceRules");
}

/** Each webhook of a Validating- or MutatingWebhookConfiguration. */
export function defaultWebhooks(configuration: JsonObject, mutating: boolean): void {
  for (const webhook of items(configuration, "webhooks")) {
    fill(webhook, { failurePolicy: "Fail", matchPolicy: "Equivalent", timeoutSeconds: 10 });
    child(webhook, "namespaceSelector");
    child(webhook, "objectSelector");
    if (mutating) fill(webhook, { reinvocationPolicy: "Never" });
    defaultRules(webhook, "rules");
    const service = at(webhook, "clientConfig", "service");
    if (service) fill(service, { port: 443 });
  }
}

/** A ValidatingAdmissionPolicy's spec. */
export function defaultAdmissionPolicy(policy: JsonObject): void {
  const spec = child(policy, "spec");
  fill(spec, { failurePolicy: "Fail" });
  if (isObject(spec.matchConstraints)) defaultMatchResources(spec.matchConstraints);
}

/** A ValidatingAdmissionPolicyBinding's match resources. */
export function defaultAdmissionPolicyBinding(binding: JsonObject): void {
  const resources = at(binding, "spec", "matchResources");
  if (resources) defaultMatchResources(resources);
}
