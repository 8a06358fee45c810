/**
 * Escalation prevention, as the RBAC registry does it: a user may write a Role or
 * ClusterRole only with rules it holds itself (or with the `escalate` verb on it), and a
 * RoleBinding or ClusterRoleBinding only to a role whose rules it holds (or with `bind`
 * on that role). Members of `system:masters` may do anything.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import type { ResourceType } from "../../catalog/resource_types.ts";
import { ApiError } from "./errors.ts";
import { metaOf } from "./metadata.ts";
import { isObject, jsonEqual } from "./patching.ts";
import {
  aggregate,
  forbiddenError,
  type PolicyRule,
  PRIVILEGED_GROUP,
  quote,
  RBAC_GROUP,
  type RbacAuthorizer,
  rulesOf,
  type UserInfo,
} from "./rbac.ts";

/** One rule per group, resource, verb and name (or URL and verb): what `Covers` compares. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length) {
          for (const name of names) {
            out.push({
              apiGroups: [group],
              resources: [resource],
              verbs: [verb],
              resourceNames: [name],
            });
          }
        } else {
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

const has = (set: readonly string[] | undefined, item: string) => (set ?? []).includes(item);
const hasAll = (set: readonly string[] | undefined, items: readonly string[] | undefined) =>
  (items ?? []).every((item) => has(set, item));

function resourcesCover(owner: readonly string[] | undefined, wanted: readonly string[] = []) {
  if (has(owner, "*") || hasAll(owner, wanted)) return true;
  return wanted.every((path) => {
    if (has(owner, path)) return true;
    const slash = path.indexOf("/");
    return slash >= 0 && has(owner, `*/${path.slice(slash + 1)}`);
  });
}

function urlCovers(owner: string, wanted: string): boolean {
  return owner === wanted || (owner.endsWith("*") && wanted.startsWith(owner.replace(/\*+$/, "")));
}

/** Whether an owner's rule covers one broken-down rule. */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const names = sub.resourceNames ?? [];
  const ownerNames = owner.resourceNames ?? [];
  return (has(owner.verbs, "*") || hasAll(owner.verbs, sub.verbs)) &&
    (has(owner.apiGroups, "*") || hasAll(owner.apiGroups, sub.apiGroups)) &&
    resourcesCover(owner.resources, sub.resources) &&
    (sub.nonResourceURLs ?? []).every((url) =>
      (owner.nonResourceURLs ?? []).some((o) => urlCovers(o, url))
    ) &&
    (names.length ? !ownerNames.length || hasAll(ownerNames, names) : !ownerNames.length);
}

/** Whether the owner's rules cover the servant's; and the broken-down rules they miss. */
export function covers(
  owner: readonly PolicyRule[],
  servant: readonly PolicyRule[],
): { covered: boolean; missing: PolicyRule[] } {
  const missing = servant.flatMap(breakdownRule).filter((sub) =>
    !owner.some((rule) => ruleCovers(rule, sub))
  );
  return { covered: missing.length === 0, missing };
}

/** Merges the rules of one group and resource (and at most one name) that differ by verb. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, { rule: PolicyRule; verbs: string[] }>();
  for (const rule of rules) {
    const names = rule.resourceNames ?? [];
    const isSimple = names.length <= 1 && !(rule.nonResourceURLs ?? []).length &&
      (rule.apiGroups ?? []).length === 1 && (rule.resources ?? []).length === 1;
    if (!isSimple) {
      out.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups, rule.resources, names]);
    const existing = simple.get(key);
    if (existing) {
      for (const verb of rule.verbs) if (!existing.verbs.includes(verb)) existing.verbs.push(verb);
    } else {
      simple.set(key, { rule, verbs: [...rule.verbs] });
    }
  }
  for (const { rule, verbs } of simple.values()) out.push({ ...rule, verbs });
  return out;
}

/** Go's `%q` of a list of strings: `["a" "b"]`. */
function quoteList(list: readonly string[]): string {
  return `[${list.map(quote).join(" ")}]`;
}

/** A rule as the API server prints it in escalation errors: `{APIGroups:[""], ...}`. */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if (rule.apiGroups?.length) parts.push(`APIGroups:${quoteList(rule.apiGroups)}`);
  if (rule.resources?.length) parts.push(`Resources:${quoteList(rule.resources)}`);
  if (rule.nonResourceURLs?.length) {
    parts.push(`NonResourceURLs:${quoteList(rule.nonResourceURLs)}`);
  }
  if (rule.resourceNames?.length) parts.push(`ResourceNames:${quoteList(rule.resourceNames)}`);
  if (rule.verbs.length) parts.push(`Verbs:${quoteList(rule.verbs)}`);
  return `{${parts.join(", ")}}`;
}

/**
 * Why the user may not grant these rules in the namespace (`""` for cluster-wide), or
 * undefined if it holds them all.
 */
export function escalationOf(
  authorizer: RbacAuthorizer,
  user: UserInfo,
  namespace: string,
  rules: readonly PolicyRule[],
): string | undefined {
  const owned = authorizer.rulesFor(user, namespace);
  const { covered, missing } = covers(owned.rules, rules);
  if (covered) return undefined;
  const lines = [...new Set(compactRules(missing).map(compactString))].sort();
  let message = `user ${quote(user.username)} (groups=${
    quoteList(user.groups)
  }) is attempting to grant RBAC permissions not currently held:\n${lines.join("\n")}`;
  if (owned.errors.length) message += `; resolution errors: [${aggregate(owned.errors)}]`;
  return message;
}

/** The fields that only the garbage collector's work changes: writing only them is no grant. */
function withoutGcFields(object: JsonObject): JsonObject {
  const meta = { ...metaOf(object) };
  for (const field of ["ownerReferences", "finalizers", "resourceVersion", "managedFields"]) {
    delete meta[field];
  }
  return { ...object, metadata: meta };
}

/**
 * Check a write of an RBAC object by the user: creating or changing a role needs its
 * rules (or `escalate`), a binding the rules of its role (or `bind` on it). Throws the
 * 403 the API server answers; other writes pass.
 */
export function checkEscalation(
  authorizer: RbacAuthorizer,
  user: UserInfo,
  type: ResourceType,
  object: JsonObject,
  old?: JsonObject,
): void {
  if (type.group !== RBAC_GROUP || user.groups.includes(PRIVILEGED_GROUP)) return;
  if (old && jsonEqual(withoutGcFields(old), withoutGcFields(object))) return;
  const meta = metaOf(object);
  const name = String(meta.name ?? "");
  const namespace = type.namespaced ? String(meta.namespace ?? "") : "";
  const allowed = (verb: string, resource: string, objectName: string) =>
    authorizer.authorize({
      user,
      verb,
      resourceRequest: true,
      apiGroup: RBAC_GROUP,
      apiVersion: "*",
      resource,
      namespace,
      name: objectName,
    }).allowed;
  let rules: readonly PolicyRule[];
  if (type.plural === "roles" || type.plural === "clusterroles") {
    // The name of a create is not known to the authorizer: `escalate` on names does not count.
    if (allowed("escalate", type.plural, old ? name : "")) return;
    rules = rulesOf(object);
  } else if (type.plural === "rolebindings" || type.plural === "clusterrolebindings") {
    const ref = isObject(object.roleRef) ? object.roleRef : {};
    const refName = String(ref.name ?? "");
    const resource = ref.kind === "Role"
      ? "roles"
      : ref.kind === "ClusterRole"
      ? "clusterroles"
      : "";
    if (resource && ref.apiGroup === RBAC_GROUP && allowed("bind", resource, refName)) return;
    try {
      rules = authorizer.roleReferenceRules(ref, namespace);
    } catch {
      throw new ApiError(404, `${resource || "roles"}.${RBAC_GROUP} ${quote(refName)} not found`, {
        details: { name: refName, group: RBAC_GROUP, kind: resource || "roles" },
      });
    }
  } else {
    return;
  }
  const escalation = escalationOf(authorizer, user, namespace, rules);
  if (escalation) throw forbiddenError(type.plural, RBAC_GROUP, name, escalation);
}
