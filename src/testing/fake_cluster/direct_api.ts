/**
 * The direct API of the fake cluster: fixtures and assertions without a client or HTTP --
 * create, get, list, patch, replace, delete and wait for objects, named as kubectl names
 * resources. It acts as the admin, admits no webhooks, and runs the lifecycle controllers
 * after each write, as a request would.
 *
 * @module
 */
import type { JsonObject, JsonValue, RawBody } from "../../structs/bodies.ts";
import { Selector, TypedResource } from "../../structs/resource_selectors.ts";
import {
  resourcesOf,
  type ResourceType,
  type ServedVersion,
  typeKey,
} from "../../catalog/resource_types.ts";
import { ApiError } from "./errors.ts";
import type { Lifecycle } from "./lifecycle.ts";
import type { Objects } from "./objects.ts";
import type { DeletionOptions, PatchType, Target } from "./targets.ts";
import { parseFieldSelector, parseLabelSelector } from "./selectors.ts";
import { objectState } from "../failure_reports.ts";

/**
 * Which resource the direct API addresses: a name as kubectl takes it (`pods`,
 * `configmap`, `cm`, `kopfexamples.kopf.dev`, `kopfexamples.v1.kopf.dev`), an
 * `apiVersion` and `kind` as in manifests, or a typed resource (`kopf.resource<T>(...)`),
 * found as the operator finds it and typing what {@link FakeCluster.get},
 * {@link FakeCluster.list} and {@link FakeCluster.waitFor} return as `T`.
 */
export type FakeResource<T = unknown> =
  | string
  | { apiVersion: string; kind: string }
  | TypedResource<T>;

/**
 * The type of the objects that the direct API returns for objects typed `T`: `T` itself,
 * or {@link RawBody} when nothing types them (a name, or `kopf.resource()` without a type).
 * `T` is not checked against the objects: it is what the test says they are.
 */
export type FakeObject<T> = unknown extends T ? RawBody : T;

/** Where a direct call looks: the namespace (`default` for namespaced resources). */
export interface FakeObjectOptions {
  /** The namespace; `default` when omitted for namespaced resources. */
  namespace?: string;
}

/** Options of {@link FakeCluster.list}. */
export interface FakeListOptions extends FakeObjectOptions {
  /** A label selector, e.g. `app=web,tier!=db`. */
  labelSelector?: string;
  /** A field selector, e.g. `metadata.name=x`. */
  fieldSelector?: string;
  /** List across all namespaces (ignores `namespace`). */
  allNamespaces?: boolean;
}

/** Who a direct write is by, for `metadata.managedFields`. */
export interface FakeWriteOptions {
  /**
   * The field manager the write's changes are recorded for (an `Update` entry), as a
   * request's `fieldManager` is. Without one, the write is not tracked: the object keeps
   * the managed fields it had.
   */
  fieldManager?: string;
}

/** Options of {@link FakeCluster.create}. */
export interface FakeCreateOptions extends FakeWriteOptions {
  /** Check and answer, but store nothing. */
  dryRun?: boolean;
}

/** Options of {@link FakeCluster.patch}. */
export interface FakePatchOptions extends FakeObjectOptions, FakeWriteOptions {
  /** The patch format; `merge` by default. */
  type?: "merge" | "json" | "strategic";
  /** Patch the `status` subresource instead of the object. */
  subresource?: "status";
}

/** Options of {@link FakeCluster.replace}. */
export interface FakeReplaceOptions extends FakeWriteOptions {
  /** Replace the `status` subresource instead of the object. */
  subresource?: "status";
}

/** Options of {@link FakeCluster.apply}. */
export interface FakeApplyOptions {
  /** The field manager that owns what it applies (required, as for the API). */
  fieldManager: string;
  /** Take the fields other managers own instead of failing with a 409 conflict. */
  force?: boolean;
  /** Apply to the `status` subresource (the object must exist). */
  subresource?: "status";
  /** Check and answer, but store nothing. */
  dryRun?: boolean;
}

/** Options of {@link FakeCluster.delete}. */
export interface FakeDeleteOptions extends FakeObjectOptions {
  /** How dependents are treated: `Background` (default), `Foreground` or `Orphan`. */
  propagationPolicy?: "Foreground" | "Background" | "Orphan";
}

/** Options of {@link FakeCluster.waitFor}. */
export interface FakeWaitOptions extends FakeObjectOptions {
  /** Give up after so many seconds (10 by default) with an error saying what was awaited. */
  timeout?: number;
}

/** A failed direct call: carries the Kubernetes `Status` code and reason. */
export class FakeApiError extends Error {
  /** The HTTP status code a client would have received, e.g. 404 or 409. */
  readonly code: number;
  /** The `Status` reason, e.g. `NotFound`, `AlreadyExists`, `Conflict`, `Invalid`. */
  readonly reason: string;

  /** Wrap a server-side error for callers of the direct API. */
  constructor(code: number, reason: string, message: string) {
    super(message);
    this.name = "FakeApiError";
    this.code = code;
    this.reason = reason;
  }
}

/** Run a call of the server's code; its `ApiError`s become {@link FakeApiError}s. */
function direct<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof ApiError) throw new FakeApiError(error.code, error.reason, error.message);
    throw error;
  }
}

function copy<T>(value: T): T {
  return structuredClone(value);
}

/** The `apiVersion` and `kind` of a manifest given to `method`; a 400 when either is missing. */
function manifestKind(body: RawBody, method: string): { apiVersion: string; kind: string } {
  const resource = { apiVersion: String(body.apiVersion ?? ""), kind: String(body.kind ?? "") };
  if (!resource.apiVersion || !resource.kind) {
    throw new FakeApiError(
      400,
      "BadRequest",
      `${method}() needs a manifest with apiVersion and kind`,
    );
  }
  return resource;
}

/** The resource of this `apiVersion` and `kind`. */
function byKind(objects: Objects, apiVersion: string, kind: string) {
  const type = objects.catalog.byKind(apiVersion, kind);
  const name = apiVersion.split("/").pop()!;
  const version = type?.versions.find((v) => v.name === name);
  if (!type || !version) {
    throw new FakeApiError(404, "NotFound", `the cluster does not serve ${kind} in ${apiVersion}`);
  }
  return { type, version };
}

/** The one resource a typed resource selects, by the rules the operator's watches follow. */
function byTypedResource(objects: Objects, resource: TypedResource<unknown>) {
  const types = objects.catalog.all();
  const { resources, warnings } = Selector.parse(resource.args).select(resourcesOf(types));
  const found = resources.length === 1 ? resources[0] : undefined;
  const type = found && types.find((t) => t.group === found.group && t.plural === found.plural);
  const version = type?.versions.find((v) => v.name === found!.version);
  if (!type || !version) {
    throw new FakeApiError(
      404,
      "NotFound",
      warnings[0] ?? `the cluster serves no resource that ${resource} selects`,
    );
  }
  return { type, version };
}

/** The resource of a name as kubectl takes it: plural, singular, kind or short name. */
function byName(objects: Objects, resource: string) {
  const [name, ...rest] = resource.split(".");
  const lower = name.toLowerCase();
  const candidates = objects.catalog.all().filter((t) =>
    t.plural === lower || t.singular === lower || t.kind.toLowerCase() === lower ||
    t.shortNames.includes(lower)
  );
  // `name.group` or `name.version.group`; the core group wins over the others.
  for (const take of [rest.length, rest.length - 1]) {
    if (take < 0) continue;
    const group = rest.slice(rest.length - take).join(".");
    const versionName = rest.length - take === 1 ? rest[0] : undefined;
    const found = candidates.filter((t) => (take === 0 ? true : t.group === group));
    const chosen = found.find((t) => t.group === "") ??
      (found.length === 1 ? found[0] : undefined);
    if (!chosen || (take === 0 && rest.length)) continue;
    const version = versionName
      ? chosen.versions.find((v) => v.name === versionName)
      : chosen.versions[0];
    if (version) return { type: chosen, version };
  }
  throw new FakeApiError(
    404,
    "NotFound",
    `the cluster serves no resource named "${resource}" (use e.g. "pods", "deployments.apps" or "kopfexamples.kopf.dev")`,
  );
}

/** The direct API over the cluster's objects. */
export class DirectApi {
  constructor(readonly objects: Objects, readonly lifecycle: Lifecycle) {}

  #resolve(resource: FakeResource): { type: ResourceType; version: ServedVersion } {
    if (typeof resource === "string") return byName(this.objects, resource);
    if (resource instanceof TypedResource) return byTypedResource(this.objects, resource);
    return byKind(this.objects, resource.apiVersion, resource.kind);
  }

  #target(resource: FakeResource, options: FakeObjectOptions, name?: string): Target {
    const { type, version } = this.#resolve(resource);
    const namespace = type.namespaced ? options.namespace ?? "default" : undefined;
    return { type, version, namespace, name };
  }

  /** A write, then the lifecycle controllers; returns a copy of what it returned. */
  #settled<T>(fn: () => T): T {
    const result = direct(fn);
    this.lifecycle.settle();
    return copy(result);
  }

  /** Create an object from a manifest; returns it as stored. */
  create(body: RawBody, options: FakeCreateOptions): RawBody {
    const target = this.#target(manifestKind(body, "create"), {
      namespace: body.metadata?.namespace,
    });
    return this.#settled(() => this.objects.create(target, body as JsonObject, options)) as RawBody;
  }

  /** The object, or `undefined` when it does not exist. */
  get(resource: FakeResource, name: string, options: FakeObjectOptions): RawBody | undefined {
    const target = this.#target(resource, options, name);
    try {
      return copy(this.objects.get(target)) as RawBody;
    } catch (error) {
      if (error instanceof ApiError && error.code === 404) return undefined;
      throw error;
    }
  }

  /** The objects of a resource (in a namespace, or all), filtered by selectors. */
  list(resource: FakeResource, options: FakeListOptions): RawBody[] {
    const target = this.#target(resource, options);
    if (options.allNamespaces || !target.type.namespaced) target.namespace = undefined;
    return direct(() => {
      const { type, version } = target;
      const result = this.objects.list(target, {
        labelSelector: parseLabelSelector(options.labelSelector),
        fieldSelector: parseFieldSelector(options.fieldSelector, version.selectableFields, type),
      });
      return copy(result.items) as RawBody[];
    });
  }

  /** Patch an object or its status; returns the result. */
  patch(
    resource: FakeResource,
    name: string,
    patch: JsonValue,
    options: FakePatchOptions,
  ): RawBody {
    const target = this.#target(resource, options, name);
    target.subresource = options.subresource;
    const type: PatchType = options.type ?? "merge";
    const write = { fieldManager: options.fieldManager };
    return this.#settled(() => this.objects.patch(target, type, patch, write)) as RawBody;
  }

  /** Server-side apply of a manifest; returns the object as stored. */
  apply(body: RawBody, options: FakeApplyOptions): RawBody {
    const resource = manifestKind(body, "apply");
    if (!options?.fieldManager) {
      throw new FakeApiError(
        422,
        "Invalid",
        'apply() needs a fieldManager: the manager that owns the applied fields, e.g. { fieldManager: "my-test" }',
      );
    }
    const name = String(body.metadata?.name ?? "");
    const target = this.#target(resource, { namespace: body.metadata?.namespace }, name);
    target.subresource = options.subresource;
    const request = { manager: options.fieldManager, force: options.force ?? false };
    const write = { dryRun: options.dryRun };
    return this.#settled(() =>
      this.objects.apply(target, body as JsonObject, request, write).object
    ) as RawBody;
  }

  /** Replace an object (or its status) with this body, as PUT does; returns the result. */
  replace(body: RawBody, options: FakeReplaceOptions): RawBody {
    const resource = { apiVersion: String(body.apiVersion ?? ""), kind: String(body.kind ?? "") };
    const target = this.#target(
      resource,
      { namespace: body.metadata?.namespace },
      String(body.metadata?.name ?? ""),
    );
    target.subresource = options.subresource;
    const write = { fieldManager: options.fieldManager };
    return this.#settled(() => this.objects.update(target, body as JsonObject, write)) as RawBody;
  }

  /** Delete an object: its state while finalizers hold it, or `undefined` once it is gone. */
  delete(resource: FakeResource, name: string, options: FakeDeleteOptions): RawBody | undefined {
    const target = this.#target(resource, options, name);
    const deleteOptions: DeletionOptions = { propagationPolicy: options.propagationPolicy };
    const { gone } = this.#settled(() => this.objects.delete(target, deleteOptions));
    return gone ? undefined : this.get(resource, name, options);
  }

  /**
   * Wait until the object satisfies the predicate; checked at once and on every change.
   * A timeout says what the object is like now, and then what `explain()` adds.
   */
  waitFor(
    resource: FakeResource,
    name: string,
    predicate: (object: RawBody | undefined) => boolean,
    options: FakeWaitOptions,
    explain: () => string = () => "",
  ): Promise<RawBody | undefined> {
    const target = this.#target(resource, options, name);
    const key = typeKey(target.type.group, target.type.plural);
    const namespace = target.namespace ?? "";
    const store = this.objects.store;
    const current = () => {
      const object = store.get(key, namespace, name);
      return object ? copy(object) as RawBody : undefined;
    };
    const first = current();
    if (predicate(first)) return Promise.resolve(first);
    const seconds = options.timeout ?? 10;
    // Made now, so that its stack points at the test's line rather than at a timer.
    const timedOut = new Error("Timed out");
    let changes = 0;
    return new Promise((resolve, reject) => {
      const unsubscribe = store.listen((change) => {
        if (change.typeKey !== key || change.namespace !== namespace) return;
        if ((change.object.metadata as JsonObject).name !== name) return;
        changes++;
        const now = current();
        try {
          if (!predicate(now)) return;
        } catch (error) {
          finish();
          reject(error);
          return;
        }
        finish();
        resolve(now);
      });
      const timer = setTimeout(() => {
        finish();
        const where = target.namespace ? ` in namespace ${target.namespace}` : "";
        const changed = changes === 0
          ? "it did not change during the wait"
          : `it changed ${changes} time(s) during the wait`;
        timedOut.message =
          `Timed out after ${seconds}s waiting for ${target.type.plural} "${name}"${where} ` +
          `to satisfy the condition; ${changed}, and now ${objectState(current())}.` + explain();
        reject(timedOut);
      }, seconds * 1000);
      const finish = () => {
        unsubscribe();
        clearTimeout(timer);
      };
    });
  }
}
