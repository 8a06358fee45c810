/**
 * A change of a child for its parents (`kopf.on.child`), and which owner references of a
 * child name a parent, of which parent resource. What waits for a parent is kept on the
 * parent's record in the reactor's object table (`reactor/objects/parent_changes.ts`).
 *
 * @module
 */
import type { BodySource, RawBody } from "../structs/bodies.ts";
import type { Resource } from "../structs/resources.ts";
import { groupOf } from "../structs/owner_labels.ts";
import type { ChildEventType } from "../intents/kwargs.ts";

/** One change of one child, for its parent. */
export interface ChildChange {
  /** The child's resource. */
  readonly resource: Resource;
  /** What happened to it. */
  readonly event: ChildEventType;
  /** Its state as its watch carried it (its metadata, for a metadata-only watch). */
  readonly child: RawBody;
  /** For a child known by its metadata only: where its whole object is read. */
  readonly source?: BodySource;
}

/** A parent as a child's owner reference names it. */
export interface ParentRef {
  /** The parent's resource. */
  readonly resource: Resource;
  /** Its namespace: the child's, for a namespaced parent; none for a cluster-scoped one. */
  readonly namespace: string | undefined;
  /** Its name. */
  readonly name: string;
  /** Its uid: a parent re-created under the same name is another one. */
  readonly uid: string;
}

/**
 * The parents a child's owner references name, among the parent resources (by
 * `group/Kind`); owners of other kinds, or without uid or name, never. Whether a handler
 * takes a parent that is only an owner, not the controller, is its own (`anyOwner`).
 */
export function parentsOf(
  child: RawBody,
  parentResources: ReadonlyMap<string, Resource>,
): ParentRef[] {
  const refs = child.metadata?.ownerReferences;
  if (!Array.isArray(refs)) return [];
  const out: ParentRef[] = [];
  for (const ref of refs) {
    if (typeof ref !== "object" || ref === null) continue;
    const { apiVersion, kind, name, uid } = ref as Record<string, unknown>;
    if (typeof apiVersion !== "string" || typeof kind !== "string") continue;
    if (typeof name !== "string" || typeof uid !== "string" || !name || !uid) continue;
    const resource = parentResources.get(parentKindKey(groupOf(apiVersion), kind));
    if (resource === undefined) continue;
    const namespace = resource.namespaced ? child.metadata?.namespace : undefined;
    out.push({ resource, namespace, name, uid });
  }
  return out;
}

/** How parent resources are keyed for {@link parentsOf}: `group/Kind`. */
export function parentKindKey(group: string, kind: string): string {
  return `${group}/${kind}`;
}
