/**
 * The RBAC rules of `kopf manifests`, exactly what the operator does, no more: for every
 * served resource `get`, `list`, `watch` and `patch` (what the handling does; its `status`
 * subresource too where it has one and results or progress go there); `list` and `watch`
 * for resources only indexed; Events `create` (unless posting is off);
 * CustomResourceDefinitions `list`/`watch` (the operator serves resources that appear
 * later; unless scanning is off); namespaces `list`/`watch` for namespace patterns; the
 * peering resources when peering is on; the webhook configurations when admission webhooks
 * are managed; the rules the user declares for the handlers' own API calls (`permits`);
 * and the Leases of coordinated replicas, in the operator's own namespace.
 *
 * @module
 */
import type { Resource } from "../structs/resources.ts";
import { matcherOf } from "../intents/registry.ts";
import { makeScope, needsNamespaceWatching } from "../structs/namespace_scopes.ts";
import { coordinated, hasWebhooks, type ManifestInput, type RbacRule } from "./manifest_inputs.ts";

/**
 * The rules of the replicas' Leases, in the Deployment's namespace: a leader's one Lease
 * by its name; with sharding, the shards' and members' Leases (their names vary, and
 * members' Leases of pods long gone are deleted).
 */
export function leaseRules(input: ManifestInput): RbacRule[] {
  if (!coordinated(input)) return [];
  const group = ["coordination.k8s.io"];
  if (input.leadership!.leaderElection) {
    return [
      { apiGroups: group, resources: ["leases"], verbs: ["create"] },
      {
        apiGroups: group,
        resources: ["leases"],
        verbs: ["get", "update"],
        resourceNames: [input.name],
      },
    ];
  }
  return [{
    apiGroups: group,
    resources: ["leases"],
    verbs: ["create", "delete", "get", "list", "update"],
  }];
}

/** The name of the Role (and RoleBinding) of the replicas' Leases. */
export function leasesRoleName(input: Pick<ManifestInput, "name">): string {
  return `${input.name}-leases`;
}

/** Resources of the handling, by what it does with them: served, only indexed, children. */
interface Needs {
  readonly served: Resource[];
  readonly indexed: Resource[];
  /** The children of `kopf.on.child` handlers: watched, and read when they change. */
  readonly children: Resource[];
}

const WATCHED = ["changing", "event", "daemon", "timer", "child"] as const;

/** The resources the operator serves, by how much it needs of them. */
function needsOf(input: ManifestInput): Needs {
  const matcher = matcherOf(input.registry);
  const resolved = matcher.resolve(input.resources, [...WATCHED, "index"]).resources;
  const served: Resource[] = [];
  const indexed: Resource[] = [];
  for (const resource of resolved) {
    const handlers = matcher.handlersFor(resource);
    if (WATCHED.some((kind) => handlers[kind].length > 0)) served.push(resource);
    else if (handlers.index.length > 0) indexed.push(resource);
  }
  const children = new Map<string, Resource>();
  for (const handler of matcher.childHandlers()) {
    for (const child of handler.childSelector.select(input.resources).resources) {
      children.set(child.key, child);
    }
  }
  return { served, indexed, children: [...children.values()] };
}

/** Rules grouped by API group and verbs, resources sorted: the same input, the same text. */
export function merged(rules: readonly RbacRule[]): RbacRule[] {
  const byKey = new Map<string, { apiGroups: string[]; resources: Set<string>; verbs: string[] }>();
  for (const rule of rules) {
    if (rule.resourceNames !== undefined) continue;
    for (const group of rule.apiGroups) {
      const verbs = [...new Set(rule.verbs)].sort();
      const key = `${group}\u0000${verbs.join(",")}`;
      let entry = byKey.get(key);
      if (entry === undefined) {
        byKey.set(key, entry = { apiGroups: [group], resources: new Set(), verbs });
      }
      for (const resource of rule.resources) entry.resources.add(resource);
    }
  }
  const result: RbacRule[] = [...byKey.values()].map((e) => ({
    apiGroups: e.apiGroups,
    resources: [...e.resources].sort(),
    verbs: e.verbs,
  }));
  result.push(...rules.filter((r) => r.resourceNames !== undefined));
  return result.sort((a, b) =>
    `${a.apiGroups[0]}/${a.resources[0]}`.localeCompare(`${b.apiGroups[0]}/${b.resources[0]}`)
  );
}

/** The rules the operator needs, split into those of the served namespaces and cluster-wide. */
export function rbacRules(input: ManifestInput): { namespaced: RbacRule[]; cluster: RbacRule[] } {
  const { served, indexed, children } = needsOf(input);
  const settings = input.settings;
  const namespaced: RbacRule[] = [];
  const cluster: RbacRule[] = [];
  const place = (resource: Resource, rule: RbacRule) =>
    (resource.namespaced ? namespaced : cluster).push(rule);
  for (const resource of served) {
    const group = [resource.group];
    place(resource, {
      apiGroups: group,
      resources: [resource.plural],
      verbs: ["get", "list", "watch", "patch"],
    });
    if (resource.subresources.includes("status")) {
      place(resource, {
        apiGroups: group,
        resources: [`${resource.plural}/status`],
        verbs: ["patch"],
      });
    }
  }
  for (const resource of indexed) {
    place(resource, {
      apiGroups: [resource.group],
      resources: [resource.plural],
      verbs: ["list", "watch"],
    });
  }
  for (const resource of children) {
    place(resource, {
      apiGroups: [resource.group],
      resources: [resource.plural],
      verbs: ["get", "list", "watch"],
    });
  }
  if (settings.posting.enabled && served.length > 0) {
    // Events about cluster-scoped objects go to the default namespace.
    const events: RbacRule = { apiGroups: [""], resources: ["events"], verbs: ["create"] };
    namespaced.push(events);
    if (served.some((r) => !r.namespaced) && !input.clusterwide) cluster.push(events);
  }
  if (!settings.scanning.disabled) {
    cluster.push({
      apiGroups: ["apiextensions.k8s.io"],
      resources: ["customresourcedefinitions"],
      verbs: ["list", "watch"],
    });
  }
  if (!settings.scanning.disabled && needsNamespaceWatching(scopeOf(input))) {
    cluster.push({ apiGroups: [""], resources: ["namespaces"], verbs: ["list", "watch"] });
  }
  if (!input.standalone) {
    const verbs = ["get", "list", "watch", "patch"];
    if (input.clusterwide) {
      cluster.push({ apiGroups: ["kopf.dev"], resources: ["clusterkopfpeerings"], verbs });
    } else {
      namespaced.push({ apiGroups: ["kopf.dev"], resources: ["kopfpeerings"], verbs });
    }
  }
  const managed = settings.admission.managed;
  if (managed !== null && hasWebhooks(input)) {
    // Created and watched by any name; read and changed only by its own.
    const group = ["admissionregistration.k8s.io"];
    const resources = ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"];
    cluster.push({ apiGroups: group, resources, verbs: ["create", "list", "watch"] });
    cluster.push({
      apiGroups: group,
      resources,
      verbs: ["get", "patch"],
      resourceNames: [managed],
    });
  }
  for (const { namespaced: inNamespaces, ...rule } of input.rules ?? []) {
    (inNamespaces ? namespaced : cluster).push(rule);
  }
  return { namespaced: merged(namespaced), cluster: merged(cluster) };
}

function scopeOf(input: ManifestInput) {
  return makeScope({ clusterwide: input.clusterwide, namespaces: input.namespaces });
}

/**
 * Whether the namespaced rules must be cluster-wide: for the whole cluster, and for
 * namespace patterns (the namespaces they match are known only in the cluster).
 */
export function clusterScoped(input: ManifestInput): boolean {
  return input.clusterwide ||
    (!input.settings.scanning.disabled && needsNamespaceWatching(scopeOf(input)));
}
