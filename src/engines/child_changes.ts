/**
 * The changes of children waiting for their parents' processing (`kopf.on.child`): per
 * parent uid, the latest change of each child (a newer one replaces an older one not yet
 * handled), and the retry state of each child handler per child, kept in memory — as for
 * daemons and timers, nothing of it is persisted: a restarted operator does not re-run
 * child handlers for the children it lists at its start.
 *
 * Also here: which owner references of a child name a parent, and which parent resource.
 *
 * @module
 */
import type { BodySource, RawBody } from "../structs/bodies.ts";
import type { Resource } from "../structs/resources.ts";
import { groupOf } from "../structs/owner_labels.ts";
import type { HandlerState } from "../handling/handler_progress.ts";
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

/** The children's changes waiting for their parents; see the module docs. */
export class ChildChanges {
  /** The latest change of each child not handled yet, by parent uid, then by child uid. */
  readonly #parents = new Map<string, Map<string, ChildChange>>();
  /** Retry states by parent uid, then by handler id and child uid. */
  readonly #states = new Map<string, Map<string, HandlerState>>();

  /** Note a child's change; true if its parent had none waiting (it must be processed). */
  add(parentUid: string, change: ChildChange): boolean {
    let pending = this.#parents.get(parentUid);
    const first = pending === undefined;
    if (pending === undefined) this.#parents.set(parentUid, pending = new Map());
    pending.set(childUid(change.child), change);
    return first;
  }

  /** Whether the parent has changes waiting. */
  has(parentUid: string): boolean {
    return this.#parents.has(parentUid);
  }

  /** The parent's waiting changes, taken: newer ones noted meanwhile wait for the next time. */
  take(parentUid: string): ChildChange[] {
    const pending = this.#parents.get(parentUid);
    if (pending === undefined) return [];
    this.#parents.delete(parentUid);
    return [...pending.values()];
  }

  /** Put a change back to be handled again, unless a newer one of that child came meanwhile. */
  retry(parentUid: string, change: ChildChange): void {
    let pending = this.#parents.get(parentUid);
    if (pending === undefined) this.#parents.set(parentUid, pending = new Map());
    const uid = childUid(change.child);
    if (!pending.has(uid)) pending.set(uid, change);
  }

  /** The retry state of a handler for a child of the parent, if it is being retried. */
  state(parentUid: string, handlerId: string, child: RawBody): HandlerState | undefined {
    return this.#states.get(parentUid)?.get(stateKey(handlerId, child));
  }

  /** Keep (or, with `undefined`, drop) the retry state of a handler for a child. */
  setState(
    parentUid: string,
    handlerId: string,
    child: RawBody,
    state: HandlerState | undefined,
  ): void {
    const key = stateKey(handlerId, child);
    let states = this.#states.get(parentUid);
    if (state === undefined) {
      states?.delete(key);
      if (states?.size === 0) this.#states.delete(parentUid);
      return;
    }
    if (states === undefined) this.#states.set(parentUid, states = new Map());
    states.set(key, state);
  }

  /** Forget a parent: gone, deleted, or not this replica's. */
  forget(parentUid: string): void {
    this.#parents.delete(parentUid);
    this.#states.delete(parentUid);
  }
}

function childUid(child: RawBody): string {
  const meta = child.metadata;
  return meta?.uid ?? `${meta?.namespace ?? ""}/${meta?.name ?? ""}`;
}

function stateKey(handlerId: string, child: RawBody): string {
  return `${handlerId}\u0000${childUid(child)}`;
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
