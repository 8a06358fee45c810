/**
 * The labels of the operator's metrics that the parts which record them compute on every
 * request and object (`operator_metrics.ts` names the metrics): apart from the metrics, which
 * exist only with a metrics endpoint, so that an operator without one does not load them.
 *
 * @module
 */

/**
 * The verb and resource of an API request from its method and path: `GET
 * /apis/kopf.dev/v1/namespaces/ns/kopfexamples/x` is `get` of `kopfexamples.kopf.dev`.
 */
export function requestLabels(method: string, path: string): [verb: string, resource: string] {
  const [route, query = ""] = path.split("?", 2);
  const parts = route.split("/").filter((part) => part !== "");
  let group = "";
  let rest: string[];
  if (parts[0] === "api") rest = parts.slice(2);
  else if (parts[0] === "apis") {
    group = parts[1] ?? "";
    rest = parts.slice(3);
  } else return [method.toLowerCase(), "nonresource"];
  if (rest[0] === "namespaces" && rest.length >= 3) rest = rest.slice(2);
  const plural = rest[0] ?? "";
  const named = rest.length >= 2;
  const resource = plural === "" ? "discovery" : group ? `${plural}.${group}` : plural;
  const subresource = rest.length >= 3 ? `/${rest[2]}` : "";
  let verb: string;
  switch (method.toUpperCase()) {
    case "GET":
      verb = /(^|&)watch=(true|1)(&|$)/.test(query) ? "watch" : named ? "get" : "list";
      break;
    case "POST":
      verb = "create";
      break;
    case "PUT":
      verb = "update";
      break;
    case "PATCH":
      verb = "patch";
      break;
    case "DELETE":
      verb = named ? "delete" : "deletecollection";
      break;
    default:
      verb = method.toLowerCase();
  }
  return [verb, `${resource}${subresource}`];
}

const labels = new WeakMap<object, string>();

/** A resource as the metrics label it: `kopfexamples.kopf.dev`, or `pods` in the core group. */
export function resourceLabel(
  resource: { readonly plural: string; readonly group: string },
): string {
  let label = labels.get(resource);
  if (label === undefined) {
    label = resource.group ? `${resource.plural}.${resource.group}` : resource.plural;
    labels.set(resource, label);
  }
  return label;
}
