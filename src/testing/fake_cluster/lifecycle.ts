/**
 * The controllers a real cluster runs around deletion, done synchronously after each
 * request that may need them: the namespace controller (a deleted namespace empties
 * before it goes), the CRD cleanup (a deleted CRD's objects go first), and the garbage
 * collector (owner references: background, foreground and orphan propagation).
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { type ResourceType, typeKey } from "../../catalog/resource_types.ts";
import { CRD_CLEANUP_FINALIZER } from "./crds.ts";
import type { Change } from "./history.ts";
import { finalizersOf, metaOf } from "./metadata.ts";
import type { Objects } from "./objects.ts";
import type { Stored } from "./store.ts";
import { isObject, jsonEqual } from "./patching.ts";

const NAMESPACES = typeKey("", "namespaces");
const CRDS = typeKey("apiextensions.k8s.io", "customresourcedefinitions");
/** Enough rounds for any realistic chain of owners; a guard against cycles. */
const MAX_ROUNDS = 100;

function ownerRefs(object: JsonObject): JsonObject[] {
  const refs = metaOf(object).ownerReferences;
  return Array.isArray(refs) ? refs.filter(isObject) : [];
}

/** Orders objects by their `namespace/name` keys, as the store lists them. */
function byNamespaceAndName(a: JsonObject, b: JsonObject): number {
  const x = `${metaOf(a).namespace ?? ""}/${metaOf(a).name}`;
  const y = `${metaOf(b).namespace ?? ""}/${metaOf(b).name}`;
  return x < y ? -1 : x > y ? 1 : 0;
}

function without(object: JsonObject, changes: JsonObject): JsonObject {
  return { ...object, metadata: { ...metaOf(object), ...changes } };
}

/** Another controller run with the deletion controllers, e.g. the token controller. */
export interface Controller {
  /** Whether the change may give the controller work (it may note what). */
  matters(change: Change): boolean;
  /** Do the work the changes gave it. */
  run(): void;
}

/** Runs the deletion controllers over the objects whenever a change may need them. */
export class Lifecycle {
  #dirty = false;
  #running = false;

  constructor(readonly objects: Objects, readonly controllers: readonly Controller[] = []) {
    objects.store.listen((change) => {
      // Every controller sees every change: each notes its own work.
      let matters = this.#matters(change);
      for (const controller of controllers) matters = controller.matters(change) || matters;
      if (matters) this.#dirty = true;
    });
  }

  #matters(change: Change): boolean {
    if (change.type === "DELETED") return true;
    const m = metaOf(change.object);
    if (m.deletionTimestamp) return true;
    const refs = m.ownerReferences;
    if (change.type === "ADDED") return Array.isArray(refs) && refs.length > 0;
    const oldRefs = change.old ? metaOf(change.old).ownerReferences : undefined;
    // Most writes keep the stored references as they were: no serialising on every change.
    return refs !== oldRefs && !jsonEqual(refs, oldRefs);
  }

  /** Run the controllers until nothing more changes. */
  settle(): void {
    if (this.#running) return;
    this.#running = true;
    try {
      for (let round = 0; this.#dirty && round < MAX_ROUNDS; round++) {
        this.#dirty = false;
        this.#namespaces();
        this.#crds();
        this.#collectGarbage();
        for (const controller of this.controllers) controller.run();
      }
    } finally {
      this.#running = false;
    }
  }

  #typeOf(key: string): ResourceType | undefined {
    const slash = key.indexOf("/");
    return this.objects.catalog.get(key.slice(0, slash), key.slice(slash + 1));
  }

  #deleteObject(type: ResourceType, object: JsonObject): void {
    if (metaOf(object).deletionTimestamp) return;
    const version = type.versions.find((v) => v.storage) ?? type.versions[0];
    const namespace = type.namespaced ? String(metaOf(object).namespace ?? "") : undefined;
    // No explicit policy: the object's own `orphan` or `foregroundDeletion` finalizer
    // decides, as the garbage collector picks the policy of a dependent it deletes.
    this.objects.delete({ type, version, namespace, name: String(metaOf(object).name) });
  }

  /** The terminating objects of one type, sorted by name (cluster-scoped types only). */
  #terminating(key: string): JsonObject[] {
    const found = this.objects.store.terminating().filter((s) => s.typeKey === key);
    return found.map((s) => s.object).sort(byNamespaceAndName);
  }

  #namespaces(): void {
    const store = this.objects.store;
    const nsType = this.#typeOf(NAMESPACES)!;
    for (const ns of this.#terminating(NAMESPACES)) {
      const name = String(metaOf(ns).name);
      let remaining = 0;
      for (const key of store.typeKeys()) {
        if (!store.count(key, name)) continue;
        const type = this.#typeOf(key);
        if (!type?.namespaced) continue;
        for (const object of store.list(key, name)) this.#deleteObject(type, object);
        remaining += store.count(key, name);
      }
      const spec = isObject(ns.spec) ? ns.spec : {};
      const specFinalizers = Array.isArray(spec.finalizers) ? spec.finalizers : [];
      if (!remaining && specFinalizers.includes("kubernetes")) {
        const next: JsonObject = {
          ...ns,
          spec: {
            ...spec,
            finalizers: specFinalizers.filter((f: JsonValue) => f !== "kubernetes"),
          },
        };
        this.objects.system(nsType, next);
      }
    }
  }

  #crds(): void {
    const store = this.objects.store;
    const crdType = this.#typeOf(CRDS)!;
    for (const crd of this.#terminating(CRDS)) {
      if (!finalizersOf(crd).includes(CRD_CLEANUP_FINALIZER)) continue;
      const spec = isObject(crd.spec) ? crd.spec : {};
      const names = isObject(spec.names) ? spec.names : {};
      const key = typeKey(String(spec.group ?? ""), String(names.plural ?? ""));
      const type = this.#typeOf(key);
      if (type) { for (const object of store.list(key)) this.#deleteObject(type, object); }
      if (!store.count(key)) {
        const rest = finalizersOf(crd).filter((f) => f !== CRD_CLEANUP_FINALIZER);
        this.objects.system(crdType, without(crd, { finalizers: rest }));
      }
    }
  }

  /**
   * The garbage collector. Only the objects it may act on are visited, through the
   * store's indexes: the dependents of owners that are gone (dangling references) or
   * that are being deleted with the `orphan` or `foregroundDeletion` finalizer, and
   * those owners themselves. Any other dependent keeps its references as they are and
   * blocks none of those owners, so visiting it would change nothing. Everything is
   * judged as it stood when the pass began, and visited in the store's order (type,
   * then namespace and name), as a pass over every object would.
   */
  #collectGarbage(): void {
    const store = this.objects.store;
    /** The uids that owner references name but no object has. */
    const missing = new Set(store.danglingOwners());
    /** Owners being deleted that orphan their dependents, or wait for them (foreground). */
    const orphaning = new Set<string>();
    const foreground = new Set<string>();
    const holding: Stored[] = [];
    for (const stored of store.terminating()) {
      const list = finalizersOf(stored.object);
      const orphan = list.includes("orphan");
      const fg = list.includes("foregroundDeletion");
      if (!orphan && !fg) continue;
      const uid = String(metaOf(stored.object).uid);
      if (orphan) orphaning.add(uid);
      if (fg) foreground.add(uid);
      holding.push({ typeKey: stored.typeKey, object: stored.object });
    }
    if (!missing.size && !holding.length) return;
    const involved = new Map<JsonObject, Stored>();
    for (const uid of [...missing, ...orphaning, ...foreground]) {
      for (const dependent of store.dependents(uid)) {
        // As the dependent is now: it is written only by its own step below.
        involved.set(dependent.object, { typeKey: dependent.typeKey, object: dependent.object });
      }
    }
    const order = this.#storeOrder();
    /** Owners that dependents still block (`blockOwnerDeletion`), for foreground deletion. */
    const blocked = new Set<string>();
    const block = (refs: JsonObject[]) => {
      for (const ref of refs) if (ref.blockOwnerDeletion === true) blocked.add(String(ref.uid));
    };
    for (const { typeKey: key, object } of [...involved.values()].sort(order)) {
      const refs = ownerRefs(object);
      if (!refs.length) continue;
      const type = this.#typeOf(key);
      if (!type) continue;
      const kept: JsonObject[] = [];
      let doomed = false;
      let orphaned = false;
      for (const ref of refs) {
        const uid = String(ref.uid);
        if (missing.has(uid)) continue; // a dangling reference
        if (orphaning.has(uid)) {
          orphaned = true; // the owner goes, this object stays without the reference
          continue;
        }
        if (foreground.has(uid)) doomed = true;
        kept.push(ref);
      }
      if ((!kept.length && !orphaned) || doomed) {
        this.#deleteObject(type, object);
        const current = store.get(
          key,
          String(metaOf(object).namespace ?? ""),
          String(metaOf(object).name),
        );
        if (current) block(ownerRefs(current));
      } else {
        if (kept.length !== refs.length) {
          this.objects.system(type, without(object, { ownerReferences: kept }));
        }
        block(kept);
      }
    }
    // Owners waiting for their dependents (foreground) or orphans (orphan) to be handled.
    for (const { typeKey: key, object } of holding.sort(order)) {
      const m = metaOf(object);
      if (blocked.has(String(m.uid))) continue;
      const current = store.get(key, String(m.namespace ?? ""), String(m.name));
      if (!current) continue;
      const list = finalizersOf(current);
      const rest = list.filter((f) => f !== "orphan" && f !== "foregroundDeletion");
      const type = this.#typeOf(key);
      if (type && rest.length !== list.length) {
        this.objects.system(type, without(current, { finalizers: rest }));
      }
    }
  }

  /** Compares stored objects in the store's order: by type, then namespace and name. */
  #storeOrder(): (a: Stored, b: Stored) => number {
    const rank = new Map(this.objects.store.typeKeys().map((key, i) => [key, i]));
    return (a, b) =>
      (rank.get(a.typeKey) ?? -1) - (rank.get(b.typeKey) ?? -1) ||
      byNamespaceAndName(a.object, b.object);
  }
}
