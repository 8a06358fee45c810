/**
 * The RBAC authorizer, as kube-apiserver's: Roles, ClusterRoles, RoleBindings and
 * ClusterRoleBindings decide what a user may do; what no rule allows is denied. Members
 * of `system:masters` may do anything (kube-apiserver lets them through before RBAC is
 * asked). The 403 answers are worded as the API server words them.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { typeKey } from "../../catalog/resource_types.ts";
import { ApiError } from "./errors.ts";
import { isObject } from "./patching.ts";
import type { Store } from "./store.ts";

/** The API group of the RBAC kinds. */
export const RBAC_GROUP = "rbac.authorization.k8s.io";
/** The group whose members may do anything, whatever the roles say. */
export const PRIVILEGED_GROUP = "system:masters";
/** The group every authenticated user is in. */
export const ALL_AUTHENTICATED = "system:authenticated";
/** The group of requests without credentials. */
export const ALL_UNAUTHENTICATED = "system:unauthenticated";
/** The user of requests without credentials. */
export const ANONYMOUS = "system:anonymous";

/** Who makes a request, as authentication found out. */
export interface UserInfo {
  readonly username: string;
  readonly groups: readonly string[];
  /** The uid of the user, e.g. a service account's. */
  readonly uid?: string;
  /** Further facts about the user, as authenticators attach them. */
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** What a request asks to do: the authorizer's input. */
export interface Attributes {
  readonly user: UserInfo;
  /** `get`, `list`, `watch`, `create`, ... for resources; the HTTP method in lower case otherwise. */
  readonly verb: string;
  /** Whether it addresses an API resource (`/api/...`, `/apis/...`) or another path. */
  readonly resourceRequest: boolean;
  /** The URL path of a non-resource request, e.g. `/version`. */
  readonly path?: string;
  readonly apiGroup?: string;
  readonly apiVersion?: string;
  readonly resource?: string;
  readonly subresource?: string;
  /** The namespace; empty for cluster-scoped requests. */
  readonly namespace?: string;
  /** The object's name; empty for collections. */
  readonly name?: string;
}

/** One rule of a Role or ClusterRole. */
export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

/** What the authorizer decided, and why (the API server's reason text, possibly empty). */
export interface Decision {
  readonly allowed: boolean;
  readonly reason: string;
}

function strings(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The rules of a Role or ClusterRole object. */
export function rulesOf(role: JsonObject): PolicyRule[] {
  const rules = Array.isArray(role.rules) ? role.rules.filter(isObject) : [];
  return rules.map((rule) => ({
    verbs: strings(rule.verbs),
    apiGroups: strings(rule.apiGroups),
    resources: strings(rule.resources),
    resourceNames: strings(rule.resourceNames),
    nonResourceURLs: strings(rule.nonResourceURLs),
  }));
}

const has = (set: readonly string[] | undefined, item: string): boolean =>
  (set ?? []).includes(item);

/** Whether the rule names the verb (or `*`). */
export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return has(rule.verbs, "*") || has(rule.verbs, verb);
}

/** Whether the rule names the group (or `*`). */
export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return has(rule.apiGroups, "*") || has(rule.apiGroups, group);
}

/**
 * Whether the rule names the resource: `*` names every resource and subresource,
 * `pods/log` names one subresource, `*\/scale` that subresource of every resource.
 */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const resource of rule.resources ?? []) {
    if (resource === "*" || resource === combined) return true;
    if (subresource && resource === `*/${subresource}`) return true;
  }
  return false;
}

/**
 * Whether the rule's `resourceNames` let the name through: no names means any object;
 * otherwise the request must name one of them. Requests without a name (create, list,
 * watch, deletecollection of a collection) never pass a rule that lists names; a list or
 * watch that selects one object by `metadata.name` carries its name and may.
 */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** Whether the rule names the path: exactly, by `*`, or by a prefix ending in `*`. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === "*" || url === path) return true;
    if (url.endsWith("*") && path.startsWith(url.replace(/\*+$/, ""))) return true;
  }
  return false;
}

/** Whether one rule allows the request, as RBAC's `RuleAllows` decides. */
export function ruleAllows(attributes: Attributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attributes.verb)) return false;
  if (!attributes.resourceRequest) return nonResourceURLMatches(rule, attributes.path ?? "");
  const resource = attributes.resource ?? "";
  const subresource = attributes.subresource ?? "";
  const combined = subresource ? `${resource}/${subresource}` : resource;
  return apiGroupMatches(rule, attributes.apiGroup ?? "") &&
    resourceMatches(rule, combined, subresource) &&
    resourceNameMatches(rule, attributes.name ?? "");
}

/** A binding's subject: a User, a Group or a ServiceAccount. */
interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

function subjectsOf(binding: JsonObject): Subject[] {
  const subjects = Array.isArray(binding.subjects) ? binding.subjects.filter(isObject) : [];
  return subjects.map((s) => ({
    kind: String(s.kind ?? ""),
    name: String(s.name ?? ""),
    namespace: typeof s.namespace === "string" && s.namespace ? s.namespace : undefined,
  }));
}

/** The user name of a service account. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** The namespace and name of a service account's user name, if it is one. */
export function splitServiceAccountUsername(
  username: string,
): { namespace: string; name: string } | undefined {
  const match = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(username);
  return match ? { namespace: match[1], name: match[2] } : undefined;
}

/** The groups every service account of a namespace is in (without `system:authenticated`). */
export function serviceAccountGroups(namespace: string): string[] {
  return ["system:serviceaccounts", `system:serviceaccounts:${namespace}`];
}

/**
 * Whether the subject names the user. A ServiceAccount subject without a namespace
 * means one in the binding's own namespace (none for a ClusterRoleBinding: no match).
 */
function appliesToUser(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case "User":
      return user.username === subject.name;
    case "Group":
      return user.groups.includes(subject.name);
    case "ServiceAccount": {
      const namespace = subject.namespace ?? bindingNamespace;
      return namespace !== "" &&
        user.username === serviceAccountUsername(namespace, subject.name);
    }
  }
  return false;
}

/** Go's `%q` of a string: a double-quoted string literal. */
export function quote(text: string): string {
  return JSON.stringify(text);
}

function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === "ServiceAccount") {
    return `${subject.kind} ${quote(`${subject.name}/${subject.namespace ?? bindingNamespace}`)}`;
  }
  return `${subject.kind} ${quote(subject.name)}`;
}

/** Where the authorizer finds the policy: the RBAC objects. */
export interface PolicySource {
  clusterRoleBindings(): JsonObject[];
  roleBindings(namespace: string): JsonObject[];
  role(namespace: string, name: string): JsonObject | undefined;
  clusterRole(name: string): JsonObject | undefined;
}

/** The RBAC objects of a store, read at each decision (so every change counts at once). */
export function storePolicies(store: Store): PolicySource {
  return {
    clusterRoleBindings: () => store.list(typeKey(RBAC_GROUP, "clusterrolebindings")),
    roleBindings: (namespace) => store.list(typeKey(RBAC_GROUP, "rolebindings"), namespace),
    role: (namespace, name) => store.get(typeKey(RBAC_GROUP, "roles"), namespace, name),
    clusterRole: (name) => store.get(typeKey(RBAC_GROUP, "clusterroles"), "", name),
  };
}

/** A visitor of rules: the binding that grants it (described), or an error resolving one. */
type Visitor = (
  source: string | undefined,
  rule: PolicyRule | undefined,
  error?: string,
) => boolean;

/** The rules a user has in a namespace (cluster-wide ones included), and resolution errors. */
export interface RuleSet {
  readonly rules: PolicyRule[];
  readonly errors: string[];
}

/** Go's `errors.NewAggregate(...).Error()`: one message alone, several in brackets. */
export function aggregate(errors: readonly string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0] : `[${unique.join(", ")}]`;
}

/** Decides requests by the RBAC objects of a policy source. */
export class RbacAuthorizer {
  constructor(readonly policies: PolicySource) {}

  /**
   * The rules of a binding's `roleRef`: a Role in the binding's namespace, or a
   * ClusterRole. A missing role is an error (with the informers' wording).
   */
  roleReferenceRules(roleRef: JsonValue | undefined, bindingNamespace: string): PolicyRule[] {
    const ref = isObject(roleRef) ? roleRef : {};
    const name = String(ref.name ?? "");
    switch (ref.kind) {
      case "Role": {
        const role = this.policies.role(bindingNamespace, name);
        if (!role) throw new Error(`role.${RBAC_GROUP} ${quote(name)} not found`);
        return rulesOf(role);
      }
      case "ClusterRole": {
        const role = this.policies.clusterRole(name);
        if (!role) throw new Error(`clusterrole.${RBAC_GROUP} ${quote(name)} not found`);
        return rulesOf(role);
      }
    }
    throw new Error(`unsupported role reference kind: ${quote(String(ref.kind ?? ""))}`);
  }

  /**
   * Visit every rule that applies to the user in the namespace: those of the
   * ClusterRoleBindings naming the user, then those of the namespace's RoleBindings.
   * The visitor returns false to stop.
   */
  visitRulesFor(user: UserInfo, namespace: string, visitor: Visitor): void {
    const walk = (bindings: JsonObject[], bindingNamespace: string): boolean => {
      for (const binding of bindings) {
        const subject = subjectsOf(binding).find((s) => appliesToUser(user, s, bindingNamespace));
        if (!subject) continue;
        let rules: PolicyRule[];
        try {
          rules = this.roleReferenceRules(binding.roleRef, bindingNamespace);
        } catch (error) {
          if (!visitor(undefined, undefined, (error as Error).message)) return false;
          continue;
        }
        const meta = isObject(binding.metadata) ? binding.metadata : {};
        const ref = isObject(binding.roleRef) ? binding.roleRef : {};
        const name = bindingNamespace
          ? `RoleBinding ${quote(`${meta.name}/${bindingNamespace}`)}`
          : `ClusterRoleBinding ${quote(String(meta.name))}`;
        const source = `${name} of ${ref.kind} ${quote(String(ref.name ?? ""))} to ${
          describeSubject(subject, bindingNamespace)
        }`;
        for (const rule of rules) if (!visitor(source, rule)) return false;
      }
      return true;
    };
    if (!walk(this.policies.clusterRoleBindings(), "")) return;
    if (namespace) walk(this.policies.roleBindings(namespace), namespace);
  }

  /** All rules of the user in the namespace (and cluster-wide), as `RulesFor` gives them. */
  rulesFor(user: UserInfo, namespace: string): RuleSet {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (_source, rule, error) => {
      if (rule) rules.push(rule);
      if (error) errors.push(error);
      return true;
    });
    return { rules, errors };
  }

  /**
   * Decide a request. Allowed: the reason names the binding that allowed it. Denied:
   * the reason is empty, or lists the bindings whose roles could not be resolved.
   */
  authorize(attributes: Attributes): Decision {
    if (attributes.user.groups.includes(PRIVILEGED_GROUP)) return { allowed: true, reason: "" };
    let allowedBy: string | undefined;
    const errors: string[] = [];
    this.visitRulesFor(attributes.user, attributes.namespace ?? "", (source, rule, error) => {
      if (rule && ruleAllows(attributes, rule)) {
        allowedBy = source;
        return false;
      }
      if (error) errors.push(error);
      return true;
    });
    if (allowedBy !== undefined) return { allowed: true, reason: `RBAC: allowed by ${allowedBy}` };
    return { allowed: false, reason: errors.length ? `RBAC: ${aggregate(errors)}` : "" };
  }
}

/** What the request was refused, as the API server says it (`forbiddenMessage`). */
function forbiddenMessage(attributes: Attributes): string {
  const user = quote(attributes.user.username);
  if (!attributes.resourceRequest) {
    return `User ${user} cannot ${attributes.verb} path ${quote(attributes.path ?? "")}`;
  }
  const resource = attributes.subresource
    ? `${attributes.resource}/${attributes.subresource}`
    : attributes.resource ?? "";
  const what = `User ${user} cannot ${attributes.verb} resource ${quote(resource)} in API group ${
    quote(attributes.apiGroup ?? "")
  }`;
  return attributes.namespace
    ? `${what} in the namespace ${quote(attributes.namespace)}`
    : `${what} at the cluster scope`;
}

/**
 * A 403 with the `Status` kube-apiserver answers with: `pods is forbidden: User "x"
 * cannot list resource "pods" in API group "" in the namespace "default"`, the details
 * naming the resource (plural), its group and the object's name.
 */
export function forbidden(attributes: Attributes, reason = ""): ApiError {
  const cause = reason
    ? `${forbiddenMessage(attributes)}: ${reason}`
    : forbiddenMessage(attributes);
  return forbiddenError(
    attributes.resourceRequest ? attributes.resource ?? "" : "",
    attributes.resourceRequest ? attributes.apiGroup ?? "" : "",
    attributes.resourceRequest ? attributes.name ?? "" : "",
    cause,
  );
}

/** A 403 about a resource (or nothing, when `resource` is empty), as `NewForbidden` makes it. */
export function forbiddenError(
  resource: string,
  group: string,
  name: string,
  cause: string,
): ApiError {
  const qualified = group ? `${resource}.${group}` : resource;
  const message = !resource && !group
    ? `forbidden: ${cause}`
    : name
    ? `${qualified} ${quote(name)} is forbidden: ${cause}`
    : `${qualified} is forbidden: ${cause}`;
  const details: JsonObject = {};
  if (name) details.name = name;
  if (group) details.group = group;
  if (resource) details.kind = resource;
  return new ApiError(403, message, { reason: "Forbidden", details });
}
