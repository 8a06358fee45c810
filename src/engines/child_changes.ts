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

/** A child's owner references, as its metadata holds them. */
export type OwnerReferences = NonNullable<NonNullable<RawBody["metadata"]>["ownerReferences"]>;

/**
 * What is kept of a known child's owners until it is deleted: its parents, and its owner
 * references as last seen -- for a deletion noticed in a re-listing, which carries no state.
 * Where the references are exactly what the parents make again (each reference a parent's,
 * in its resource's `apiVersion` and `kind`, at most `controller` and `blockOwnerDeletion`
 * set beside; `kopf.adopt()` makes them so), only which of them are set is kept: a parsed
 * reference holds some 170 bytes more per child, thousands of children long.
 */
export interface KnownOwners {
  /** The parents the references name (see {@link parentsOf}). */
  readonly parents: readonly ParentRef[];
  /** The references as seen, where the parents do not make them again exactly. */
  readonly references: OwnerReferences | undefined;
  /** Bit i: the i-th parent's reference is the controller; bit 16+i: it blocks deletion. */
  readonly flags: number;
}

/** The keys an owner reference may have for {@link KnownOwners} to make it again. */
const MADE_AGAIN: ReadonlySet<string> = new Set([
  "apiVersion",
  "kind",
  "name",
  "uid",
  "controller",
  "blockOwnerDeletion",
]);

/** Whether a reference has no key beside those {@link KnownOwners} makes again (no array made). */
function madeAgain(reference: Record<string, unknown>): boolean {
  for (const key in reference) if (!MADE_AGAIN.has(key)) return false;
  return true;
}

/** What to keep of a child's owners; `parents` are {@link parentsOf} the child. */
export function knownOwners(child: RawBody, parents: readonly ParentRef[]): KnownOwners {
  const references = child.metadata?.ownerReferences ?? [];
  let flags = 0;
  if (references.length !== parents.length || parents.length > 16) {
    return { parents, references, flags };
  }
  for (let i = 0; i < parents.length; i++) {
    const reference = references[i] as Record<string, unknown>;
    const { resource, name, uid } = parents[i];
    const { controller, blockOwnerDeletion } = reference;
    if (
      reference.apiVersion !== resource.apiVersion || reference.kind !== resource.kind ||
      reference.name !== name || reference.uid !== uid ||
      !(controller === undefined || controller === true) ||
      !(blockOwnerDeletion === undefined || blockOwnerDeletion === true) ||
      !madeAgain(reference)
    ) return { parents, references, flags: 0 };
    if (controller === true) flags |= 1 << i;
    if (blockOwnerDeletion === true) flags |= 1 << (16 + i);
  }
  return { parents, references: undefined, flags };
}

/** The owner references of a known child, as last seen. */
export function ownerReferencesOf(known: KnownOwners): OwnerReferences {
  if (known.references !== undefined) return known.references;
  return known.parents.map(({ resource, name, uid }, i) => ({
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    name,
    uid,
    ...((known.flags >> i) & 1 ? { controller: true } : {}),
    ...((known.flags >> (16 + i)) & 1 ? { blockOwnerDeletion: true } : {}),
  }));
}
