/**
 * The routes of the fake API server, as a table: discovery, `/version`, health, OpenAPI,
 * and everything under `/api` and `/apis` to the resources. A path that is not in its
 * canonical form (`request_path.ts`) is a 404 before any route sees it.
 *
 * @module
 */
import { blake2b } from "../../structs/blake2b.ts";
import * as discovery from "./discovery.ts";
import type { Call } from "./http_context.ts";
import { answerResource } from "./http_resources.ts";
import { encodeJson, json, notServed } from "./http_responses.ts";
import { openApiDocument, openApiRoot, openApiV2Document } from "./openapi.ts";
import { aggregatedDiscoveryVersion } from "./renderings.ts";
import { encodeOpenApiV2, OPENAPI_V2_PROTOBUF } from "./openapi_v2_protobuf.ts";

/** One route: the method (any when omitted), which paths it takes, and its handler. */
interface RouteEntry {
  readonly method?: string;
  matches(segments: readonly string[]): boolean;
  answer(call: Call): Response | Promise<Response>;
}

/** A route of exactly these segments. */
function exactly(...wanted: string[]): (segments: readonly string[]) => boolean {
  return (segments) =>
    segments.length === wanted.length && wanted.every((w, i) => segments[i] === w);
}

/** The document, or a 404 when there is none at this path. */
function found<T>(call: Call, document: T | undefined): Response {
  if (document === undefined) throw notServed(call.path.path);
  return json(document);
}

function healthy(): Response {
  return new Response("ok", { headers: { "content-type": "text/plain" } });
}

/** `/openapi/v2`: JSON, or gnostic's protobuf, which kubectl (client-go) asks for only. */
function openApiV2(call: Call): Response {
  const doc = openApiV2Document(call.ctx.catalog);
  const accept = call.request.headers.get("accept") ?? "";
  if (!accept.includes("com.github.proto-openapi.spec.v2")) return json(doc);
  return new Response(encodeOpenApiV2(doc), { headers: { "content-type": OPENAPI_V2_PROTOBUF } });
}

/** `/openapi/v3/api/v1` and `/openapi/v3/apis/<group>/<version>`. */
function openApiV3(call: Call): Response {
  const segments = call.path.segments;
  const group = segments[2] === "api" ? "" : segments[3];
  return found(call, openApiDocument(call.ctx.catalog, group, segments[segments.length - 1]));
}

/** `/api/v1` and `/apis/<group>/<version>`: the resources of a group version. */
function resourceList(call: Call): Response {
  const segments = call.path.segments;
  const group = segments[0] === "api" ? "" : segments[1];
  const version = segments[segments.length - 1];
  return found(call, discovery.resourceList(call.ctx.catalog, group, version));
}

/**
 * `/api` or `/apis` in one aggregated document when `Accept` asks for it, with the ETag of
 * its content, a 304 to a client that has it (apiserver's `ServeHTTPWithETag` in
 * endpoints/discovery/aggregated/etag.go); else the document of old. The ETag is a
 * 512-bit hash of the document in upper-case hex, as apiserver's SHA-512 is, but computed
 * synchronously: `crypto.subtle.digest` completes on another thread, at a moment the
 * simulation's virtual clock cannot order, which made a seed's runs differ.
 */
function rootDiscovery(call: Call, legacy: () => unknown): Response {
  const version = aggregatedDiscoveryVersion(call.request.headers.get("accept"));
  if (version === undefined) return json(legacy());
  const legacyOnly = call.path.segments[0] === "api";
  const document = discovery.aggregatedDiscovery(call.ctx.catalog, legacyOnly, version);
  const body = encodeJson(document);
  const digest = blake2b(new TextEncoder().encode(body), 64);
  const hex = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  const headers = { etag: `"${hex.toUpperCase()}"`, vary: "Accept", "cache-control": "public" };
  if (call.request.headers.get("if-none-match") === headers.etag) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(body, {
    headers: { "content-type": discovery.aggregatedDiscoveryType(version), ...headers },
  });
}

/** The routes in the order they are tried; the first that takes the path answers. */
const ROUTES: readonly RouteEntry[] = [
  { method: "GET", matches: exactly("version"), answer: () => json(discovery.versionInfo()) },
  {
    method: "GET",
    matches: exactly("api"),
    answer: (call) => rootDiscovery(call, () => discovery.coreVersions(call.ctx.serverAddress())),
  },
  {
    method: "GET",
    matches: exactly("apis"),
    answer: (call) => rootDiscovery(call, () => discovery.groupList(call.ctx.catalog)),
  },
  { method: "GET", matches: exactly("healthz"), answer: healthy },
  { method: "GET", matches: exactly("livez"), answer: healthy },
  { method: "GET", matches: exactly("readyz"), answer: healthy },
  {
    method: "GET",
    matches: exactly("openapi", "v3"),
    answer: (c) => json(openApiRoot(c.ctx.catalog)),
  },
  { method: "GET", matches: exactly("openapi", "v2"), answer: openApiV2 },
  {
    method: "GET",
    matches: (s) => s[0] === "openapi" && s[1] === "v3" && s.length >= 4,
    answer: openApiV3,
  },
  {
    method: "GET",
    matches: (s) => s[0] === "apis" && s.length === 2,
    answer: (call) => found(call, discovery.group(call.ctx.catalog, call.path.segments[1])),
  },
  {
    method: "GET",
    matches: (s) => (s[0] === "api" && s.length === 2) || (s[0] === "apis" && s.length === 3),
    answer: resourceList,
  },
  { matches: (s) => s[0] === "api" || s[0] === "apis", answer: answerResource },
];

/** Answer a request by the first route that takes its path; a 404 when none does. */
export function route(call: Call): Response | Promise<Response> {
  const { path, request } = call;
  if (path.oddity !== undefined) {
    // As kube-apiserver, which does not clean paths: no route takes such a path.
    throw notServed(path.path, path.oddity);
  }
  for (const entry of ROUTES) {
    if (entry.method !== undefined && entry.method !== request.method) continue;
    if (entry.matches(path.segments)) return entry.answer(call);
  }
  throw notServed(path.path);
}
