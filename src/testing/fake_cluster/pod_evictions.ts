/**
 * `pods/eviction`: a pod deleted unless its PodDisruptionBudget forbids it, as
 * pkg/registry/core/pod/storage/eviction.go's `EvictionREST.Create` decides.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { typeKey } from "../../catalog/resource_types.ts";
import { ApiError, badRequest, statusOf } from "./errors.ts";
import type { Call } from "./http_context.ts";
import { json } from "./http_responses.ts";
import { metaOf } from "./metadata.ts";
import { isObject } from "./patching.ts";
import { bodyOf } from "./requests.ts";
import type { DeletionOptions, Target } from "./targets.ts";

const PDBS = typeKey("policy", "poddisruptionbudgets");
const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";

/** Whether a label selector (matchLabels, matchExpressions) selects these labels. */
function selects(selector: JsonValue | undefined, labels: JsonObject): boolean {
  if (!isObject(selector)) return false;
  const match = isObject(selector.matchLabels) ? selector.matchLabels : {};
  const expressions = Array.isArray(selector.matchExpressions)
    ? selector.matchExpressions.filter(isObject)
    : [];
  if (!Object.keys(match).length && !expressions.length) return true;
  if (Object.entries(match).some(([key, value]) => labels[key] !== value)) return false;
  return expressions.every((e) => {
    const key = String(e.key);
    const values = Array.isArray(e.values) ? e.values.map(String) : [];
    const has = labels[key] !== undefined;
    switch (e.operator) {
      case "In":
        return has && values.includes(String(labels[key]));
      case "NotIn":
        return !has || !values.includes(String(labels[key]));
      case "Exists":
        return has;
      case "DoesNotExist":
        return !has;
    }
    return false;
  });
}

/** A 429 naming the budget's cause, as `NewTooManyRequests` with a DisruptionBudget cause. */
function violation(message: string): ApiError {
  return new ApiError(429, VIOLATION, {
    details: { causes: [{ reason: "DisruptionBudget", message }] },
  });
}

/** The budget of the pod, if it has one that forbids evicting it now. */
function checkBudget(call: Call, pod: JsonObject): void {
  const meta = metaOf(pod);
  const labels = isObject(meta.labels) ? meta.labels : {};
  const budgets = call.ctx.objects.store.list(PDBS).filter((pdb) =>
    metaOf(pdb).namespace === meta.namespace &&
    selects(isObject(pdb.spec) ? pdb.spec.selector : undefined, labels)
  );
  if (!budgets.length) return;
  if (budgets.length > 1) {
    throw new ApiError(
      500,
      "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
    );
  }
  const [pdb] = budgets;
  const name = String(metaOf(pdb).name);
  const status = isObject(pdb.status) ? pdb.status : {};
  if (Number(status.observedGeneration ?? 0) < Number(metaOf(pdb).generation ?? 0)) {
    throw violation(`The disruption budget ${name} is still being processed by the server.`);
  }
  const allowed = Number(status.disruptionsAllowed ?? 0);
  if (allowed < 0) throw new ApiError(403, "pdb disruptions allowed is negative");
  if (allowed === 0) {
    throw violation(
      `The disruption budget ${name} needs ${status.desiredHealthy ?? 0} healthy pods and has ${
        status.currentHealthy ?? 0
      } currently`,
    );
  }
}

/** The eviction's delete options. */
function deleteOptionsOf(eviction: JsonObject, call: Call): DeletionOptions {
  const given = isObject(eviction.deleteOptions) ? eviction.deleteOptions : {};
  const pre = isObject(given.preconditions) ? given.preconditions : {};
  const dryRun = call.url.searchParams.get("dryRun") === "All" ||
    (Array.isArray(given.dryRun) && given.dryRun.includes("All"));
  return {
    dryRun,
    preconditions: {
      uid: typeof pre.uid === "string" ? pre.uid : undefined,
      resourceVersion: typeof pre.resourceVersion === "string" ? pre.resourceVersion : undefined,
    },
  };
}

/** Evict a pod: delete it, unless its budget says no (terminal and pending pods have none). */
export async function evict(call: Call, target: Target): Promise<Response> {
  const body = await bodyOf(call.request);
  if (!isObject(body)) throw badRequest("the request body must be a JSON object");
  const name = metaOf(body).name;
  if (name !== undefined && name !== target.name) {
    throw badRequest("name in URL does not match name in Eviction object");
  }
  const { objects, lifecycle } = call.ctx;
  const pod = objects.get(target);
  const phase = isObject(pod.status) ? pod.status.phase : undefined;
  const ignoresBudget = phase === "Succeeded" || phase === "Failed" || phase === "Pending" ||
    metaOf(pod).deletionTimestamp !== undefined;
  if (!ignoresBudget) checkBudget(call, pod);
  objects.delete(target, deleteOptionsOf(body, call));
  lifecycle.settle();
  return json(statusOf(201, "", ""), 201);
}
