/**
 * The HTTP face of the fake API server: routing to discovery and the verbs, responses
 * in the rendering asked for, authentication, admission, fault injection and the
 * request log. Reading the requests themselves is in `requests.ts`.
 *
 * @module
 */
import type { HttpRequestInfo } from "../../platform/http_server.ts";
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import {
  apiVersionOf,
  type ResourceType,
  type ServedVersion,
} from "../../catalog/resource_types.ts";
import type { Catalog } from "./catalog.ts";
import * as discovery from "./discovery.ts";
import { ApiError, badRequest, statusOf } from "./errors.ts";
import type { FakeClusterFaults, RequestResource } from "./faults.ts";
import type { Lifecycle } from "./lifecycle.ts";
import type { DeleteOptions, Objects, Target, WriteOptions } from "./objects.ts";
import { openApiDocument, openApiRoot, openApiV2Document } from "./openapi.ts";
import { encodeOpenApiV2, OPENAPI_V2_PROTOBUF } from "./openapi_v2_protobuf.ts";
import type { Admission, AdmissionAttributes } from "./admission.ts";
import {
  bodyOf,
  deleteOptionsOf,
  listOptionsOf,
  parseResourcePath,
  patchTypeOf,
  renderingOf,
  type Route,
  writeOptionsOf,
} from "./requests.ts";
import {
  columnDefinitions,
  type IncludeObject,
  partialMetadata,
  rowOf,
  tableOf,
} from "./tables.ts";
import { withName } from "./selectors.ts";
import type { WatchHub } from "./watch.ts";
import { GENERATE_NAME_ATTEMPTS } from "./metadata.ts";
import { answerReview } from "./access_reviews.ts";
import { type Authenticator, impersonate } from "./authentication.ts";
import {
  forbidden,
  PRIVILEGED_GROUP,
  RBAC_GROUP,
  type RbacAuthorizer,
  type UserInfo,
} from "./rbac.ts";
import { checkEscalation } from "./rbac_escalation.ts";
import { requestAttributes } from "./request_info.ts";
import { requestToken } from "./service_accounts.ts";

/** Whether a create's body asks the server for a generated name. */
function isGenerating(body: JsonValue): boolean {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return false;
  const meta = body.metadata;
  if (meta === null || typeof meta !== "object" || Array.isArray(meta)) return false;
  return !meta.name && typeof meta.generateName === "string" && meta.generateName !== "";
}

/** One request the fake API server answered. */
export interface ServedRequest {
  /** The HTTP method. */
  readonly method: string;
  /** The URL path, e.g. `/api/v1/namespaces/default/pods`. */
  readonly path: string;
  /** The query string without `?`, possibly empty. */
  readonly query: string;
  /** The Kubernetes verb (`get`, `list`, `watch`, `create`, …), or `""` for discovery and such. */
  readonly verb: string;
  /** The HTTP status answered. */
  readonly status: number;
  /** When the request arrived. */
  readonly time: Date;
  /** How many objects a list answered (one page of them, with `limit`). */
  readonly items?: number;
}

/** The request log keeps this many entries, the newest. */
export const REQUEST_LOG_LIMIT = 10_000;

/** Everything the router needs from the cluster. */
export interface RouterContext {
  catalog: Catalog;
  objects: Objects;
  lifecycle: Lifecycle;
  watches: WatchHub;
  faults: FakeClusterFaults;
  /** Who sends each request. */
  authenticator: Authenticator;
  /** The RBAC authorizer, when RBAC is on; without it, every request is allowed. */
  authorizer?: RbacAuthorizer;
  /** The admission webhooks. */
  admission: Admission;
  /** The `host:port` clients reach the server at. */
  serverAddress(): string;
  /** Record a served request. */
  log(entry: ServedRequest): void;
}

const JSON_TYPE = "application/json";

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

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": JSON_TYPE, ...headers },
  });
}

function errorResponse(error: ApiError): Response {
  return json(error.toStatus(), error.code, error.headers);
}

function methodNotAllowed(): ApiError {
  return new ApiError(405, "the server does not allow this method on the requested resource");
}

function notServed(path: string): ApiError {
  return new ApiError(404, `the server could not find the requested resource (${path})`, {
    details: { causes: [{ reason: "UnexpectedServerResponse", message: "404 page not found" }] },
  });
}

/** The options of a dry run of a write with these options. */
function dryRun(options: WriteOptions): WriteOptions {
  return { ...options, dryRun: true, warnings: [] };
}

/** The object as JSON, with the write's warnings as `Warning` headers. */
function written(body: JsonObject, status: number, options: WriteOptions): Response {
  const response = json(body, status);
  for (const warning of options.warnings ?? []) {
    response.headers.append("warning", `299 - ${JSON.stringify(warning)}`);
  }
  return response;
}

/** Turns HTTP requests into API calls. */
export class Router {
  constructor(readonly ctx: RouterContext) {}

  /** How many objects each list response holds, for the request log. */
  readonly #listed = new WeakMap<Response, number>();

  /** Answer one request. Never throws: every failure is a `Status`. */
  async handle(request: Request, info?: HttpRequestInfo): Promise<Response> {
    const time = new Date();
    const url = new URL(request.url);
    let verb = "";
    let resource: RequestResource | undefined;
    let response: Response;
    try {
      let user = this.ctx.authenticator.authenticate(request, info);
      const latency = this.ctx.faults.currentLatency;
      if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
      const authorizer = this.ctx.authorizer;
      if (authorizer) {
        user = impersonate(user, request.headers, (a) => authorizer.authorize(a));
        const attributes = requestAttributes(request.method, url, user);
        const decision = authorizer.authorize(attributes);
        if (!decision.allowed) {
          if (attributes.resourceRequest) verb = attributes.verb;
          throw forbidden(attributes, decision.reason);
        }
      }
      const result = await this.#route(request, url, user, (v, r) => {
        verb = v;
        resource = r;
      });
      response = result;
      if (result.ok && this.ctx.faults.losesReply(verb, resource)) {
        // The write is done; its reply breaks before a byte of the body, like a cut line.
        await result.body?.cancel();
        response = new Response(
          new ReadableStream({ start: (controller) => controller.error(new Error("reply lost")) }),
          { status: result.status, headers: result.headers },
        );
      }
    } catch (error) {
      response = error instanceof ApiError ? errorResponse(error) : errorResponse(
        new ApiError(
          500,
          `internal error: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    }
    this.ctx.log({
      method: request.method,
      path: url.pathname,
      query: url.search.replace(/^\?/, ""),
      verb,
      status: response.status,
      time,
      items: this.#listed.get(response),
    });
    return response;
  }

  async #route(
    request: Request,
    url: URL,
    user: UserInfo,
    setVerb: (verb: string, resource?: RequestResource) => void,
  ): Promise<Response> {
    const path = url.pathname.replace(/\/+$/, "") || "/";
    let segments: string[];
    try {
      segments = path.split("/").filter(Boolean).map(decodeURIComponent);
    } catch {
      throw badRequest(`the path ${path} is not properly percent-encoded`);
    }
    const method = request.method;
    const { catalog } = this.ctx;
    if (method === "GET") {
      switch (path) {
        case "/version":
          return json(discovery.versionInfo());
        case "/api":
          return json(discovery.coreVersions(this.ctx.serverAddress()));
        case "/apis":
          return json(discovery.groupList(catalog));
        case "/healthz":
        case "/livez":
        case "/readyz":
          return new Response("ok", { headers: { "content-type": "text/plain" } });
      }
      if (path === "/openapi/v3") return json(openApiRoot(catalog));
      if (path === "/openapi/v2") {
        const doc = openApiV2Document(catalog);
        // kubectl (through client-go) asks for gnostic's protobuf form only.
        const accept = request.headers.get("accept") ?? "";
        if (!accept.includes("com.github.proto-openapi.spec.v2")) return json(doc);
        return new Response(encodeOpenApiV2(doc), {
          headers: { "content-type": OPENAPI_V2_PROTOBUF },
        });
      }
      if (segments[0] === "openapi" && segments[1] === "v3" && segments.length >= 4) {
        const group = segments[2] === "api" ? "" : segments[3];
        const doc = openApiDocument(catalog, group, segments[segments.length - 1]);
        if (!doc) throw notServed(path);
        return json(doc);
      }
      if (segments[0] === "apis" && segments.length === 2) {
        const doc = discovery.group(catalog, segments[1]);
        if (!doc) throw notServed(path);
        return json(doc);
      }
      if (
        (segments[0] === "api" && segments.length === 2) ||
        (segments[0] === "apis" && segments.length === 3)
      ) {
        const group = segments[0] === "api" ? "" : segments[1];
        const doc = discovery.resourceList(catalog, group, segments[segments.length - 1]);
        if (!doc) throw notServed(path);
        return json(doc);
      }
    }
    if (segments[0] !== "api" && segments[0] !== "apis") throw notServed(path);
    const route = parseResourcePath(segments);
    if (!route) throw notServed(path);
    const found = catalog.lookup(route.group, route.version, route.plural);
    if (!found) throw notServed(path);
    const { type, version } = found;
    if (route.namespace !== undefined && !type.namespaced) throw notServed(path);
    const resource: RequestResource = { plural: type.plural, group: type.group, kind: type.kind };
    if (type.virtual) {
      if (type.namespaced && route.namespace === undefined) throw notServed(path);
      if (method !== "POST" || route.name !== undefined) throw methodNotAllowed();
      setVerb("create", resource);
      const reviews = { authorizer: this.ctx.authorizer!, authenticator: this.ctx.authenticator };
      const body = await bodyOf(request);
      return json(answerReview(type, route.namespace, body, user, reviews), 201);
    }
    if (
      route.subresource !== undefined && route.name !== undefined &&
      type.extraSubresources?.some((s) => s.name === route.subresource)
    ) {
      // The only such subresource is `serviceaccounts/token`.
      if (method !== "POST") throw methodNotAllowed();
      setVerb("create", resource);
      const account = this.ctx.objects.get({
        type,
        version,
        namespace: route.namespace,
        name: route.name,
      });
      return json(requestToken(account, await bodyOf(request), this.ctx.authenticator), 201);
    }
    const params = url.searchParams;
    const watch = route.watchPath || params.get("watch") === "true" || params.get("watch") === "1";
    const verb = this.#verbOf(method, route, watch);
    setVerb(verb, resource);
    const failure = this.ctx.faults.failureFor(verb, resource);
    if (failure) {
      const retryAfter = failure.retryAfter ?? (failure.status === 429 ? 1 : undefined);
      throw new ApiError(
        failure.status,
        `injected failure: ${failure.status} for ${verb} ${type.plural}`,
        {
          details: retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : undefined,
          headers: retryAfter !== undefined ? { "retry-after": String(retryAfter) } : {},
        },
      );
    }
    if (type.namespaced && route.namespace === undefined && !["list", "watch"].includes(verb)) {
      throw notServed(path);
    }
    const sub = route.subresource;
    if (
      sub !== undefined && !(sub === "status" && version.status) &&
      !(sub === "scale" && version.scale)
    ) {
      throw notServed(path);
    }
    const target: Target = {
      type,
      version,
      namespace: route.namespace,
      name: route.name,
      subresource: route.subresource,
    };
    const rendering = renderingOf(request.headers.get("accept") ?? JSON_TYPE);
    const include = (params.get("includeObject") ?? "Metadata") as IncludeObject;
    if (!["None", "Metadata", "Object"].includes(include)) {
      throw badRequest(`includeObject must be None, Metadata or Object, not "${include}"`);
    }
    const render = (object: JsonObject): JsonObject => {
      if (rendering === "Table") {
        return tableOf(version, [object], include, {
          resourceVersion: String((object.metadata as JsonObject).resourceVersion ?? ""),
        });
      }
      return rendering === "PartialObjectMetadata" ? partialMetadata(object) : object;
    };
    const { objects, lifecycle } = this.ctx;
    switch (verb) {
      case "get":
        return json(render(objects.get(target)));
      case "list":
        return this.#list(target, params, rendering, include);
      case "watch":
        return this.#watch(target, params, rendering, include);
      case "create": {
        const options = writeOptionsOf(params);
        const given = await bodyOf(request);
        this.#checkGrant(target, user, () => objects.create(target, given, dryRun(options)));
        let created: JsonObject;
        if (!this.#admits(target)) created = objects.create(target, given, options);
        else {
          // Admission fixes the generated name; if it is taken by the time the object is
          // stored, the whole create is tried again with a new name, as a real server does.
          const generates = isGenerating(given);
          for (let attempt = 1;; attempt++) {
            const body = await this.#admitCreate(target, given, options, user);
            try {
              created = objects.create(target, body, options);
              break;
            } catch (error) {
              const taken = error instanceof ApiError && error.reason === "AlreadyExists";
              if (!generates || !taken || attempt >= GENERATE_NAME_ATTEMPTS) throw error;
            }
          }
        }
        lifecycle.settle();
        return written(render(created), 201, options);
      }
      case "update": {
        const options = writeOptionsOf(params);
        let body = await bodyOf(request);
        const given = body;
        this.#checkGrant(target, user, () => objects.update(target, given, dryRun(options)));
        if (this.#admits(target)) {
          const given = body;
          body = await this.#admitUpdate(
            target,
            (o) => objects.update(target, given, o),
            options,
            user,
          );
        }
        const updated = objects.update(target, body, options);
        lifecycle.settle();
        return written(render(updated), 200, options);
      }
      case "patch": {
        const options = writeOptionsOf(params);
        const patchType = patchTypeOf(request.headers.get("content-type"));
        const patch = await bodyOf(request);
        this.#checkGrant(
          target,
          user,
          () => objects.patch(target, patchType, patch, dryRun(options)),
        );
        let patched: JsonObject;
        if (!this.#admits(target)) patched = objects.patch(target, patchType, patch, options);
        else {
          // Like the API server, retry a patch whose object changed during admission.
          for (let attempt = 1;; attempt++) {
            const body = await this.#admitUpdate(
              target,
              (o) => objects.patch(target, patchType, patch, o),
              options,
              user,
            );
            try {
              patched = objects.update(target, body, options);
              break;
            } catch (error) {
              if (!(error instanceof ApiError && error.code === 409) || attempt >= 3) throw error;
            }
          }
        }
        lifecycle.settle();
        return written(render(patched), 200, options);
      }
      case "delete": {
        const options = await deleteOptionsOf(request, params);
        const warnings: string[] = [];
        if (this.#admits(target)) {
          warnings.push(...await this.#admitDelete(target, objects.get(target), options, user));
        }
        const { object, gone } = objects.delete(target, options);
        lifecycle.settle();
        if (!gone) return written(render(object), 200, { warnings });
        const meta = object.metadata as JsonObject;
        const details: JsonObject = {
          name: String(meta.name),
          kind: type.plural,
          uid: String(meta.uid),
        };
        if (type.group) details.group = type.group;
        return written(statusOf(200, "", "", details) as unknown as JsonObject, 200, { warnings });
      }
      case "deletecollection": {
        const options = await deleteOptionsOf(request, params);
        const warnings: string[] = [];
        if (this.#admits(target)) {
          // Each object's deletion is admitted (all before any is deleted, a simplification).
          const { items } = objects.list(target, {
            ...listOptionsOf(params, type.kind, version.selectableFields),
            limit: undefined,
            continue: undefined,
          });
          for (const item of items) {
            const meta = item.metadata as JsonObject;
            const one = {
              ...target,
              namespace: typeof meta.namespace === "string" ? meta.namespace : undefined,
              name: String(meta.name),
            };
            warnings.push(...await this.#admitDelete(one, item, options, user));
          }
        }
        const items = objects.deleteCollection(
          target,
          listOptionsOf(params, type.kind, version.selectableFields),
          options,
        );
        lifecycle.settle();
        return written(
          {
            kind: type.listKind,
            apiVersion: apiVersionOf(type.group, version.name),
            metadata: { resourceVersion: String(objects.store.resourceVersion) },
            items,
          },
          200,
          { warnings },
        );
      }
    }
    throw new ApiError(405, `the method ${method} is not allowed on ${path}`);
  }

  /**
   * With RBAC, a write of a role or binding may grant only what the user holds itself
   * (escalation prevention): checked on the object as the write would store it.
   */
  #checkGrant(target: Target, user: UserInfo, compute: () => JsonObject): void {
    const authorizer = this.ctx.authorizer;
    if (!authorizer || target.type.group !== RBAC_GROUP || target.subresource) return;
    if (user.groups.includes(PRIVILEGED_GROUP)) return;
    const old = target.name !== undefined ? this.ctx.objects.get(target) : undefined;
    checkEscalation(authorizer, user, target.type, compute(), old);
  }

  /** Whether admission webhooks may apply to this write. */
  #admits(target: Target): boolean {
    return this.ctx.admission.active && target.subresource !== "scale";
  }

  /** Admission of a deletion: the webhooks see the object as `oldObject`; returns warnings. */
  async #admitDelete(
    target: Target,
    old: JsonObject,
    options: DeleteOptions,
    user: UserInfo,
  ): Promise<string[]> {
    const { admission } = this.ctx;
    const attributes = this.#attributes("DELETE", target, user, options.dryRun ?? false);
    const { warnings } = await admission.mutate({ ...attributes, oldObject: old });
    return [...warnings, ...await admission.validate({ ...attributes, oldObject: old })];
  }

  #attributes(
    operation: AdmissionAttributes["operation"],
    target: Target,
    user: UserInfo,
    dryRun: boolean,
    name = target.name ?? "",
  ): AdmissionAttributes {
    return {
      operation,
      type: target.type,
      version: target.version,
      subresource: target.subresource,
      namespace: target.namespace,
      name,
      dryRun,
      user: { username: user.username, groups: [...user.groups] },
    };
  }

  /**
   * Admission of a create: mutating webhooks see the object as it would be created,
   * validating webhooks the mutated one. Returns the body to create.
   */
  async #admitCreate(
    target: Target,
    body: JsonValue,
    options: WriteOptions,
    user: UserInfo,
  ): Promise<JsonObject> {
    const { objects, admission } = this.ctx;
    const dry = { ...options, dryRun: true, warnings: [] };
    const candidate = objects.create(target, body, dry);
    const meta = { ...(candidate.metadata as JsonObject) };
    const uid = String(meta.uid);
    // Mutating webhooks run before the server fills in its own fields.
    for (const field of ["uid", "creationTimestamp", "resourceVersion", "generation"]) {
      delete meta[field];
    }
    const name = String(meta.name);
    const attributes = this.#attributes("CREATE", target, user, options.dryRun ?? false, name);
    const mutated = await admission.mutate({
      ...attributes,
      object: { ...candidate, metadata: meta },
    });
    options.warnings?.push(...mutated.warnings);
    const final = mutated.object ?? candidate;
    (final.metadata as JsonObject).name = name; // generateName is resolved once
    const checked = objects.create(target, final, { ...dry, uid });
    options.warnings?.push(...await admission.validate({ ...attributes, object: checked }));
    options.uid = uid;
    return final;
  }

  /**
   * Admission of an update or patch: returns the whole object to write (with the
   * resourceVersion it was based on, so a concurrent change is a conflict).
   */
  async #admitUpdate(
    target: Target,
    compute: (options: WriteOptions) => JsonObject,
    options: WriteOptions,
    user: UserInfo,
  ): Promise<JsonObject> {
    const { objects, admission } = this.ctx;
    const dry = { ...options, dryRun: true, warnings: [] };
    const old = objects.get({ ...target, subresource: undefined });
    const candidate = compute(dry);
    const attributes = this.#attributes("UPDATE", target, user, options.dryRun ?? false);
    const mutated = await admission.mutate({ ...attributes, object: candidate, oldObject: old });
    options.warnings?.push(...mutated.warnings);
    const final = mutated.object ?? candidate;
    const checked = objects.update(target, final, dry);
    options.warnings?.push(
      ...await admission.validate({ ...attributes, object: checked, oldObject: old }),
    );
    return final;
  }

  #verbOf(method: string, route: Route, watch: boolean): string {
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

  #list(
    target: Target,
    params: URLSearchParams,
    rendering: string,
    include: IncludeObject,
  ): Response {
    const { type, version } = target;
    const page = this.ctx.objects.list(
      target,
      listOptionsOf(params, type.kind, version.selectableFields),
    );
    const listMeta: JsonObject = { resourceVersion: page.resourceVersion };
    if (page.continue) listMeta.continue = page.continue;
    if (page.remainingItemCount !== undefined) {
      listMeta.remainingItemCount = page.remainingItemCount;
    }
    const response = this.#listResponse(type, version, page.items, listMeta, rendering, include);
    this.#listed.set(response, page.items.length);
    return response;
  }

  #listResponse(
    type: ResourceType,
    version: ServedVersion,
    items: JsonObject[],
    listMeta: JsonObject,
    rendering: string,
    include: IncludeObject,
  ): Response {
    if (rendering === "Table") return json(tableOf(version, items, include, listMeta));
    if (rendering === "PartialObjectMetadata") {
      return json({
        kind: "PartialObjectMetadataList",
        apiVersion: "meta.k8s.io/v1",
        metadata: listMeta,
        items: items.map(partialMetadata),
      });
    }
    return json({
      kind: type.listKind,
      apiVersion: apiVersionOf(type.group, version.name),
      metadata: listMeta,
      items: items,
    });
  }

  #watch(
    target: Target,
    params: URLSearchParams,
    rendering: string,
    include: IncludeObject,
  ): Response {
    const { type, version } = target;
    const selectors = listOptionsOf(params, type.kind, version.selectableFields);
    const timeout = params.get("timeoutSeconds");
    if (timeout !== null && !/^\d+$/.test(timeout)) {
      throw badRequest(`timeoutSeconds must be a non-negative integer, not "${timeout}"`);
    }
    // As kube-apiserver validates a watch's list options; a server without streaming lists
    // (before 1.27, or with the WatchList feature off) drops `sendInitialEvents` first.
    const streaming = this.ctx.watches.streamingLists;
    const sendInitialEvents = streaming ? params.get("sendInitialEvents") : null;
    const match = params.get("resourceVersionMatch");
    if (sendInitialEvents !== null) {
      if (match !== "NotOlderThan") {
        throw invalidListOptions(
          "resourceVersionMatch",
          "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
        );
      }
      if (params.get("allowWatchBookmarks") !== "true") {
        throw invalidListOptions(
          "allowWatchBookmarks",
          "sendInitialEvents requires setting allowWatchBookmarks to true",
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
    const nameFilter = target.name;
    const fieldSelector = nameFilter === undefined
      ? selectors.fieldSelector!
      : withName(selectors.fieldSelector!, nameFilter);
    let format: ((object: JsonObject, first: boolean) => JsonObject) | undefined;
    if (rendering === "Table") {
      format = (object, first) => ({
        kind: "Table",
        apiVersion: "meta.k8s.io/v1",
        metadata: {
          resourceVersion: String((object.metadata as JsonObject).resourceVersion ?? ""),
        },
        columnDefinitions: first ? columnDefinitions(version) : [],
        rows: [rowOf(version, object, include)],
      });
    } else if (rendering === "PartialObjectMetadata") {
      format = partialMetadata;
    }
    const stream = this.ctx.watches.open(
      {
        type,
        version,
        namespace: target.namespace,
        labelSelector: selectors.labelSelector!,
        fieldSelector,
        resourceVersion: params.get("resourceVersion") ?? undefined,
        sendInitialEvents: sendInitialEvents === "true",
        allowBookmarks: params.get("allowWatchBookmarks") === "true",
        timeoutSeconds: timeout === null ? undefined : Number(timeout),
        format,
      },
      () =>
        this.ctx.objects.list({ ...target, name: undefined }, {
          ...selectors,
          fieldSelector,
          limit: undefined,
        })
          .items,
    );
    return new Response(stream, {
      status: 200,
      headers: { "content-type": JSON_TYPE, "cache-control": "no-cache, private" },
    });
  }
}
