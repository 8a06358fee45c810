/**
 * The controllers a real cluster runs around deletion, done synchronously after each
 * request that may need them: the namespace controller (a deleted namespace empties
 * before it goes), the CRD cleanup (a deleted CRD's objects go first), and the garbage
 * collector (owner references: background, foreground and orphan propagation).
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { type ResourceType, typeKey } from "./catalog.ts";
import { CRD_CLEANUP_FINALIZER } from "./crds.ts";
import type { Change } from "./history.ts";
import { finalizersOf, metaOf } from "./metadata.ts";
import type { Objects } from "./objects.ts";
import { isObject, jsonEqual } from "./patching.ts";

const NAMESPACES = typeKey("", "namespaces");
const CRDS = typeKey("apiextensions.k8s.io", "customresourcedefinitions");
/** Enough rounds for any realistic chain of owners; a guard against cycles. */
const MAX_ROUNDS = 100;

function ownerRefs(object: JsonObject): JsonObject[] {
  const refs = metaOf(object).ownerReferences;
  return Array.isArray(refs) ? refs.filter(isObject) : [];
}

function without(object: JsonObject, changes: JsonObject): JsonObject {
  return { ...object, metadata: { ...metaOf(object), ...changes } };
}

/** Runs the deletion controllers over the objects whenever a change may need them. */
export class Lifecycle {
  #dirty = false;
  #running = false;

  constructor(readonly objects: Objects) {
    objects.store.listen((change) => {
      if (this.#matters(change)) this.#dirty = true;
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
    this.objects.delete({ type, version, namespace, name: String(metaOf(object).name) }, {
      propagationPolicy: "Background",
    });
  }

  #namespaces(): void {
    const store = this.objects.store;
    const nsType = this.#typeOf(NAMESPACES)!;
    for (const ns of store.list(NAMESPACES)) {
      if (!metaOf(ns).deletionTimestamp) continue;
      const name = String(metaOf(ns).name);
      let remaining = 0;
      for (const key of store.typeKeys()) {
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
    for (const crd of store.list(CRDS)) {
      if (!metaOf(crd).deletionTimestamp || !finalizersOf(crd).includes(CRD_CLEANUP_FINALIZER)) {
        continue;
      }
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

  #collectGarbage(): void {
    const store = this.objects.store;
    const byUid = new Map<string, JsonObject>();
    const all: [string, JsonObject][] = [];
    for (const key of store.typeKeys()) {
      for (const object of store.list(key)) {
        byUid.set(String(metaOf(object).uid), object);
        all.push([key, object]);
      }
    }
    /** Owners that dependents still block (`blockOwnerDeletion`), for foreground deletion. */
    const blocked = new Set<string>();
    const block = (refs: JsonObject[]) => {
      for (const ref of refs) if (ref.blockOwnerDeletion === true) blocked.add(String(ref.uid));
    };
    for (const [key, object] of all) {
      const refs = ownerRefs(object);
      if (!refs.length) continue;
      const type = this.#typeOf(key);
      if (!type) continue;
      const kept: JsonObject[] = [];
      let doomed = false;
      let orphaned = false;
      for (const ref of refs) {
        const owner = byUid.get(String(ref.uid));
        if (!owner) continue; // a dangling reference
        const ownerFinalizers = metaOf(owner).deletionTimestamp ? finalizersOf(owner) : [];
        if (ownerFinalizers.includes("orphan")) {
          orphaned = true; // the owner goes, this object stays without the reference
          continue;
        }
        if (ownerFinalizers.includes("foregroundDeletion")) doomed = true;
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
    for (const [key, object] of all) {
      const m = metaOf(object);
      if (!m.deletionTimestamp || blocked.has(String(m.uid))) continue;
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
}
