/**
 * The renderings a client asks for in `Accept`, negotiated as kube-apiserver negotiates
 * them: the media types in order of preference (`q`, then their order), the first one
 * served wins; a transformation (`as=Table`, `as=PartialObjectMetadata`,
 * `as=PartialObjectMetadataList`) is served only with `g=meta.k8s.io` and `v=v1` or
 * `v=v1beta1`, and a media type asking for another is skipped. Then, as the API server
 * answers after negotiating, `PartialObjectMetadata` of a list and
 * `PartialObjectMetadataList` of one object are a 406.
 *
 * The fake cluster answers in JSON only: media types it does not write (YAML, protobuf,
 * CBOR) are skipped, and a header with none it serves gets plain JSON all the same -- unless
 * it asked for a transformation the server refuses, which is a 406 as on a real server.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { ApiError } from "./errors.ts";

/** How objects are rendered: as they are, as a Table, or as their metadata only. */
export type Rendering = "object" | "Table" | "PartialObjectMetadata" | "PartialObjectMetadataList";

/** The rendering negotiated, and the version of `meta.k8s.io` it is written in. */
export interface Negotiated {
  readonly rendering: Rendering;
  /** `meta.k8s.io/v1` (or `meta.k8s.io/v1beta1`, when asked for that only). */
  readonly metaApiVersion: string;
}

const PLAIN: Negotiated = Object.freeze({ rendering: "object", metaApiVersion: "meta.k8s.io/v1" });
const TRANSFORMS: readonly string[] = [
  "Table",
  "PartialObjectMetadata",
  "PartialObjectMetadataList",
];

/** One media range of an `Accept` header, with its parameters (`q` apart). */
interface Clause {
  readonly type: string;
  readonly params: ReadonlyMap<string, string>;
  readonly q: number;
}

function clausesOf(accept: string): Clause[] {
  const clauses: Clause[] = [];
  for (const part of accept.split(",")) {
    const [range, ...rest] = part.split(";");
    const type = range.trim().toLowerCase();
    if (!type) continue;
    const params = new Map<string, string>();
    let q = 1;
    for (const param of rest) {
      const eq = param.indexOf("=");
      if (eq < 0) continue;
      const key = param.slice(0, eq).trim().toLowerCase();
      const value = param.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1");
      if (key === "q") q = Number(value);
      else params.set(key, value);
    }
    if (q > 0) clauses.push({ type, params, q });
  }
  // Stable: equally preferred media types keep the client's order.
  return clauses.sort((a, b) => b.q - a.q);
}

/** Whether the fake server writes this media range: JSON, or any. */
function served(type: string): boolean {
  return type === "application/json" || type === "application/*" || type === "*/*";
}

/**
 * The rendering the `Accept` header asks for, negotiated as kube-apiserver negotiates it
 * (see the module's docs); a 406 when it asks only for transformations not served.
 */
export function negotiateRendering(accept: string | null, builtin: boolean): Negotiated {
  if (!accept) return PLAIN;
  let refused = false;
  for (const clause of clausesOf(accept)) {
    if (!served(clause.type)) continue;
    const as = clause.params.get("as");
    const group = clause.params.get("g");
    const version = clause.params.get("v");
    if (as === undefined && group === undefined && version === undefined) return PLAIN;
    if (
      as !== undefined && TRANSFORMS.includes(as) && group === "meta.k8s.io" &&
      (version === "v1" || version === "v1beta1")
    ) {
      return { rendering: as as Rendering, metaApiVersion: `meta.k8s.io/${version}` };
    }
    refused = true;
  }
  if (!refused) return PLAIN;
  const types = builtin
    ? "application/json, application/yaml, application/vnd.kubernetes.protobuf"
    : "application/json, application/yaml";
  throw notAcceptable(`only the following media types are accepted: ${types}`);
}

/**
 * The version of aggregated discovery `Accept` asks `/api` or `/apis` for, if it does: its
 * first media type served either asks for `APIGroupDiscoveryList` of `apidiscovery.k8s.io`
 * `v2` or `v2beta1` (both served by 1.32; v2beta1 went in 1.33) or is plain JSON (then the
 * documents of old); others are skipped (apiserver's `WrappedHandler` in
 * endpoints/discovery/aggregated/wrapper.go, with `DiscoveryEndpointRestrictions` and
 * `IsAggregatedDiscoveryGVK` in negotiation.go).
 */
export function aggregatedDiscoveryVersion(accept: string | null): "v2" | "v2beta1" | undefined {
  for (const clause of clausesOf(accept ?? "")) {
    if (!served(clause.type)) continue;
    const as = clause.params.get("as");
    const version = clause.params.get("v");
    if (as === undefined && !clause.params.has("g") && version === undefined) return undefined;
    if (
      as === "APIGroupDiscoveryList" && clause.params.get("g") === "apidiscovery.k8s.io" &&
      (version === "v2" || version === "v2beta1")
    ) return version;
  }
  return undefined;
}

/**
 * A 406 for a rendering that does not fit what the verb answers, as the API server answers
 * it: `PartialObjectMetadata` of a list, `PartialObjectMetadataList` of one object. A
 * real server answers a watch that asks for a list's rendering with a stream that ends at
 * its first event; the fake one refuses it at once.
 */
export function checkRendering(rendering: Rendering, kind: string, list: boolean): void {
  if (list && rendering === "PartialObjectMetadata") {
    throw notAcceptable(
      `you requested PartialObjectMetadata, but the requested object is a list (${kind}List); ` +
        "ask for PartialObjectMetadataList",
    );
  }
  if (!list && rendering === "PartialObjectMetadataList") {
    throw notAcceptable(
      `you requested PartialObjectMetadataList, but the requested object is not a list (${kind}); ` +
        "ask for PartialObjectMetadata",
    );
  }
}

function notAcceptable(message: string): ApiError {
  return new ApiError(406, message, { reason: "NotAcceptable" });
}

/** The object reduced to its metadata (`PartialObjectMetadata`). */
export function partialMetadata(object: JsonObject, apiVersion = "meta.k8s.io/v1"): JsonObject {
  const metadata = object.metadata;
  return {
    kind: "PartialObjectMetadata",
    apiVersion,
    metadata: metadata !== null && typeof metadata === "object" && !Array.isArray(metadata)
      ? metadata
      : {},
  };
}
