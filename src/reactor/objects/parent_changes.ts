/**
 * The changes of children waiting for their parents' processing (`kopf.on.child`), kept on
 * each parent's record in the object table: the latest change of each child (a newer one
 * replaces an older one not yet handled), and the retry state of each child handler per
 * child. In memory only -- as for daemons and timers, nothing of it is persisted: a restarted
 * operator does not re-run child handlers for the children it lists at its start.
 *
 * @module
 */
import type { RawBody } from "../../structs/bodies.ts";
import type { HandlerState } from "../../handling/handler_progress.ts";
import type { ChildChange, ParentRef } from "../../engines/child_changes.ts";
import type { ObjectEntry, ParentChildren } from "./object_entries.ts";
import type { ObjectTable } from "./object_table.ts";

/** The children's changes waiting for their parents; see the module docs. */
export class ChildChanges {
  readonly #objects: ObjectTable;

  /** The changes kept on the records of the table. */
  constructor(objects: ObjectTable) {
    this.#objects = objects;
  }

  /** Note a child's change; true if its parent had none waiting (it must be processed). */
  add(parent: ParentRef, change: ChildChange): boolean {
    const { resource, name, namespace, uid } = parent;
    const entry = this.#objects.get(resource, namespace, uid) ??
      this.#objects.entry(resource, { metadata: { name, namespace, uid } });
    const children = entry.children ??= newChildren();
    const first = children.pending.size === 0;
    children.pending.set(childUid(change.child), change);
    return first;
  }

  /** Whether the parent has changes waiting. */
  has(parent: ObjectEntry): boolean {
    return (parent.children?.pending.size ?? 0) > 0;
  }

  /** The parent's waiting changes, taken: newer ones noted meanwhile wait for the next time. */
  take(parent: ObjectEntry): ChildChange[] {
    const children = parent.children;
    if (children === undefined || children.pending.size === 0) return [];
    const taken = [...children.pending.values()];
    children.pending.clear();
    this.#unused(parent);
    return taken;
  }

  /** Put a change back to be handled again, unless a newer one of that child came meanwhile. */
  retry(parent: ObjectEntry, change: ChildChange): void {
    const pending = (parent.children ??= newChildren()).pending;
    const uid = childUid(change.child);
    if (!pending.has(uid)) pending.set(uid, change);
  }

  /** The retry state of a handler for a child of the parent, if it is being retried. */
  state(parent: ObjectEntry, handlerId: string, child: RawBody): HandlerState | undefined {
    return parent.children?.states.get(stateKey(handlerId, child));
  }

  /** Keep (or, with `undefined`, drop) the retry state of a handler for a child. */
  setState(
    parent: ObjectEntry,
    handlerId: string,
    child: RawBody,
    state: HandlerState | undefined,
  ): void {
    const key = stateKey(handlerId, child);
    if (state === undefined) {
      parent.children?.states.delete(key);
      this.#unused(parent);
    } else (parent.children ??= newChildren()).states.set(key, state);
  }

  /**
   * Nothing waits and nothing is retried: the record keeps no maps (two per parent, some
   * 150 bytes, for every parent whose children ever changed). The record stays while its
   * processing runs or its watch knows it.
   */
  #unused(parent: ObjectEntry): void {
    const children = parent.children;
    if (children === undefined || children.pending.size > 0 || children.states.size > 0) return;
    parent.children = undefined;
    this.#objects.release(parent);
  }

  /** Forget what waits for a parent: gone, deleted, or not this replica's. */
  forget(parent: ObjectEntry | ParentRef): void {
    const entry = "key" in parent
      ? parent
      : this.#objects.get(parent.resource, parent.namespace, parent.uid);
    if (entry === undefined || entry.children === undefined) return;
    entry.children = undefined;
    this.#objects.release(entry);
  }
}

function newChildren(): ParentChildren {
  return { pending: new Map(), states: new Map() };
}

function childUid(child: RawBody): string {
  const meta = child.metadata;
  return meta?.uid ?? `${meta?.namespace ?? ""}/${meta?.name ?? ""}`;
}

function stateKey(handlerId: string, child: RawBody): string {
  return `${handlerId}\u0000${childUid(child)}`;
}
