/**
 * Read-only views of an object's body and its parts, and "live" views that always
 * show the latest body known to a {@link BodyHolder} (for daemons and timers).
 *
 * @module
 */
import type { BodySource, RawBody, RawMeta } from "./bodies.ts";
import { type FieldPath, isMapping, resolve } from "./dicts.ts";

/** A type made read-only all the way down. */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown ? T
  : T extends readonly (infer E)[] ? ReadonlyArray<DeepReadonly<E>>
  : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
  : T;

/** An arbitrary JSON object, read-only. */
export interface ReadonlyJsonObject {
  /** Any key leads to a read-only JSON value. */
  readonly [key: string]: ReadonlyJsonValue;
}

/** An arbitrary JSON value, read-only. */
export type ReadonlyJsonValue =
  | null
  | boolean
  | number
  | string
  | readonly ReadonlyJsonValue[]
  | ReadonlyJsonObject;

/** The object as a whole, read-only; `S` and `St` type its `spec` and `status`. */
export type Body<S = ReadonlyJsonObject, St = ReadonlyJsonObject> = DeepReadonly<{
  /** The API group and version, e.g. `kopf.dev/v1`. */
  apiVersion?: string;
  /** The kind, e.g. `KopfExample`. */
  kind?: string;
  /** The metadata: name, namespace, labels, annotations, .... */
  metadata: RawMeta;
  /** The desired state. */
  spec?: S;
  /** The observed state. */
  status?: St;
  /** Any other top-level field (e.g. `data` of ConfigMaps). */
  [key: string]: unknown;
}>;
/** The object's `spec`, read-only (empty when absent). */
export type Spec<S = ReadonlyJsonObject> = DeepReadonly<S>;
/** The object's `status`, read-only (empty when absent). */
export type Status<St = ReadonlyJsonObject> = DeepReadonly<St>;
/** The object's `metadata`, read-only. */
export type Meta = DeepReadonly<RawMeta>;
/** The object's labels, read-only (empty when absent). */
export type Labels = Readonly<Record<string, string>>;
/** The object's annotations, read-only (empty when absent). */
export type Annotations = Readonly<Record<string, string>>;

function readOnlyError(what: string): TypeError {
  return new TypeError(
    `The ${what} is read-only; put changes into the patch instead (e.g. patch.spec.field = 1).`,
  );
}

/** The proxy traps of a view that refuse every change with a clear error. */
function refusingTraps(what: string): ProxyHandler<object> {
  const refuse = (): never => {
    throw readOnlyError(what);
  };
  return { set: refuse, deleteProperty: refuse, defineProperty: refuse, setPrototypeOf: refuse };
}

const EMPTY: Readonly<Record<string, never>> = Object.freeze({});

/** An empty object, for absent parts (spec, status, labels, ...): shared, frozen. */
export function emptyObject(): Readonly<Record<string, never>> {
  return EMPTY;
}

/**
 * The key that only the views made here answer (from their own get trap), so that they can
 * be told from the data they show: a set of all views would cost many times the proxies
 * themselves, at every garbage collection, and handlers get views for every object.
 */
const VIEW_MARK: unique symbol = Symbol("view");

/** Whether the value is a read-only or live view (of a body or a part of it). */
export function isView(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  try {
    return (value as { readonly [VIEW_MARK]?: unknown })[VIEW_MARK] === true;
  } catch {
    return false; // another proxy, refusing a key it does not know
  }
}

/**
 * Whether a view's get trap is asked about the view itself, not about an object that
 * inherits from it (whose prototype is the view, not the viewed object's prototype).
 */
function asksItself(target: object, receiver: unknown): boolean {
  return typeof receiver === "object" && receiver !== null &&
    Reflect.getPrototypeOf(receiver) === Reflect.getPrototypeOf(target);
}

/**
 * A deep copy of the value as plain data: views become the plain objects and arrays they
 * show (as they are now, for live views), plain objects and arrays are copied, anything
 * else (primitives, dates, class instances, functions) is kept as it is, for the caller
 * to accept or refuse. Cycles stay cycles. Use it before storing what a handler gives
 * back, since views cannot be cloned.
 */
export function toPlainData<T>(value: T): T {
  return plainCopy(value, new Map()) as T;
}

function plainCopy(value: unknown, copies: Map<object, unknown>): unknown {
  if (typeof value !== "object" || value === null) return value;
  const known = copies.get(value);
  if (known !== undefined) return known;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    copies.set(value, out);
    for (let i = 0; i < value.length; i++) out.push(plainCopy(value[i], copies));
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  copies.set(value, out);
  for (const key of Object.keys(value)) {
    out[key] = plainCopy((value as Record<string, unknown>)[key], copies);
  }
  return out;
}

/**
 * A read-only view of the value: reading works as usual (nested objects are views
 * too, the same view each time), any write or delete throws a clear error.
 */
export function readOnlyView<T>(value: T, what: string = "body"): DeepReadonly<T> {
  if (typeof value !== "object" || value === null) return value as DeepReadonly<T>;
  return new Proxy(value, readOnlyTraps(what)) as DeepReadonly<T>;
}

/**
 * The traps of read-only views, one set per `what` for all views of it: a view costs its
 * proxy only (handlers get several per call, for every object).
 */
const READ_ONLY_TRAPS = new Map<string, ProxyHandler<object>>();
const READ_ONLY_TRAPS_LIMIT = 1_000;

function readOnlyTraps(what: string): ProxyHandler<object> {
  let traps = READ_ONLY_TRAPS.get(what);
  if (traps === undefined) {
    // Nested views are made on first access and kept, so that `v.a === v.a`: per viewed
    // object, which holds them only as long as it lives.
    const nested = new WeakMap<object, Map<PropertyKey, [object, unknown]>>();
    traps = {
      get(target, key, receiver) {
        if (key === VIEW_MARK) return asksItself(target, receiver);
        const v = Reflect.get(target, key, receiver);
        if (typeof v !== "object" || v === null) return v;
        // A frozen object's properties must be returned as they are (a proxy rule);
        // they cannot be changed anyway.
        if (Object.isFrozen(target)) return v;
        let views = nested.get(target);
        const known = views?.get(key);
        if (known !== undefined && known[0] === v) return known[1];
        const view = readOnlyView(v, what);
        if (views === undefined) nested.set(target, views = new Map());
        views.set(key, [v, view]);
        return view;
      },
      ...refusingTraps(what),
    };
    if (READ_ONLY_TRAPS.size >= READ_ONLY_TRAPS_LIMIT) READ_ONLY_TRAPS.clear();
    READ_ONLY_TRAPS.set(what, traps);
  }
  return traps;
}

/** Holds the latest known body of an object; live views read through it. */
export class BodyHolder {
  #body: RawBody;
  #source: BodySource | undefined;

  /** A holder starting with the given body (known by its metadata only, with a source). */
  constructor(body: RawBody, source?: BodySource) {
    this.#body = body;
    this.#source = source;
  }

  /** The latest body. */
  get body(): RawBody {
    return this.#body;
  }

  /** Where the whole object is read, when the latest body has only its metadata. */
  get source(): BodySource | undefined {
    return this.#source;
  }

  /** Replace the body with a newer one; every live view follows. */
  update(body: RawBody, source?: BodySource): void {
    this.#body = body;
    this.#source = source;
  }
}

/**
 * A read-only view of the value at `path` inside the holder's body, as it is *now*:
 * every read goes to the latest body. A missing value behaves as an empty object.
 */
export function liveView<T = ReadonlyJsonObject>(
  holder: BodyHolder,
  path: FieldPath,
  what: string = "body",
): DeepReadonly<T> {
  const children = new Map<string, object>();
  const current = (): Record<string, unknown> => {
    const v = resolve(holder.body, path);
    return isMapping(v) ? v : {};
  };
  const proxy = new Proxy({} as Record<string, unknown>, {
    get(_target, key, receiver) {
      if (key === VIEW_MARK) return receiver === proxy;
      const obj = current();
      const v = Reflect.get(obj, key);
      if (typeof key !== "string" || typeof v !== "object" || v === null) return v;
      if (Array.isArray(v)) return readOnlyView(v, what);
      let child = children.get(key);
      if (child === undefined) {
        child = liveView(holder, [...path, key], what) as object;
        children.set(key, child);
      }
      return child;
    },
    has(_target, key) {
      return Reflect.has(current(), key);
    },
    ownKeys() {
      return Reflect.ownKeys(current());
    },
    getOwnPropertyDescriptor(_target, key) {
      const d = Reflect.getOwnPropertyDescriptor(current(), key);
      return d === undefined ? undefined : { ...d, configurable: true };
    },
    ...refusingTraps(what),
  });
  return proxy as DeepReadonly<T>;
}
