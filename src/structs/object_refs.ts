/**
 * References to Kubernetes objects: the `involvedObject` of events and the
 * `metadata.ownerReferences` entries of children, built from plain bodies and from
 * `@kubernetes/client-node` models alike (both use the API's camelCase field names).
 *
 * @module
 */

/** Any Kubernetes object: a raw body, a read-only view of one, or a client model. */
export interface ObjectLike {
  /** e.g. `kopf.dev/v1`, or `v1` for the core group. */
  readonly apiVersion?: string;
  /** e.g. `KopfExample`. */
  readonly kind?: string;
  /** The object's metadata: the fields that references and the hierarchy helpers read. */
  readonly metadata?: {
    /** The object's name. */
    readonly name?: string;
    /** The prefix for a server-generated name, when the name is not set. */
    readonly generateName?: string;
    /** The namespace; absent for cluster-scoped objects. */
    readonly namespace?: string;
    /** The object's uid. */
    readonly uid?: string;
    /** The object's labels. */
    readonly labels?: Readonly<Record<string, string>>;
  };
}

/** What identifies an object in events and logs; absent fields are left out. */
export interface ObjectReference {
  /** e.g. `kopf.dev/v1`, or `v1` for the core group. */
  apiVersion?: string;
  /** e.g. `KopfExample`. */
  kind?: string;
  /** The object's name. */
  name?: string;
  /** The object's uid. */
  uid?: string;
  /** The namespace; absent for cluster-scoped objects. */
  namespace?: string;
}

/** An entry of `metadata.ownerReferences`: the owner of a child object. */
export interface OwnerReference {
  /** Whether the owner is the managing controller of the child. */
  controller?: boolean;
  /** Whether deleting the owner in the foreground waits for this child. */
  blockOwnerDeletion?: boolean;
  /** The owner's apiVersion. */
  apiVersion: string;
  /** The owner's kind. */
  kind: string;
  /** The owner's name. */
  name: string;
  /** The owner's uid. */
  uid: string;
}

/**
 * The options of the hierarchy helpers (`kopf.adopt()`, `kopf.appendOwnerReference()`,
 * `kopf.label()`, `kopf.harmonizeNaming()`, ...), of `kopf.buildOwnerReference()` and of
 * `kopf.apply()`: each takes those it uses, as its signature says.
 */
export interface HierarchyOptions {
  /** The owner (the parent); by default the object being handled. */
  readonly owner?: ObjectLike;
  /** Overwrite what is already set: labels, a name (or generateName), a namespace. */
  readonly forced?: boolean;
  /**
   * Use the name as is (name children exactly as the parent); by default it becomes a
   * `generateName` prefix (`name-`).
   */
  readonly strict?: boolean;
  /**
   * Nested objects to treat like the root ones (labelled too, where they already exist), e.g.
   * `"spec.template"` or `["spec", "template"]` of Deployments and Jobs.
   */
  readonly nested?: string | readonly (string | readonly string[])[];
  /** Mark the owner as the child's controller; `true` by default, `null` leaves it out. */
  readonly controller?: boolean | null;
  /**
   * Block the owner's foreground deletion until the child is gone; `true` by default, `null`
   * leaves it out.
   */
  readonly blockOwnerDeletion?: boolean | null;
}

/**
 * The reference of an object for events and log records; empty fields are left out.
 *
 * @example The reference of an object, e.g. for an event of one's own or a log line
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.update("kopfexamples", ({ body, logger }) => {
 *   const ref = kopf.buildObjectReference(body);
 *   logger.info(`updated ${ref.kind} ${ref.namespace}/${ref.name} (${ref.uid})`);
 * });
 * ```
 */
export function buildObjectReference<T extends ObjectLike>(body: T): ObjectReference {
  const meta = body.metadata ?? {};
  const ref: ObjectReference = {};
  if (body.apiVersion) ref.apiVersion = body.apiVersion;
  if (body.kind) ref.kind = body.kind;
  if (meta.name) ref.name = meta.name;
  if (meta.uid) ref.uid = meta.uid;
  if (meta.namespace) ref.namespace = meta.namespace;
  return ref;
}

/**
 * The owner reference that makes `body` the owner of other objects. The owner must have been
 * read from the cluster: its apiVersion, kind, name and uid are all required.
 *
 * @example Own a child without being its controller (another operator controls it)
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
 * kopf.on.create("kopfexamples", async ({ body, name, namespace }) => {
 *   const owner = kopf.buildOwnerReference(body, { controller: false });
 *   const cache = { metadata: { name: `${name}-cache`, ownerReferences: [{ ...owner }] } };
 *   await createObject(api, configmaps, cache, { namespace });
 * });
 * ```
 */
export function buildOwnerReference<T extends ObjectLike>(
  body: T,
  options: Pick<HierarchyOptions, "controller" | "blockOwnerDeletion"> = {},
): OwnerReference {
  const meta = body.metadata ?? {};
  const fields = {
    apiVersion: body.apiVersion,
    kind: body.kind,
    name: meta.name,
    uid: meta.uid,
  };
  const missing = Object.entries(fields).filter(([, v]) => !v).map(([k]) =>
    k === "name" || k === "uid" ? `metadata.${k}` : k
  );
  if (missing.length > 0) {
    throw new TypeError(
      `Cannot reference the owner: it has no ${missing.join(", ")}. ` +
        `Pass the owner's body as read from the cluster (it needs apiVersion, kind, name, uid).`,
    );
  }
  const ref: Partial<OwnerReference> = {};
  const controller = options.controller === undefined ? true : options.controller;
  const block = options.blockOwnerDeletion === undefined ? true : options.blockOwnerDeletion;
  if (controller !== null) ref.controller = controller;
  if (block !== null) ref.blockOwnerDeletion = block;
  return Object.assign(ref, fields) as OwnerReference;
}

/** Whether a reference points to a core v1 Event (events about events are never made). */
export function isEventReference(ref: ObjectReference): boolean {
  return ref.apiVersion === "v1" && ref.kind === "Event";
}

/**
 * One Kubernetes object (a plain object or a client model), or several in an array or any
 * other iterable (nested ones included).
 */
export type ObjectOrObjects = object | Iterable<object>;

/** The metadata fields that references and the hierarchy helpers read. */
export type ObjectMetaLike = NonNullable<ObjectLike["metadata"]>;

/**
 * The objects given as one object or an iterable of them, in order. `caller` names the public
 * function in the error raised for values that are not objects.
 */
export function eachObject<T extends object>(objs: ObjectOrObjects, caller: string): T[] {
  const found: T[] = [];
  const visit = (value: unknown): void => {
    if (typeof value !== "object" || value === null) {
      throw new TypeError(
        `${caller} expects Kubernetes objects (plain objects or @kubernetes/client-node ` +
          `models), or an array of them; got ${value === null ? "null" : typeof value}.`,
      );
    }
    if (Symbol.iterator in value && !("metadata" in value) && !("kind" in value)) {
      for (const item of value as Iterable<unknown>) visit(item);
    } else {
      found.push(value as T);
    }
  };
  visit(objs);
  return found;
}
