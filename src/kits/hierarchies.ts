/**
 * Helpers that prepare child objects before they are created: owner references, names,
 * namespaces and labels taken from the parent. They change the given objects in place and work
 * the same on plain objects and on `@kubernetes/client-node` models (both use camelCase).
 *
 * When called from a handler, the owner defaults to the object being handled.
 *
 * @module
 */
import { groupOf, OWNER_KIND_LABEL, ownerKindLabel } from "../structs/owner_labels.ts";
import { UsageError } from "../structs/errors.ts";
import { currentObjectScope } from "../handling/object_loggers.ts";
import {
  buildObjectReference,
  buildOwnerReference,
  eachObject,
  type HierarchyOptions,
  type ObjectLike,
  type ObjectMetaLike,
  type ObjectReference,
  type OwnerReference,
} from "../structs/object_refs.ts";

export { buildObjectReference, buildOwnerReference };
export type { HierarchyOptions, ObjectLike, ObjectMetaLike, ObjectReference, OwnerReference };

/** The mutable shape of the metadata these helpers edit. */
interface MutableMeta {
  name?: string | null;
  generateName?: string | null;
  namespace?: string | null;
  labels?: Record<string, string> | null;
  ownerReferences?: Array<{ uid?: string }> | null;
}

function metaOf(obj: object): MutableMeta {
  const holder = obj as { metadata?: MutableMeta | null };
  if (holder.metadata === undefined || holder.metadata === null) holder.metadata = {};
  return holder.metadata;
}

function resolveOwner(owner: ObjectLike | undefined, caller: string): ObjectLike {
  if (owner !== undefined && owner !== null) return owner;
  const scope = currentObjectScope();
  if (scope !== undefined) return scope.body;
  throw new UsageError(
    `${caller} needs an owner: pass { owner } explicitly, or call it from a handler, ` +
      `where the object being handled is the default owner.`,
  );
}

function pathParts(path: string | readonly string[]): readonly string[] {
  return typeof path === "string" ? path.split(".").filter((p) => p !== "") : path;
}

/** The objects and, after each, its nested objects that exist (missing ones are skipped). */
function withNested(
  roots: readonly object[],
  nested: HierarchyOptions["nested"],
): readonly object[] {
  if (nested === undefined) return roots;
  const paths = (typeof nested === "string" ? [nested] : nested).map(pathParts);
  const all: object[] = [];
  for (const root of roots) {
    all.push(root);
    for (const path of paths) {
      let value: unknown = root;
      for (const key of path) {
        value = typeof value === "object" && value !== null
          ? (value as Record<string, unknown>)[key]
          : undefined;
      }
      if (typeof value === "object" && value !== null && !Array.isArray(value)) all.push(value);
    }
  }
  return all;
}

/**
 * Add an owner reference to the objects, unless they already have one with the owner's uid.
 * `controller` and `blockOwnerDeletion` are `true` unless told otherwise.
 *
 * @example Make a ConfigMap go away with the object that made it
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, createObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const configmaps = new kopf.Resource({
 *   group: "",
 *   version: "v1",
 *   plural: "configmaps",
 *   namespaced: true,
 * });
 *
 * kopf.on.create("kopfexamples", async ({ name, namespace, spec }) => {
 *   const configMap = { metadata: { name: `${name}-config` }, data: { size: String(spec.size) } };
 *   kopf.appendOwnerReference(configMap); // owned by the object being handled
 *   await createObject(api, configmaps, configMap, { namespace });
 * });
 * ```
 */
export function appendOwnerReference(
  objs: object | Iterable<object>,
  options: Pick<HierarchyOptions, "owner" | "controller" | "blockOwnerDeletion"> = {},
): void {
  const caller = "kopf.appendOwnerReference()";
  const list = eachObject<object>(objs, caller);
  applyOwnerReference(list, buildOwnerReference(resolveOwner(options.owner, caller), options));
}

function applyOwnerReference(list: readonly object[], ref: OwnerReference): void {
  for (const obj of list) {
    const meta = metaOf(obj);
    const refs = meta.ownerReferences ??= [];
    if (!refs.some((r) => r?.uid === ref.uid)) refs.push({ ...ref });
  }
}

/**
 * Remove the owner's references (matched by uid) from the objects.
 *
 * @example Keep the data volume when the object is deleted
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, getObject, replaceObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const claims = new kopf.Resource({
 *   group: "",
 *   version: "v1",
 *   plural: "persistentvolumeclaims",
 *   namespaced: true,
 * });
 *
 * kopf.on.delete("kopfexamples", async ({ name, namespace }) => {
 *   const ref = { namespace, name: `${name}-data` };
 *   const claim = await getObject(api, claims, ref);
 *   kopf.removeOwnerReference(claim); // no longer deleted with the object
 *   await replaceObject(api, claims, ref, claim);
 * });
 * ```
 */
export function removeOwnerReference(
  objs: object | Iterable<object>,
  options: Pick<HierarchyOptions, "owner"> = {},
): void {
  const caller = "kopf.removeOwnerReference()";
  const list = eachObject<object>(objs, caller);
  const uid = buildOwnerReference(resolveOwner(options.owner, caller)).uid;
  for (const obj of list) {
    const refs = metaOf(obj).ownerReferences;
    if (!Array.isArray(refs)) continue;
    // In place, so that a client model's own array stays the one it serialises.
    for (let i = refs.length - 1; i >= 0; i--) if (refs[i]?.uid === uid) refs.splice(i, 1);
  }
}

function applyLabels(
  list: readonly object[],
  labels: Readonly<Record<string, string | null>>,
  options: Pick<HierarchyOptions, "forced" | "nested">,
): void {
  const entries = Object.entries(labels);
  for (const obj of withNested(list, options.nested)) {
    const meta = metaOf(obj);
    const target = meta.labels ??= {};
    for (const [key, value] of entries) {
      if (value === null || value === undefined) {
        if (options.forced) delete target[key];
      } else if (options.forced || !(key in target)) {
        target[key] = value;
      }
    }
  }
}

/**
 * Label the objects (and their `nested` objects that exist). Without `labels` (or with `null`),
 * the owner's labels are used. Existing labels are kept unless `forced`; with `forced`, a
 * `null` value removes the label.
 *
 * @example Give a child and its pod template the object's labels, plus one of its own
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, createObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const deployments = new kopf.Resource({
 *   group: "apps",
 *   version: "v1",
 *   plural: "deployments",
 *   namespaced: true,
 * });
 *
 * kopf.on.create("kopfexamples", async ({ name, namespace }) => {
 *   const deployment = {
 *     metadata: { name },
 *     spec: { template: { metadata: { labels: { app: "web" } } } },
 *   };
 *   kopf.label(deployment, null, { nested: "spec.template" }); // the object's labels
 *   kopf.label(deployment, { "example.com/owner": name });
 *   await createObject(api, deployments, deployment, { namespace });
 * });
 * ```
 */
export function label(
  objs: object | Iterable<object>,
  labels?: Readonly<Record<string, string | null>> | null,
  options: Pick<HierarchyOptions, "forced" | "nested"> = {},
): void {
  const caller = "kopf.label()";
  const list = eachObject<object>(objs, caller);
  const resolved = labels ?? { ...resolveOwner(undefined, caller).metadata?.labels };
  applyLabels(list, resolved, options);
}

function applyName(
  list: readonly object[],
  name: string,
  options: Pick<HierarchyOptions, "forced" | "strict">,
): void {
  for (const obj of list) {
    const meta = metaOf(obj);
    const unnamed = (meta.name === undefined || meta.name === null) &&
      (meta.generateName === undefined || meta.generateName === null);
    if (!options.forced && !unnamed) continue;
    if (options.strict) {
      meta.name = name;
      delete meta.generateName;
    } else {
      meta.generateName = `${name}-`;
      delete meta.name;
    }
  }
}

/**
 * Name the objects that have neither `name` nor `generateName` (all of them with `forced`):
 * `generateName: "<name>-"`, or exactly `name` with `strict`. Without `name`, the owner's.
 *
 * @example Name children after the object: a unique suffix each, or exactly its name
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, createObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const services = new kopf.Resource({
 *   group: "",
 *   version: "v1",
 *   plural: "services",
 *   namespaced: true,
 * });
 *
 * kopf.on.create("kopfexamples", async ({ name, namespace }) => {
 *   const service = { metadata: {}, spec: { ports: [{ port: 80 }] } };
 *   kopf.harmonizeNaming(service, name, { strict: true }); // exactly the object's name
 *   // Without strict: generateName "<name>-", and the server adds a unique suffix.
 *   await createObject(api, services, service, { namespace });
 * });
 * ```
 */
export function harmonizeNaming(
  objs: object | Iterable<object>,
  name?: string | null,
  options: Pick<HierarchyOptions, "forced" | "strict"> = {},
): void {
  const caller = "kopf.harmonizeNaming()";
  const list = eachObject<object>(objs, caller);
  const resolved = name ?? resolveOwner(undefined, caller).metadata?.name;
  if (!resolved) {
    throw new UsageError(
      `${caller} needs a name: the owner has none, so pass the name explicitly.`,
    );
  }
  applyName(list, resolved, options);
}

function applyNamespace(
  list: readonly object[],
  namespace: string | undefined,
  options: Pick<HierarchyOptions, "forced">,
): void {
  for (const obj of list) {
    const meta = metaOf(obj);
    if (!options.forced && meta.namespace !== undefined && meta.namespace !== null) continue;
    if (namespace) meta.namespace = namespace;
    else delete meta.namespace; // a cluster-scoped owner: the children get no namespace either
  }
}

/**
 * Put the objects into `namespace` unless they already have one (always with `forced`).
 * Without `namespace`, the owner's namespace (none for a cluster-scoped owner).
 *
 * @example Put a child into the object's namespace unless it names one
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, createObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const secrets = new kopf.Resource({
 *   group: "",
 *   version: "v1",
 *   plural: "secrets",
 *   namespaced: true,
 * });
 *
 * kopf.on.create("kopfexamples", async ({ name, spec }) => {
 *   const secret = {
 *     metadata: { name: `${name}-credentials`, namespace: spec.secretNamespace as string },
 *     stringData: { password: crypto.randomUUID() },
 *   };
 *   kopf.adjustNamespace(secret); // the object's namespace if spec.secretNamespace is unset
 *   await createObject(api, secrets, secret);
 * });
 * ```
 */
export function adjustNamespace(
  objs: object | Iterable<object>,
  namespace?: string | null,
  options: Pick<HierarchyOptions, "forced"> = {},
): void {
  const caller = "kopf.adjustNamespace()";
  const list = eachObject<object>(objs, caller);
  const resolved = namespace ?? resolveOwner(undefined, caller).metadata?.namespace;
  applyNamespace(list, resolved ?? undefined, options);
}

/**
 * Make the objects children of the owner in one call: an owner reference, a name after the
 * owner's, the owner's namespace, and the owner's labels (also on `nested` objects), plus
 * the label `kopf.zalando.org/owner-kind` naming the owner's kind (`KopfExample.kopf.dev`)
 * on the objects themselves, by which `kopf.on.child` watches select their children.
 *
 * @example Everything that makes a pod a child of the object, in one call
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, createObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const pods = new kopf.Resource({
 *   group: "",
 *   version: "v1",
 *   plural: "pods",
 *   namespaced: true,
 * });
 *
 * kopf.on.create("kopfexamples", async ({ spec }) => {
 *   const pod = {
 *     metadata: {},
 *     spec: { containers: [{ name: "main", image: String(spec.image ?? "busybox") }] },
 *   };
 *   kopf.adopt(pod); // owner reference, name prefix, namespace, labels
 *   await createObject(api, pods, pod);
 * });
 * ```
 */
export function adopt(
  objs: object | Iterable<object>,
  options: Pick<HierarchyOptions, "owner" | "forced" | "strict" | "nested"> = {},
): void {
  const caller = "kopf.adopt()";
  const list = eachObject<object>(objs, caller);
  const owner = resolveOwner(options.owner, caller);
  const ref = buildOwnerReference(owner); // validates the owner before anything is changed
  const meta = owner.metadata ?? {};
  const flags = { forced: options.forced, strict: options.strict };
  applyOwnerReference(list, ref);
  applyName(list, ref.name, flags);
  applyNamespace(list, meta.namespace, flags);
  applyLabels(list, { ...meta.labels }, { forced: options.forced, nested: options.nested });
  // The owner's kind, on the children themselves (not their templates): `kopf.on.child`
  // watches select by it. The owner's own such label (if it is a child too) is replaced.
  const kindLabel = ownerKindLabel(ref.kind, groupOf(ref.apiVersion));
  if (kindLabel !== undefined) {
    applyLabels(list, { [OWNER_KIND_LABEL]: kindLabel }, { forced: true });
  }
}
