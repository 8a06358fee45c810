/**
 * The `patch` handed to handlers: changes accumulate in it and are applied after the
 * handler, as a JSON merge patch (or, for mutating webhooks, as a JSON Patch).
 *
 * @module
 */
import type { JsonObject, JsonValue } from "./bodies.ts";
import { isMapping, jsonEqual } from "./dicts.ts";
import { isView, type ReadonlyJsonObject, toPlainData } from "./views.ts";

/**
 * What a JSON merge patch (RFC 7386) of a `T` may hold: every field optional, `null` to
 * delete it, nested objects merged field by field, arrays replaced as a whole (and dates,
 * which a patch writes as ISO strings, as they are).
 */
export type MergePatch<T> = T extends readonly unknown[] | Date ? T
  : T extends object ? { -readonly [K in keyof T]?: MergePatch<T[K]> | null }
  : T;

/**
 * A section of a patch (`spec`, `status`, ...): set keys to change them, `null` to delete. For a
 * part typed `T` (a handler's `S` or `St`), a {@link MergePatch} of it; any key when `T` is the
 * default (`ReadonlyJsonObject`), `unknown` or `any`, so that handlers without types write any
 * key as before.
 */
export type PatchSection<T = unknown> = unknown extends T ? { [key: string]: unknown }
  // Exactly the default, not merely assignable both ways as a type with only optional
  // fields is: the comparison of these generic functions is exact.
  : (<G>() => G extends T ? 1 : 2) extends (<G>() => G extends ReadonlyJsonObject ? 1 : 2)
    ? { [key: string]: unknown }
  : MergePatch<T>;

/** One operation of an RFC 6902 JSON Patch. */
export interface JsonPatchOperation {
  /** What to do at the path (a {@link Patch} makes only `add`, `replace` and `remove`). */
  op: "add" | "remove" | "replace" | "move" | "copy" | "test";
  /** A JSON Pointer (RFC 6901) into the object. */
  path: string;
  /** The value, for `add`, `replace` and `test`. */
  value?: JsonValue;
  /** The source pointer, for `move` and `copy`. */
  from?: string;
}

/** A node of the patch tree; it joins its parent only when something is written into it. */
interface SectionNode {
  obj: Record<string, unknown>;
  parent: SectionNode | undefined;
  key: string;
  vivify: ReadonlySet<string>;
  // At most the few sections of `vivify`, so a list; made on the first one asked for.
  children: SectionNode[] | undefined;
  proxy: PatchSection | undefined;
}

const ROOT_SECTIONS: ReadonlySet<string> = new Set(["metadata", "spec", "status"]);
const META_SECTIONS: ReadonlySet<string> = new Set(["labels", "annotations"]);
const NO_SECTIONS: ReadonlySet<string> = new Set();

function newNode(
  obj: Record<string, unknown>,
  parent: SectionNode | undefined,
  key: string,
): SectionNode {
  const vivify = parent === undefined
    ? ROOT_SECTIONS
    : parent.parent === undefined && key === "metadata"
    ? META_SECTIONS
    : NO_SECTIONS;
  return { obj, parent, key, vivify, children: undefined, proxy: undefined };
}

function attach(node: SectionNode): void {
  const parent = node.parent;
  if (parent === undefined || parent.obj[node.key] === node.obj) return;
  attach(parent);
  parent.obj[node.key] = node.obj;
}

/** The section under `key`: the patch's own object if there is one, else a pending one. */
function childOf(node: SectionNode, key: string): unknown {
  const value = node.obj[key];
  if (value === null) return null;
  if (value !== undefined && !isMapping(value)) return value;
  return proxyOf(childNode(node, key, value));
}

/** The node of the section under `key`, whose value is a mapping or absent. */
function childNode(
  node: SectionNode,
  key: string,
  value: Record<string, unknown> | undefined,
): SectionNode {
  const children = node.children ??= [];
  let index = 0;
  while (index < children.length && children[index].key !== key) index++;
  let child: SectionNode | undefined = children[index];
  if (child === undefined || (value !== undefined && child.obj !== value)) {
    child = newNode(value === undefined ? {} : value, node, key);
    children[index] = child;
  }
  return child;
}

/** The traps of a section's proxy: an object per section, its methods shared. */
class SectionTraps implements ProxyHandler<Record<string, unknown>> {
  constructor(readonly node: SectionNode) {}

  get(target: Record<string, unknown>, key: string | symbol, receiver: unknown): unknown {
    if (typeof key === "string" && this.node.vivify.has(key)) return childOf(this.node, key);
    return Reflect.get(target, key, receiver);
  }

  set(target: Record<string, unknown>, key: string | symbol, value: unknown): boolean {
    if (typeof key !== "string") return Reflect.set(target, key, value);
    if (value === undefined) {
      delete target[key];
    } else {
      attach(this.node);
      target[key] = plainIfView(value);
    }
    return true;
  }

  deleteProperty(target: Record<string, unknown>, key: string | symbol): boolean {
    return Reflect.deleteProperty(target, key);
  }
}

function proxyOf(node: SectionNode): PatchSection {
  return node.proxy ??= new Proxy(node.obj, new SectionTraps(node));
}

/**
 * The accumulated merge patch as the patch holds it, for reading only: what
 * {@link Patch.toMergePatch} would copy, without the proxies (nor the sections they make).
 */
export function patchContent(patch: Patch): Readonly<Record<string, unknown>> {
  return rootOf(patch).obj;
}

/**
 * Set `value` at `path` in the patch as writing it through the sections would
 * (`ensure` on {@link Patch.root}): missing (or non-object) parents become `{}`, the
 * sections the path goes through join the patch; but without their proxies.
 */
export function setInPatch(patch: Patch, path: readonly string[], value: unknown): void {
  let node: SectionNode | undefined = rootOf(patch);
  let obj = node.obj;
  const last = path.length - 1;
  for (let i = 0; i < last; i++) {
    const key = path[i];
    const next = obj[key];
    if (node !== undefined && node.vivify.has(key) && (next === undefined || isMapping(next))) {
      node = childNode(node, key, next);
      obj = node.obj;
    } else if (isMapping(next)) {
      node = undefined;
      obj = next;
    } else {
      if (node !== undefined) attach(node);
      const fresh: Record<string, unknown> = {};
      obj[key] = fresh;
      node = undefined;
      obj = fresh;
    }
  }
  const key = path[last];
  if (node === undefined) {
    obj[key] = value;
  } else if (value === undefined) {
    delete obj[key];
  } else {
    attach(node);
    obj[key] = plainIfView(value);
  }
}

/**
 * Whether applying the merge patch (RFC 7386) to the value would change it: a key set to
 * `null` that the value has, a mapping merged into something else or changing it, any
 * other value that differs from the value's. Views and plain data alike.
 */
export function mergePatchChanges(value: unknown, patch: unknown): boolean {
  if (!isMapping(patch)) return !jsonEqual(value, patch);
  if (!isMapping(value)) return true;
  for (const key in patch) {
    if (!Object.hasOwn(patch, key)) continue;
    const change = patch[key];
    if (change === undefined) continue;
    if (change === null) {
      if (value[key] !== undefined) return true;
    } else if (mergePatchChanges(value[key], change)) {
      return true;
    }
  }
  return false;
}

/**
 * A view (e.g. `spec` given to a handler) as a plain copy of what it shows, so that the
 * patch neither follows later bodies nor refuses writes into the assigned value.
 */
function plainIfView(value: unknown): unknown {
  return isView(value) ? toPlainData(value) : value;
}

/** A deep copy as plain JSON: `undefined` dropped, views and proxies turned into data. */
function toJson(value: unknown, dropNulls: boolean): JsonValue {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) {
      throw new TypeError(`A patch cannot carry the number ${value}; JSON has no such value.`);
    }
    if (typeof value === "bigint" || typeof value === "function" || typeof value === "symbol") {
      throw new TypeError(`A patch can carry only JSON values, not a ${typeof value}.`);
    }
    return value as JsonValue;
  }
  if (Array.isArray(value)) return value.map((v) => toJson(v ?? null, false));
  if (value instanceof Date) return value.toISOString();
  const out: JsonObject = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined || (dropNulls && v === null)) continue;
    out[key] = toJson(v, dropNulls);
  }
  return out;
}

let rootOf: (patch: Patch) => SectionNode;

function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

function jsonPatchOps(
  patch: Record<string, unknown>,
  body: unknown,
  pointer: string,
  out: JsonPatchOperation[],
): void {
  const existing = isMapping(body) ? body : undefined;
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === undefined) continue;
    const path = `${pointer}/${escapePointer(key)}`;
    const current = existing === undefined ? undefined : existing[key];
    const exists = current !== undefined && Object.hasOwn(existing!, key);
    if (value === null) {
      if (exists) out.push({ op: "remove", path });
    } else if (isMapping(value) && isMapping(current)) {
      jsonPatchOps(value, current, path, out);
    } else {
      out.push({ op: exists ? "replace" : "add", path, value: toJson(value, true) });
    }
  }
}

/**
 * Changes to apply to an object after a handler: `patch.spec.x = 1`,
 * `patch.metadata.labels.k = "v"` (or `patch.meta...`), `patch.status.y = null` (delete).
 * The sections `metadata`/`meta`, `spec`, `status`, and `labels`/`annotations` inside
 * the metadata come into being on first write; other top-level keys go via `root`.
 *
 * `S` and `St` type the `spec` and `status` sections (see {@link PatchSection}); a
 * handler typed with `kopf.on.create<Spec, Status>` gets a `Patch<Spec, Status>`.
 */
export class Patch<S = ReadonlyJsonObject, St = ReadonlyJsonObject> {
  readonly #root: SectionNode;

  static {
    rootOf = (patch) => patch.#root;
  }

  /** A new patch, optionally starting with the given merge-patch content. */
  constructor(init?: Record<string, unknown>) {
    this.#root = newNode({}, undefined, "");
    if (init !== undefined) {
      if (!isMapping(init)) throw new TypeError("A Patch starts from a plain object, if at all.");
      Object.assign(this.#root.obj, toJson(init, false) as JsonObject);
    }
  }

  /** The whole patch, for top-level keys other than the usual sections (e.g. `data`). */
  get root(): PatchSection {
    return proxyOf(this.#root);
  }

  /** The `metadata` section, with `labels` and `annotations` auto-vivifying. */
  get metadata(): {
    /** Set a key to change it, to `null` to delete it. */
    [key: string]: unknown;
    /** Labels to set (a string) or remove (`null`). */
    labels: Record<string, string | null>;
    /** Annotations to set (a string) or remove (`null`). */
    annotations: Record<string, string | null>;
  } {
    return childOf(this.#root, "metadata") as Patch["metadata"];
  }
  set metadata(value: Record<string, unknown> | null) {
    this.#set("metadata", value);
  }

  /** The `metadata` section (an alias of {@link Patch.metadata}). */
  get meta(): Patch["metadata"] {
    return this.metadata;
  }
  set meta(value: Record<string, unknown> | null) {
    this.#set("metadata", value);
  }

  /** The `spec` section. */
  get spec(): PatchSection<S> {
    return childOf(this.#root, "spec") as PatchSection<S>;
  }
  set spec(value: PatchSection<S> | null) {
    this.#set("spec", value);
  }

  /** The `status` section. */
  get status(): PatchSection<St> {
    return childOf(this.#root, "status") as PatchSection<St>;
  }
  set status(value: PatchSection<St> | null) {
    this.#set("status", value);
  }

  #set(key: string, value: unknown): void {
    if (value === undefined) delete this.#root.obj[key];
    else this.#root.obj[key] = plainIfView(value);
  }

  /** Whether nothing has been written into the patch. */
  get isEmpty(): boolean {
    for (const key in this.#root.obj) {
      if (this.#root.obj[key] !== undefined) return false;
    }
    return true;
  }

  /** Forget all accumulated changes. */
  clear(): void {
    for (const key of Object.keys(this.#root.obj)) delete this.#root.obj[key];
    this.#root.children = undefined;
  }

  /** The changes as a JSON merge patch (RFC 7386): a plain object, `null` deletes. */
  toMergePatch(): JsonObject {
    return toJson(this.#root.obj, false) as JsonObject;
  }

  /**
   * The changes as a JSON Patch (RFC 6902) against `body`: keys that exist are
   * replaced, new ones added (missing parents included), `null` removes existing keys
   * and is skipped for absent ones. This is what mutating webhooks return.
   */
  toJsonPatch(body: unknown): JsonPatchOperation[] {
    const out: JsonPatchOperation[] = [];
    jsonPatchOps(this.#root.obj, body, "", out);
    return out;
  }

  /** The merge patch, so that `JSON.stringify(patch)` shows the changes. */
  toJSON(): JsonObject {
    return this.toMergePatch();
  }
}
