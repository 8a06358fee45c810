/**
 * Operations on objects: list (fully paginated), get, create, replace, patch (merge,
 * JSON, strategic merge, apply -- on the object or a subresource such as `status`),
 * server-side apply of a whole object, and delete.
 *
 * @module
 */
import { UsageError } from "../structs/errors.ts";
import type { JsonObject, RawBody } from "../structs/bodies.ts";
import type { Resource } from "../structs/resources.ts";
import type { JsonPatchOperation } from "../structs/patches.ts";
import { answerOf, type ApiClient, type QueryParams, type RequestOptions } from "./api.ts";
import type { ObjectAnswer } from "./object_answers.ts";
import { APIGoneError } from "./api_errors.ts";
import { createOnce } from "./creation.ts";
import { tellWrittenObject } from "./written_objects.ts";
import { Backoff, type BackoffOptions } from "../structs/backoffs.ts";
import { sleep } from "../structs/clock.ts";
import { METADATA_ACCEPT, METADATA_LIST_ACCEPT } from "./metadata_only.ts";

/** Which object: its name, and its namespace for namespaced resources. */
export interface ObjectRef {
  /** The namespace; omit for cluster-scoped resources (or for the default namespace). */
  namespace?: string;
  /** The object's name. */
  name: string;
}

/** Options of {@link listObjects}. */
export interface ListOptions {
  /** List in this namespace only; omit to list cluster-wide. */
  namespace?: string;
  /** A label selector, e.g. `app=web,tier!=db`. */
  labelSelector?: string;
  /** A field selector, e.g. `metadata.name=x`. */
  fieldSelector?: string;
  /** The page size; all pages are fetched. Default 500. */
  limit?: number;
  /**
   * Ask for the objects' metadata only (`PartialObjectMetadataList`): each item comes as
   * the server sends it, `kind: "PartialObjectMetadata"`, `apiVersion: "meta.k8s.io/v1"`,
   * with `metadata` and nothing else -- not rewritten into the resource's kind. A server
   * that ignores the request sends whole objects: they come as in a plain listing.
   */
  metadataOnly?: boolean;
  /** Cancels the listing. */
  signal?: AbortSignal;
}

/** A complete listing and the resourceVersion to watch from. */
export interface ObjectList {
  /**
   * All objects, each with `apiVersion` and `kind` filled in where the server left them
   * out (list items have none; metadata-only items have those of `PartialObjectMetadata`).
   */
  items: RawBody[];
  /** The collection's resourceVersion at the time of listing. */
  resourceVersion: string;
}

/** Options of calls that take only a cancellation signal. */
export interface CallOptions {
  /** Cancels the call. */
  signal?: AbortSignal;
}

/** Options of {@link getObject}. */
export interface GetOptions extends CallOptions {
  /**
   * Ask for the object's metadata only: it comes as the server sends it, `kind:
   * "PartialObjectMetadata"`, `apiVersion: "meta.k8s.io/v1"`, with `metadata` and nothing
   * else (a server that ignores the request sends the whole object).
   */
  metadataOnly?: boolean;
}

/** Options of {@link createObject} and {@link replaceObject}. */
export interface WriteOptions extends CallOptions {
  /** Validate and admit, but do not persist (`dryRun=All`). */
  dryRun?: boolean;
  /** The field manager recorded for the change. */
  fieldManager?: string;
}

/** The kinds of patches, named as in `kubectl patch --type`. */
export type PatchType = "merge" | "json" | "strategic" | "apply";

/** The content type of each patch type. */
export const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = Object.freeze({
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
});

/** Options of {@link patchObject}. */
export interface PatchOptions extends WriteOptions {
  /** The patch type; `merge` (JSON merge patch) by default. */
  type?: PatchType;
  /** A subresource to patch instead of the object, e.g. `status`. */
  subresource?: string;
  /** For `apply`: take over fields owned by other managers. */
  force?: boolean;
  /** Ask for the patched object's metadata only (`PartialObjectMetadata`) in the response. */
  metadataOnly?: boolean;
}

/** Options of {@link applyObject}. */
export interface ApplyObjectOptions extends CallOptions {
  /**
   * The field manager: who owns the fields of the configuration. Required: the server
   * keeps each manager's fields apart, and an apply removes those its manager applied
   * before and omits now.
   */
  fieldManager: string;
  /** Take over fields that other managers own, rather than fail with a 409 conflict. */
  force?: boolean;
  /** Validate and admit, but do not persist (`dryRun=All`). */
  dryRun?: boolean;
  /** A subresource to apply to instead of the object, e.g. `status`. */
  subresource?: string;
}

/** Options of {@link deleteObject}. */
export interface DeleteObjectOptions extends CallOptions {
  /** What happens to dependents: `Foreground`, `Background` or `Orphan`. */
  propagationPolicy?: "Foreground" | "Background" | "Orphan";
  /** Seconds before the object is deleted; 0 means at once. */
  gracePeriodSeconds?: number;
  /** Delete only if the object still has this uid and/or resourceVersion. */
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Validate, but do not delete (`dryRun=All`). */
  dryRun?: boolean;
}

const DEFAULT_PAGE_SIZE = 500;

function objectPath(
  resource: Resource,
  where: { namespace?: string; name?: string },
  subresource?: string,
): string {
  return resource.getUrl({ namespace: where.namespace, name: where.name, subresource });
}

/**
 * The object's location with its namespace settled: the given one, else the default
 * namespace of the credentials (the kubeconfig context's, the pod's); cluster-scoped
 * resources get none. Answered at once when nothing needs looking up (most calls).
 */
function locate(
  api: ApiClient,
  resource: Resource,
  ref: { namespace?: string; name?: string },
  what: string,
  signal?: AbortSignal,
): { namespace?: string; name?: string } | Promise<{ namespace?: string; name?: string }> {
  if (!resource.namespaced) return { name: ref.name };
  if (ref.namespace) return ref;
  return locateInDefault(api, resource, ref, what, signal);
}

async function locateInDefault(
  api: ApiClient,
  resource: Resource,
  ref: { name?: string },
  what: string,
  signal?: AbortSignal,
): Promise<{ namespace?: string; name?: string }> {
  const namespace = await api.defaultNamespace(signal);
  if (!namespace) {
    throw new UsageError(
      `${what} of ${resource.name} needs a namespace: it is a namespaced resource ` +
        `and the credentials have no default namespace.`,
    );
  }
  return { namespace, name: ref.name };
}

function writeQuery(options: WriteOptions & { force?: boolean }): QueryParams | undefined {
  // Most writes have none: no query object to make and look through.
  if (!options.dryRun && options.fieldManager === undefined && options.force === undefined) {
    return undefined;
  }
  return {
    dryRun: options.dryRun ? "All" : undefined,
    fieldManager: options.fieldManager,
    force: options.force,
  };
}

/** One page of a listing, as {@link listPages} yields it. */
export interface ObjectPage {
  /** The page's objects, each with `apiVersion` and `kind` filled in where missing. */
  items: RawBody[];
  /** The listing's resourceVersion (the same on every page of one listing). */
  resourceVersion: string;
  /** False on the first page of a listing: one begun anew drops the pages before it. */
  continued: boolean;
  /** Whether this is the listing's last page. */
  last: boolean;
}

/** Options of {@link listPages}. */
export interface ListPagesOptions extends ListOptions {
  /** The pauses before a listing begins anew after its continuation expired. */
  backoff?: BackoffOptions;
}

/**
 * How many times a paginated listing whose continuation expired (410) begins anew, page by
 * page, before the last attempt lists everything in one response, as client-go does then.
 */
const EXPIRED_LISTING_RETRIES = 3;

/**
 * List all objects of a resource, following `continue` tokens through every page. If the
 * continuation expires mid-way (410), the listing starts over (see {@link listPages}).
 */
export async function listObjects(
  api: ApiClient,
  resource: Resource,
  options: ListPagesOptions = {},
): Promise<ObjectList> {
  let items: RawBody[] = [];
  for await (const page of listPages(api, resource, options)) {
    if (!page.continued) items = [];
    for (const item of page.items) items.push(item);
    if (page.last) return { items, resourceVersion: page.resourceVersion };
  }
  // Only an abort ends the pages without the last one.
  options.signal?.throwIfAborted();
  throw new Error("The listing ended without its last page.");
}

/**
 * List all objects of a resource page by page (`limit`, 500 by default, and `continue`),
 * yielding each page as it arrives, so that a big collection is never in one response.
 * All pages of one listing are one snapshot, at the first page's resourceVersion, which
 * is where a watch continues from.
 *
 * A continuation can expire (410 Gone: etcd compacted the snapshot's revision, after about
 * five minutes on a real cluster): the listing then begins anew after a pause, and the
 * next page says so (`continued: false`). After {@link EXPIRED_LISTING_RETRIES} expiries
 * in a row, the last attempt asks for everything at once, as client-go's pager does, so
 * that a listing slower than the compaction still completes.
 */
export async function* listPages(
  api: ApiClient,
  resource: Resource,
  options: ListPagesOptions = {},
): AsyncGenerator<ObjectPage, void, undefined> {
  const path = resource.getUrl({ namespace: resource.namespaced ? options.namespace : undefined });
  const backoff = new Backoff(options.backoff);
  const limit = options.limit ?? DEFAULT_PAGE_SIZE;
  const accept = options.metadataOnly ? METADATA_LIST_ACCEPT : undefined;
  for (let attempt = 0;; attempt++) {
    let token: string | undefined;
    let continued = false;
    try {
      // Whole after expired pages; a page of many objects is worth compressing, the one of a
      // version's lookup is not.
      const pageLimit = attempt < EXPIRED_LISTING_RETRIES ? limit : undefined;
      const compressed = pageLimit === undefined || pageLimit > 1;
      do {
        const page = await api.request<{ metadata?: JsonObject; items?: RawBody[] | null }>(
          "GET",
          path,
          {
            query: {
              labelSelector: options.labelSelector || undefined,
              fieldSelector: options.fieldSelector || undefined,
              limit: pageLimit,
              continue: token,
            },
            accept,
            signal: options.signal,
            compressed,
          },
        );
        const raw = page.items ?? [];
        const items: RawBody[] = new Array(raw.length);
        for (let i = 0; i < raw.length; i++) {
          // List items come without apiVersion and kind; consumers expect full objects.
          // Items that have both (metadata-only ones) are passed on as they come.
          const item = raw[i];
          items[i] = item.kind && item.apiVersion ? item : {
            apiVersion: resource.apiVersion,
            kind: resource.kind || undefined,
            ...item,
          };
        }
        const meta = page.metadata ?? {};
        const resourceVersion = typeof meta.resourceVersion === "string"
          ? meta.resourceVersion
          : "";
        token = typeof meta.continue === "string" && meta.continue ? meta.continue : undefined;
        yield { items, resourceVersion, continued, last: token === undefined };
        continued = true;
      } while (token);
      return;
    } catch (e) {
      // Only an expired continuation is retried here; a first page's 410 is the caller's.
      if (!(e instanceof APIGoneError) || token === undefined) throw e;
      if (!(await sleep(backoff.next(), options.signal))) return;
    }
  }
}

/**
 * Get one object (or, with `metadataOnly`, its metadata as `PartialObjectMetadata`);
 * raises `APINotFoundError` when it does not exist.
 */
export async function getObject(
  api: ApiClient,
  resource: Resource,
  ref: ObjectRef,
  options: GetOptions = {},
): Promise<RawBody> {
  const where = await locate(api, resource, ref, "Getting an object", options.signal);
  return await api.request<RawBody>("GET", objectPath(resource, where), {
    accept: options.metadataOnly ? METADATA_ACCEPT : undefined,
    signal: options.signal,
  });
}

/**
 * Create an object; the namespace comes from `namespace` or the body's metadata. Made once
 * even if a reply is lost and the request goes again: every created object carries the
 * annotation `kopf.zalando.org/request-id`, and with `generateName` the client picks the
 * name (as the server would); see docs/errors-and-retries.md. A name taken by another
 * object is an `APIConflictError` (409 AlreadyExists).
 */
export async function createObject(
  api: ApiClient,
  resource: Resource,
  body: RawBody,
  options: WriteOptions & { namespace?: string } = {},
): Promise<RawBody> {
  const { namespace } = await locate(
    api,
    resource,
    { namespace: options.namespace ?? body.metadata?.namespace },
    "Creating an object",
    options.signal,
  );
  const path = resource.getUrl({ namespace });
  const made = await createOnce(
    api,
    resource,
    { apiVersion: resource.apiVersion, kind: resource.kind || undefined, ...body },
    { path, namespace, query: writeQuery(options), signal: options.signal },
  );
  tellWrittenObject(resource, made, options);
  return made;
}

/** Replace an object as a whole (PUT); raises `APIConflictError` if it changed meanwhile. */
export async function replaceObject(
  api: ApiClient,
  resource: Resource,
  ref: ObjectRef,
  body: RawBody,
  options: WriteOptions & { subresource?: string } = {},
): Promise<RawBody> {
  const where = await locate(api, resource, ref, "Replacing an object", options.signal);
  const path = objectPath(resource, where, options.subresource);
  const replaced = await api.request<RawBody>("PUT", path, {
    body,
    query: writeQuery(options),
    signal: options.signal,
  });
  tellWrittenObject(resource, replaced, options);
  return replaced;
}

/**
 * Patch an object, or its subresource (`{ subresource: "status" }`). The patch is a
 * JSON merge patch by default; `type: "json"` takes a list of JSON Patch operations;
 * `strategic` works for built-in kinds only; `apply` is server-side apply (give a
 * `fieldManager`). Returns the object as patched.
 */
export async function patchObject(
  api: ApiClient,
  resource: Resource,
  ref: ObjectRef,
  patch: JsonObject | RawBody | readonly JsonPatchOperation[],
  options: PatchOptions = {},
): Promise<RawBody> {
  const patched = (await patchForAnswer(api, resource, ref, patch, options)).body as RawBody;
  tellWrittenObject(resource, patched, options);
  return patched;
}

/**
 * {@link patchObject}, its answer kept as text: the version it produced read at once, the
 * object parsed only if asked for (see `object_answers.ts`). For the framework's own writes.
 */
export async function patchForAnswer(
  api: ApiClient,
  resource: Resource,
  ref: ObjectRef,
  patch: JsonObject | RawBody | readonly JsonPatchOperation[],
  options: PatchOptions = {},
): Promise<ObjectAnswer> {
  checkPatch(patch, options);
  const where = await locate(api, resource, ref, "Patching an object", options.signal);
  const path = objectPath(resource, where, options.subresource);
  return await answerOf(api, "PATCH", path, patchRequest(patch, options));
}

/** Refuse a patch whose form does not fit its type. */
function checkPatch(
  patch: JsonObject | RawBody | readonly JsonPatchOperation[],
  options: PatchOptions,
): void {
  const type = options.type ?? "merge";
  if (type === "json" && !Array.isArray(patch)) {
    throw new UsageError("A JSON Patch must be a list of operations like { op, path, value }.");
  }
  if (type !== "json" && Array.isArray(patch)) {
    throw new UsageError(
      `A ${type} patch must be an object; for a list of operations use type "json".`,
    );
  }
  if (type === "apply" && !options.fieldManager) {
    throw new UsageError("Server-side apply needs a fieldManager.");
  }
}

/** The request options of a patch. */
function patchRequest(
  patch: JsonObject | RawBody | readonly JsonPatchOperation[],
  options: PatchOptions,
): RequestOptions {
  return {
    body: patch,
    accept: options.metadataOnly ? METADATA_ACCEPT : undefined,
    contentType: PATCH_CONTENT_TYPES[options.type ?? "merge"],
    query: writeQuery(options),
    signal: options.signal,
  };
}

/**
 * Server-side apply of a whole object: created if missing, else the fields of `body` (the
 * manager's whole intent) are merged into it, and those the manager applied before and
 * omits now are removed. The name comes from the body, and so does the namespace (else the
 * credentials' default namespace); `apiVersion` and `kind` from the body, else from the
 * resource. A field that another manager owns with another value is an `APIConflictError`
 * (409) unless `force`. An apply that changes nothing is not stored (the resourceVersion
 * stays). Returns the object as applied.
 */
export async function applyObject(
  api: ApiClient,
  resource: Resource,
  body: RawBody,
  options: ApplyObjectOptions,
): Promise<RawBody> {
  if (!options?.fieldManager) throw new UsageError("Server-side apply needs a fieldManager.");
  const name = body.metadata?.name;
  if (typeof name !== "string" || name === "") {
    throw new UsageError(
      `Applying an object of ${resource.name} needs metadata.name in the body: ` +
        `server-side apply cannot generate names.`,
    );
  }
  const ref = { namespace: body.metadata?.namespace, name };
  const where = await locate(api, resource, ref, "Applying an object", options.signal);
  const full = { apiVersion: resource.apiVersion, kind: resource.kind || undefined, ...body };
  const path = objectPath(resource, where, options.subresource);
  const applied = await api.request<RawBody>("PATCH", path, {
    body: full,
    contentType: PATCH_CONTENT_TYPES.apply,
    query: writeQuery(options),
    signal: options.signal,
  });
  tellWrittenObject(resource, applied, options);
  return applied;
}

/**
 * Delete an object. Returns what the server answered: the object (still present while
 * finalizers or foreground deletion hold it) or a `Status`. A missing object is an
 * `APINotFoundError` -- also when this very call's first attempt deleted it and lost its
 * reply (a delete goes again after a failure): read 404 as "gone". Give `preconditions`
 * (its `uid`) to be sure that a replay never deletes an object made anew under the name.
 */
export async function deleteObject(
  api: ApiClient,
  resource: Resource,
  ref: ObjectRef,
  options: DeleteObjectOptions = {},
): Promise<RawBody> {
  const where = await locate(api, resource, ref, "Deleting an object", options.signal);
  const body: JsonObject = { apiVersion: "v1", kind: "DeleteOptions" };
  if (options.propagationPolicy) body.propagationPolicy = options.propagationPolicy;
  if (options.gracePeriodSeconds !== undefined) {
    body.gracePeriodSeconds = options.gracePeriodSeconds;
  }
  if (options.preconditions) body.preconditions = { ...options.preconditions };
  if (options.dryRun) body.dryRun = ["All"];
  return await api.request<RawBody>("DELETE", objectPath(resource, where), {
    body,
    signal: options.signal,
  });
}
