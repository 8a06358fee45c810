/**
 * Memos: free-form in-memory containers shared by the handlers of one object (or, for
 * activities, of the whole operator).
 *
 * @module
 */

/**
 * A free-form container: `memo.counter = 1`, `memo.queue`, .... Each object gets a
 * shallow copy of the operator's memo when first seen.
 *
 * @example Share a cache among all objects, and count the updates of each object
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * const owners = new Map<string, string>(); // one map: each object's memo refers to it
 * kopf.on.update("kopfexamples", ({ memo, uid, labels }) => {
 *   memo.updates = Number(memo.updates ?? 0) + 1; // this object's own count
 *   (memo.owners as typeof owners).set(uid, labels.owner ?? "nobody");
 * });
 * await kopf.operator({ memo: new kopf.Memo({ owners }), namespaces: ["default"] });
 * ```
 */
export class Memo {
  /** Any values the handlers keep here. */
  [key: string]: unknown;

  /** A memo holding the given initial values. */
  constructor(init?: Record<string, unknown>) {
    if (init !== undefined) Object.assign(this, init);
  }

  /** A shallow copy: new container, same values. */
  copy(): Memo {
    return new Memo({ ...this });
  }
}

/** Anything that decides for itself how it is copied per object. */
interface SelfCopying {
  copy(): unknown;
}

function isSelfCopying(value: unknown): value is SelfCopying {
  return typeof value === "object" && value !== null &&
    typeof (value as { copy?: unknown }).copy === "function";
}

/**
 * The per-object copy of an operator memo: its own `copy()` if it has one (return
 * `this` there to share one memo everywhere), else a shallow copy of the same class.
 */
export function copyMemo<M>(memo: M): M {
  if (isSelfCopying(memo)) return memo.copy() as M;
  if (typeof memo !== "object" || memo === null) return memo;
  if (Array.isArray(memo)) return [...memo] as M;
  return Object.assign(Object.create(Object.getPrototypeOf(memo)), memo);
}
