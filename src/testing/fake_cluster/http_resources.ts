/**
 * Requests to resources (`/api/v1/...`, `/apis/<group>/<version>/...`): what they address, the
 * verb, injected failures, and the handler of each verb; the resources that store nothing
 * (reviews, component statuses, bindings) and the subresources with handlers of their own
 * (`token`, `log`, `exec`, `eviction`, ...) are answered on their own.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import type { ResourceType, ServedVersion } from "../../catalog/resource_types.ts";
import { answerReview } from "./access_reviews.ts";
import { ApiError, badRequest } from "./errors.ts";
import type { RequestResource } from "./faults.ts";
import type { Call, ResourceCall } from "./http_context.ts";
import { deleteCollection, deleteObject } from "./http_deletions.ts";
import { getObject, listObjects, watchObjects } from "./http_reads.ts";
import { json, methodNotAllowed, notServed } from "./http_responses.ts";
import { createObject, patchObject, updateObject } from "./http_writes.ts";
import { bodyOf, parseResourcePath, queryFlag, type Route } from "./requests.ts";
import { checkRendering, negotiateRendering, partialMetadata } from "./renderings.ts";
import { requestToken, TOKEN_SUBRESOURCE } from "./service_accounts.ts";
import { answerComponentStatus } from "./component_statuses.ts";
import { answerBinding, answerExtraSubresource } from "./extra_subresources.ts";
import { type IncludeObject, tableOf } from "./tables.ts";

/** The handler of each verb. */
const VERBS: Readonly<Record<string, (call: ResourceCall) => Response | Promise<Response>>> = {
  get: getObject,
  list: listObjects,
  watch: watchObjects,
  create: createObject,
  update: updateObject,
  patch: patchObject,
  delete: deleteObject,
  deletecollection: deleteCollection,
};

const INCLUDES: readonly string[] = ["None", "Metadata", "Object"];

/** The Kubernetes verb of a request to a resource. */
function verbOf(method: string, route: Route, watch: boolean): string {
  const named = route.name !== undefined;
  switch (method) {
    case "GET":
      if (watch) return "watch";
      return named ? "get" : "list";
    case "POST":
      if (named) {
        throw new ApiError(405, "POST is for collections; to change an object use PUT or PATCH");
      }
      return "create";
    case "PUT":
      if (!named) throw new ApiError(405, "PUT needs an object name in the URL");
      return "update";
    case "PATCH":
      if (!named) throw new ApiError(405, "PATCH needs an object name in the URL");
      return "patch";
    case "DELETE":
      return named ? "delete" : "deletecollection";
  }
  throw new ApiError(405, `the method ${method} is not supported`);
}

/** A failure injected by the faults for this request, if any. */
function injectedFailure(
  call: Call,
  verb: string,
  resource: RequestResource,
): ApiError | undefined {
  const failure = call.ctx.faults.failureFor(verb, resource);
  if (!failure) return undefined;
  const retryAfter = failure.retryAfter ?? (failure.status === 429 ? 1 : undefined);
  return new ApiError(
    failure.status,
    `injected failure: ${failure.status} for ${verb} ${resource.plural}`,
    {
      details: retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : undefined,
      headers: retryAfter !== undefined ? { "retry-after": String(retryAfter) } : {},
    },
  );
}

/** A review (create-only, stored nowhere). */
async function answerVirtual(call: Call, route: Route, type: ResourceType): Promise<Response> {
  if (type.namespaced && route.namespace === undefined) throw notServed(call.path.path);
  if (call.request.method !== "POST" || route.name !== undefined) throw methodNotAllowed();
  call.setVerb("create", { plural: type.plural, group: type.group, kind: type.kind });
  const { authorizer, authenticator } = call.ctx;
  const body = await bodyOf(call.request);
  const reviews = { authorizer: authorizer!, authenticator };
  return json(answerReview(type, route.namespace, body, call.user, reviews), 201);
}

/** A resource that stores nothing: the reviews, `componentstatuses`, `bindings`. */
function answerVirtualType(
  call: Call,
  route: Route,
  type: ResourceType,
  version: ServedVersion,
): Promise<Response> | Response {
  if (type.group === "" && type.plural === "componentstatuses") {
    return answerComponentStatus(call, route, type, version);
  }
  if (type.group === "" && type.plural === "bindings") return answerBinding(call, route, type);
  return answerVirtual(call, route, type);
}

/** A `TokenRequest` of a service account. */
async function answerTokenRequest(
  call: Call,
  route: Route,
  type: ResourceType,
  version: ServedVersion,
): Promise<Response> {
  if (call.request.method !== "POST") throw methodNotAllowed();
  call.setVerb("create", { plural: type.plural, group: type.group, kind: type.kind });
  const { objects, authenticator } = call.ctx;
  const target = { type, version, namespace: route.namespace, name: route.name };
  const account = objects.get(target);
  return json(requestToken(account, await bodyOf(call.request), authenticator), 201);
}

/** The request with its target and rendering, once it is known to address something served. */
function resourceCall(
  call: Call,
  route: Route,
  type: ResourceType,
  version: ServedVersion,
  verb: string,
): ResourceCall {
  const params = call.url.searchParams;
  const { rendering, metaApiVersion } = negotiateRendering(
    call.request.headers.get("accept"),
    type.builtin,
  );
  checkRendering(rendering, type.kind, verb === "list" || verb === "deletecollection");
  const include = (params.get("includeObject") ?? "Metadata") as IncludeObject;
  if (!INCLUDES.includes(include)) {
    throw badRequest(`includeObject must be None, Metadata or Object, not "${include}"`);
  }
  const render = (object: JsonObject): JsonObject => {
    if (rendering === "Table") {
      return tableOf(version, [object], include, {
        resourceVersion: String((object.metadata as JsonObject).resourceVersion ?? ""),
      });
    }
    return rendering === "PartialObjectMetadata" ? partialMetadata(object, metaApiVersion) : object;
  };
  const target = {
    type,
    version,
    namespace: route.namespace,
    name: route.name,
    subresource: route.subresource,
  };
  return { ...call, target, params, rendering, metaApiVersion, include, render };
}

/** Answer a request to a resource, or a `Status` for one the server does not serve. */
export function answerResource(call: Call): Promise<Response> | Response {
  const path = call.path.path;
  const route = parseResourcePath(call.path.segments);
  if (!route) throw notServed(path);
  const found = call.ctx.catalog.lookup(route.group, route.version, route.plural);
  if (!found) throw notServed(path);
  const { type, version } = found;
  if (route.namespace !== undefined && !type.namespaced) throw notServed(path);
  if (type.virtual) return answerVirtualType(call, route, type, version);
  const sub = route.subresource;
  if (
    sub !== undefined && route.name !== undefined &&
    type.extraSubresources?.some((s) => s.name === sub)
  ) {
    if (sub === TOKEN_SUBRESOURCE.name) return answerTokenRequest(call, route, type, version);
    return answerExtraSubresource(call, route, type, version);
  }
  const params = call.url.searchParams;
  const watch = route.watchPath || queryFlag(params, "watch");
  const verb = verbOf(call.request.method, route, watch);
  const resource: RequestResource = { plural: type.plural, group: type.group, kind: type.kind };
  call.setVerb(verb, resource);
  // Verbs the resource does not have are not routed (a 405, as go-restful answers).
  if (sub === undefined && !type.verbs.includes(verb)) throw methodNotAllowed();
  const failure = injectedFailure(call, verb, resource);
  if (failure) throw failure;
  if (type.namespaced && route.namespace === undefined && verb !== "list" && verb !== "watch") {
    throw notServed(path);
  }
  if (
    sub !== undefined && !(sub === "status" && version.status) &&
    !(sub === "scale" && version.scale)
  ) {
    throw notServed(path);
  }
  return VERBS[verb](resourceCall(call, route, type, version, verb));
}
