/**
 * The reading verbs over HTTP: get, list (paged, in the rendering asked for) and watch
 * (with the list options kube-apiserver allows a watch).
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { apiVersionOf } from "../../catalog/resource_types.ts";
import { ApiError, badRequest } from "./errors.ts";
import type { ResourceCall } from "./http_context.ts";
import { JSON_TYPE, LISTED_ITEMS, measuredJson } from "./http_responses.ts";
import { listOptionsOf, queryFlag } from "./requests.ts";
import { withName } from "./selectors.ts";
import { columnDefinitions, rowOf, tableOf } from "./tables.ts";
import { partialMetadata } from "./renderings.ts";

/** A 422 for a list option that cannot be combined with the others. */
function invalidListOptions(field: string, why: string): ApiError {
  return new ApiError(422, `ListOptions.meta.k8s.io "" is invalid: ${field}: Forbidden: ${why}`, {
    reason: "Invalid",
    details: {
      group: "meta.k8s.io",
      kind: "ListOptions",
      causes: [{ reason: "FieldValueForbidden", message: `Forbidden: ${why}`, field }],
    },
  });
}

/** GET of one object. */
export function getObject(call: ResourceCall): Response {
  const { response, bytes } = measuredJson(call.render(call.ctx.objects.get(call.target)));
  const traffic = call.ctx.traffic.of(call.target.type.group, call.target.type.plural);
  traffic.getResponses++;
  traffic.getBytes += bytes;
  return response;
}

/** GET of a collection: one page of it, as a list, a Table or metadata only. */
export function listObjects(call: ResourceCall): Response {
  const { target, params, rendering, include, metaApiVersion } = call;
  const { type, version } = target;
  const page = call.ctx.objects.list(
    target,
    listOptionsOf(params, type, version.selectableFields),
  );
  const listMeta: JsonObject = { resourceVersion: page.resourceVersion };
  if (page.continue) listMeta.continue = page.continue;
  if (page.remainingItemCount !== undefined) {
    listMeta.remainingItemCount = page.remainingItemCount;
  }
  const items = page.items;
  let body: JsonObject;
  if (rendering === "Table") body = tableOf(version, items, include, listMeta);
  else if (rendering === "PartialObjectMetadataList") {
    body = {
      kind: "PartialObjectMetadataList",
      apiVersion: metaApiVersion,
      metadata: listMeta,
      items: items.map((item) => partialMetadata(item, metaApiVersion)),
    };
  } else {
    body = {
      kind: type.listKind,
      apiVersion: apiVersionOf(type.group, version.name),
      metadata: listMeta,
      items,
    };
  }
  const { response, bytes } = measuredJson(body);
  const traffic = call.ctx.traffic.of(type.group, type.plural);
  traffic.listResponses++;
  traffic.listItems += items.length;
  traffic.listBytes += bytes;
  LISTED_ITEMS.set(response, items.length);
  return response;
}

/**
 * The `sendInitialEvents` of a watch, validated as kube-apiserver validates a watch's list
 * options (validation.go, `validateWatchOptions`: bookmarks are not required; without them
 * the initial events come with no bookmark to end them, as cacher.go's `isListWatchRequest`
 * asks for both); a server without streaming lists (before 1.27, or with the WatchList
 * feature off) drops `sendInitialEvents` first.
 */
function initialEventsOf(params: URLSearchParams, streaming: boolean): string | null {
  const sendInitialEvents = streaming ? params.get("sendInitialEvents") : null;
  const match = params.get("resourceVersionMatch");
  if (sendInitialEvents !== null) {
    if (match !== "NotOlderThan") {
      throw invalidListOptions(
        "resourceVersionMatch",
        "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
      );
    }
  } else if (match) {
    throw invalidListOptions(
      "resourceVersionMatch",
      streaming
        ? "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"
        : "resourceVersionMatch is forbidden for watch",
    );
  }
  return sendInitialEvents;
}

/** How watch events carry their objects as Tables, if asked for. */
function watchFormat(
  call: ResourceCall,
): ((object: JsonObject, first: boolean) => JsonObject) | undefined {
  const { rendering, include } = call;
  const version = call.target.version;
  if (rendering === "Table") {
    return (object, first) => ({
      kind: "Table",
      apiVersion: "meta.k8s.io/v1",
      metadata: {
        resourceVersion: String((object.metadata as JsonObject).resourceVersion ?? ""),
      },
      columnDefinitions: first ? columnDefinitions(version) : [],
      rows: [rowOf(version, object, include)],
    });
  }
  return undefined;
}

/** A watch: a stream of events, from a resourceVersion or with the current objects first. */
export function watchObjects(call: ResourceCall): Response {
  const { ctx, target, params } = call;
  const { type, version } = target;
  const selectors = listOptionsOf(params, type, version.selectableFields);
  const timeout = params.get("timeoutSeconds");
  if (timeout !== null && !/^\d+$/.test(timeout)) {
    throw badRequest(`timeoutSeconds must be a non-negative integer, not "${timeout}"`);
  }
  const sendInitialEvents = initialEventsOf(params, ctx.watches.streamingLists);
  const nameFilter = target.name;
  const fieldSelector = nameFilter === undefined
    ? selectors.fieldSelector!
    : withName(selectors.fieldSelector!, nameFilter);
  const stream = ctx.watches.open(
    {
      type,
      version,
      namespace: target.namespace,
      labelSelector: selectors.labelSelector!,
      fieldSelector,
      resourceVersion: params.get("resourceVersion") ?? undefined,
      sendInitialEvents: sendInitialEvents === null
        ? undefined
        : queryFlag(params, "sendInitialEvents"),
      allowBookmarks: queryFlag(params, "allowWatchBookmarks"),
      timeoutSeconds: timeout === null ? undefined : Number(timeout),
      format: watchFormat(call),
      metadataOnly: call.rendering === "PartialObjectMetadata" ? call.metaApiVersion : undefined,
    },
    () =>
      ctx.objects.list({ ...target, name: undefined }, {
        ...selectors,
        fieldSelector,
        limit: undefined,
      }).items,
  );
  return new Response(stream, {
    status: 200,
    headers: { "content-type": JSON_TYPE, "cache-control": "no-cache, private" },
  });
}
