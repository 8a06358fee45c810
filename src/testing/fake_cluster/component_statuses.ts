/**
 * `componentstatuses`: the health of the control plane's parts, probed on each request
 * (pkg/registry/core/componentstatus/rest.go). The fake cluster has its controllers and
 * its store, but no scheduler: the scheduler's probe fails as on a cluster without one.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import type { ResourceType, ServedVersion } from "../../catalog/resource_types.ts";
import { notFound } from "./errors.ts";
import type { Call } from "./http_context.ts";
import { json, methodNotAllowed } from "./http_responses.ts";
import { negotiateRendering } from "./renderings.ts";
import type { Route } from "./requests.ts";
import { tableOf } from "./tables.ts";

const SCHEDULER_DOWN = 'Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: ' +
  "connect: connection refused";

/** The components and their probes' outcome, in the order the REST storage lists them. */
function components(): JsonObject[] {
  const healthy = { type: "Healthy", status: "True", message: "ok" };
  const status = (name: string, condition: JsonObject): JsonObject => ({
    kind: "ComponentStatus",
    apiVersion: "v1",
    metadata: { name, creationTimestamp: null },
    conditions: [condition],
  });
  return [
    status("scheduler", { type: "Healthy", status: "False", error: SCHEDULER_DOWN }),
    status("controller-manager", healthy),
    status("etcd-0", healthy),
  ];
}

/** GET of one component's status or of them all. */
export function answerComponentStatus(
  call: Call,
  route: Route,
  type: ResourceType,
  version: ServedVersion,
): Response {
  const params = call.url.searchParams;
  const watch = route.watchPath || params.get("watch") === "true" || params.get("watch") === "1";
  if (call.request.method !== "GET" || watch) throw methodNotAllowed();
  const verb = route.name === undefined ? "list" : "get";
  call.setVerb(verb, { plural: type.plural, group: type.group, kind: type.kind });
  const all = components();
  const { rendering } = negotiateRendering(call.request.headers.get("accept"), true);
  if (route.name !== undefined) {
    const one = all.find((c) => (c.metadata as JsonObject).name === route.name);
    if (!one) throw notFound({ name: route.name, group: "", plural: type.plural });
    return json(rendering === "Table" ? tableOf(version, [one], "Metadata", {}) : one);
  }
  if (rendering === "Table") return json(tableOf(version, all, "Metadata", {}));
  return json({ kind: "ComponentStatusList", apiVersion: "v1", metadata: {}, items: all });
}
