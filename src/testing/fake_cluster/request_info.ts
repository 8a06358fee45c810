/**
 * What an HTTP request asks, in the authorizer's terms, read from the URL as
 * kube-apiserver's `RequestInfoFactory` reads it: resource requests (`/api/v1/...`,
 * `/apis/<group>/<version>/...`) with their verb, group, resource, subresource, namespace
 * and name; every other path (discovery, `/version`, `/openapi/...`) a non-resource
 * request whose verb is the HTTP method. The path is the one the router routes by
 * (`request_path.ts`), so no spelling of a path is authorized as another.
 *
 * @module
 */
import type { Attributes, UserInfo } from "./rbac.ts";
import type { RequestPath } from "./request_path.ts";
import { queryFlag } from "./requests.ts";

/** The verbs that come as the first segment after the version (`/api/v1/watch/pods`). */
const SPECIAL_VERBS = new Set(["proxy", "watch"]);
/** Subresources of a namespace that are not resources in the namespace. */
const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);

function verbOfMethod(method: string): string {
  switch (method) {
    case "POST":
      return "create";
    case "GET":
    case "HEAD":
      return "get";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return "delete";
  }
  return "";
}

/** The value `metadata.name` must equal in a field selector, if it pins one. */
function pinnedName(fieldSelector: string | null): string | undefined {
  if (!fieldSelector) return undefined;
  for (const term of fieldSelector.split(",")) {
    const match = /^\s*metadata\.name\s*(==?)\s*(.*?)\s*$/.exec(term);
    // A name that is no valid path segment does not count, as in kube-apiserver.
    if (match && match[2] && !/[/%]/.test(match[2]) && match[2] !== "." && match[2] !== "..") {
      return match[2];
    }
  }
  return undefined;
}

/**
 * The authorizer's attributes of a request by this user, read from the same
 * {@link RequestPath} the router routes by.
 */
export function requestAttributes(
  method: string,
  path: RequestPath,
  params: URLSearchParams,
  user: UserInfo,
): Attributes {
  const nonResource: Attributes = {
    user,
    verb: method.toLowerCase(),
    resourceRequest: false,
    path: path.decoded,
  };
  let parts = path.segments;
  if (parts.length < 3 || (parts[0] !== "api" && parts[0] !== "apis")) return nonResource;
  let apiGroup = "";
  if (parts[0] === "apis") {
    if (parts.length < 4) return nonResource;
    apiGroup = parts[1];
    parts = parts.slice(2);
  } else {
    parts = parts.slice(1);
  }
  const apiVersion = parts[0];
  parts = parts.slice(1);
  let verb: string;
  if (SPECIAL_VERBS.has(parts[0])) {
    verb = parts[0];
    parts = parts.slice(1);
  } else {
    verb = verbOfMethod(method);
  }
  let namespace = "";
  if (parts[0] === "namespaces" && parts.length > 1) {
    namespace = parts[1];
    // `/namespaces/x` is the namespace itself (in its own namespace, as Kubernetes has it).
    if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2])) parts = parts.slice(2);
  }
  const resource = parts[0] ?? "";
  let name = parts[1] ?? "";
  const subresource = parts.length >= 3 && verb !== "proxy" ? parts[2] : "";
  if (!name && verb === "get") {
    verb = queryFlag(params, "watch") ? "watch" : "list";
    name = pinnedName(params.get("fieldSelector")) ?? "";
  }
  if (!name && verb === "delete") verb = "deletecollection";
  return {
    user,
    verb,
    resourceRequest: true,
    apiGroup,
    apiVersion,
    resource,
    subresource,
    namespace,
    name,
  };
}
