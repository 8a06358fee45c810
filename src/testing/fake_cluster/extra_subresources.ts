/**
 * The subresources that are neither `status` nor `scale`: the kubelet's streams and the
 * proxies (answered as kube-apiserver answers in a cluster without reachable nodes:
 * pkg/registry/core/pod/strategy.go `LogLocation`/`streamLocation`/`ResourceLocation`,
 * pkg/registry/core/service/storage `ResourceLocation`, pkg/registry/core/node/strategy.go),
 * a pod's binding and eviction (pkg/registry/core/pod/storage), and the ones that write
 * one part of their object: a namespace's `finalize`, a pod's `ephemeralcontainers`, a
 * certificate signing request's `approval`.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import {
  apiVersionOf,
  type ResourceType,
  type ServedVersion,
  typeKey,
} from "../../catalog/resource_types.ts";
import { ApiError, badRequest, notFound, statusOf } from "./errors.ts";
import type { Call } from "./http_context.ts";
import { json, methodNotAllowed } from "./http_responses.ts";
import { metaOf } from "./metadata.ts";
import { isObject, jsonPatch, mergePatch } from "./patching.ts";
import { bodyOf, patchTypeOf, type Route } from "./requests.ts";
import { strategicMergePatch } from "./strategic_merge_patch.ts";
import { kindMessage } from "./builtin_messages.ts";
import type { Target } from "./targets.ts";
import { evict } from "./pod_evictions.ts";

/** The request's target object, for a subresource of it. */
interface Part {
  readonly call: Call;
  readonly target: Target;
  readonly sub: string;
}

const VERBS_BY_METHOD: Record<string, string> = {
  GET: "get",
  POST: "create",
  PUT: "update",
  PATCH: "patch",
  DELETE: "delete",
};

/** A container named by the request, or the pod's only one (`validateContainer`). */
function containerOf(pod: JsonObject, name: string | null): string {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const lists = ["containers", "initContainers", "ephemeralContainers"];
  const names = lists.flatMap((list) =>
    Array.isArray(spec[list]) ? spec[list].filter(isObject).map((c) => String(c.name)) : []
  );
  const podName = String(metaOf(pod).name);
  if (!name) {
    const regular = Array.isArray(spec.containers) ? spec.containers.filter(isObject) : [];
    if (regular.length === 1) return String(regular[0].name);
    throw badRequest(
      `a container name must be specified for pod ${podName}, choose one of: [${
        regular.map((c) => c.name).join(" ")
      }]`,
    );
  }
  if (!names.includes(name)) throw badRequest(`container ${name} is not valid for pod ${podName}`);
  return name;
}

/** What reaching a node's kubelet comes to here: no node, or none that answers. */
function kubeletUnreachable(call: Call, nodeName: string): ApiError {
  const node = call.ctx.objects.store.get(typeKey("", "nodes"), "", nodeName);
  if (!node) return notFound({ name: nodeName, group: "", plural: "nodes" });
  const status = isObject(node.status) ? node.status : {};
  const addresses = Array.isArray(status.addresses) ? status.addresses.filter(isObject) : [];
  if (!addresses.length) {
    // GetPreferredNodeAddress's error, not an API status: a 500 without a reason.
    return new ApiError(500, "no preferred addresses found; known addresses: []", { reason: "" });
  }
  const port = isObject(status.daemonEndpoints) && isObject(status.daemonEndpoints.kubeletEndpoint)
    ? status.daemonEndpoints.kubeletEndpoint.Port
    : 10250;
  return new ApiError(
    500,
    `error dialing backend: dial tcp ${addresses[0].address}:${port}: connect: connection refused`,
    { reason: "" },
  );
}

/** `pods/log`, `exec`, `attach`, `portforward`: the kubelet's, through the pod's node. */
function kubeletStream(part: Part): Response {
  const { call, target, sub } = part;
  const pod = call.ctx.objects.get(target);
  if (sub !== "portforward") containerOf(pod, call.url.searchParams.get("container"));
  const nodeName = isObject(pod.spec) ? String(pod.spec.nodeName ?? "") : "";
  if (!nodeName) {
    // A pod on no node has no logs yet: an empty stream (the nil location of LogLocation).
    if (sub === "log") return new Response("", { headers: { "content-type": "text/plain" } });
    throw badRequest(`pod ${target.name} does not have a host assigned`);
  }
  throw kubeletUnreachable(call, nodeName);
}

/** `pods/proxy`, `services/proxy`, `nodes/proxy`: where the request would be sent. */
function proxy(part: Part): Response {
  const { call, target } = part;
  const object = call.ctx.objects.get(target);
  const plural = target.type.plural;
  if (plural === "pods") {
    const podIP = isObject(object.status) ? object.status.podIP : undefined;
    // proxyutil.IsProxyableIP of a pod without an IP.
    if (typeof podIP !== "string" || !podIP) throw badRequest("address not allowed");
    throw new ApiError(
      503,
      `error trying to reach service: dial tcp ${podIP}:80: connect: connection refused`,
    );
  }
  if (plural === "nodes") throw kubeletUnreachable(call, String(target.name));
  const endpoints = call.ctx.objects.store.get(
    typeKey("", "endpoints"),
    target.namespace ?? "",
    String(target.name),
  );
  if (!endpoints) throw notFound({ name: String(target.name), group: "", plural: "endpoints" });
  throw new ApiError(503, `no endpoints available for service "${target.name}"`);
}

/** The object a PUT or PATCH of a part would make, from the request's body. */
async function proposed(part: Part, current: JsonObject): Promise<JsonObject> {
  const { call, target } = part;
  const body = await bodyOf(call.request);
  if (call.request.method === "PUT") {
    if (!isObject(body)) throw badRequest("the request body must be a JSON object");
    return body;
  }
  const patchType = patchTypeOf(call.request.headers.get("content-type"));
  let patched: JsonValue;
  if (patchType === "json") patched = jsonPatch(current, body);
  else if (!isObject(body)) throw badRequest("a merge patch must be a JSON object");
  else if (patchType === "merge") patched = mergePatch(current, body);
  else if (patchType === "strategic") {
    const root = kindMessage(
      apiVersionOf(target.type.group, target.version.name),
      target.type.kind,
    );
    patched = strategicMergePatch(current, body, root);
  } else throw new ApiError(415, "server-side apply is not supported on this subresource");
  if (!isObject(patched)) throw new ApiError(422, "the patched object is not a JSON object");
  return patched;
}

/** The field each editing subresource writes, and whether it lies in the status. */
const PARTS: Record<string, { path: [string, string]; status: boolean }> = {
  finalize: { path: ["spec", "finalizers"], status: false },
  ephemeralcontainers: { path: ["spec", "ephemeralContainers"], status: false },
  approval: { path: ["status", "conditions"], status: true },
};

/** GET, PUT or PATCH of a subresource that writes one field of its object. */
async function editPart(part: Part): Promise<Response> {
  const { call, target, sub } = part;
  const { objects, lifecycle } = call.ctx;
  const current = objects.get(target);
  if (call.request.method === "GET") return json(current);
  const { path, status } = PARTS[sub];
  const next = await proposed(part, current);
  const [outer, inner] = path;
  const holder = isObject(next[outer]) ? next[outer] : {};
  const resourceVersion = metaOf(next).resourceVersion;
  const patch: JsonObject = { [outer]: { [inner]: holder[inner] ?? null } };
  if (typeof resourceVersion === "string" && resourceVersion) patch.metadata = { resourceVersion };
  const written = objects.patch(
    { ...target, subresource: status ? "status" : undefined },
    "merge",
    patch,
    {},
  );
  lifecycle.settle();
  return json(written);
}

/** `pods/binding` and `bindings`: put an unscheduled pod on a node. */
async function bind(call: Call, target: Target): Promise<Response> {
  const body = await bodyOf(call.request);
  if (!isObject(body)) throw badRequest("the request body must be a JSON object");
  const name = target.name ?? String(metaOf(body).name ?? "");
  const nodeName = isObject(body.target) ? String(body.target.name ?? "") : "";
  const podType = call.ctx.catalog.get("", "pods")!;
  const pod = call.ctx.objects.get({ ...target, type: podType, name, subresource: undefined });
  const spec = isObject(pod.spec) ? pod.spec : {};
  if (spec.nodeName) {
    throw new ApiError(409, `pod ${name} is already assigned to node "${spec.nodeName}"`, {
      reason: "Conflict",
      details: { name, kind: "pods" },
    });
  }
  const status = isObject(pod.status) ? pod.status : {};
  const conditions = Array.isArray(status.conditions)
    ? status.conditions.filter((c) => !isObject(c) || c.type !== "PodScheduled")
    : [];
  conditions.push({
    type: "PodScheduled",
    status: "True",
    lastProbeTime: null,
    lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
  });
  call.ctx.objects.system(podType, {
    ...pod,
    spec: { ...spec, nodeName },
    status: { ...status, conditions },
  });
  call.ctx.lifecycle.settle();
  return json(statusOf(201, "", ""), 201);
}

/** Answer a request to a subresource that has a handler of its own. */
export function answerExtraSubresource(
  call: Call,
  route: Route,
  type: ResourceType,
  version: ServedVersion,
): Promise<Response> | Response {
  const sub = route.subresource!;
  const declared = type.extraSubresources?.find((s) => s.name === sub)!;
  const verb = VERBS_BY_METHOD[call.request.method];
  if (!verb || !declared.verbs.includes(verb)) throw methodNotAllowed();
  call.setVerb(verb, { plural: type.plural, group: type.group, kind: type.kind });
  const target: Target = {
    type,
    version,
    namespace: route.namespace,
    name: route.name,
    subresource: sub,
  };
  const part = { call, target: { ...target, subresource: undefined }, sub };
  switch (sub) {
    case "log":
    case "exec":
    case "attach":
    case "portforward":
      return kubeletStream(part);
    case "proxy":
      return proxy(part);
    case "binding":
      return bind(call, part.target);
    case "eviction":
      return evict(call, part.target);
    default:
      return editPart(part);
  }
}

/** The `bindings` resource: a pod's binding, POSTed to the namespace. */
export function answerBinding(call: Call, route: Route, type: ResourceType): Promise<Response> {
  if (route.namespace === undefined || route.name !== undefined) throw methodNotAllowed();
  if (call.request.method !== "POST") throw methodNotAllowed();
  call.setVerb("create", { plural: type.plural, group: type.group, kind: type.kind });
  const podType = call.ctx.catalog.get("", "pods")!;
  return bind(call, { type: podType, version: podType.versions[0], namespace: route.namespace });
}
