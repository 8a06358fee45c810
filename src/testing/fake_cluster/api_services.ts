/**
 * The API server's own APIService objects: one per group version it serves, made on start
 * as the aggregator's autoregister controller makes them (`apiServicesToRegister` in
 * pkg/controlplane/apiserver/aggregator.go), `Local` and always available.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import type { Catalog } from "./catalog.ts";
import { GROUP_PRIORITIES } from "./discovery.ts";
import { timestamp } from "./metadata.ts";

/** Version priorities that are not the usual 15 of a GA version. */
const VERSION_PRIORITIES: Readonly<Record<string, number>> = {
  "/v1": 1,
  "autoscaling/v2": 30,
  "flowcontrol.apiserver.k8s.io/v1": 21,
};
const GA_VERSION_PRIORITY = 15;

/** The local APIServices of the built-in group versions the catalog serves. */
export function localApiServices(catalog: Catalog): JsonObject[] {
  const versions = new Map<string, Set<string>>();
  for (const type of catalog.all()) {
    if (!type.builtin || type.crd || GROUP_PRIORITIES[type.group] === undefined) continue;
    for (const version of type.versions) {
      versions.set(type.group, (versions.get(type.group) ?? new Set()).add(version.name));
    }
  }
  const now = timestamp();
  const services: JsonObject[] = [];
  for (const [group, names] of versions) {
    // The aggregator serves its own group; it registers no APIService for it.
    if (group === "apiregistration.k8s.io") continue;
    for (const version of names) {
      services.push({
        apiVersion: "apiregistration.k8s.io/v1",
        kind: "APIService",
        metadata: {
          name: `${version}.${group}`,
          labels: { "kube-aggregator.kubernetes.io/automanaged": "onstart" },
        },
        spec: {
          group,
          version,
          groupPriorityMinimum: GROUP_PRIORITIES[group],
          versionPriority: VERSION_PRIORITIES[`${group}/${version}`] ?? GA_VERSION_PRIORITY,
        },
        status: {
          conditions: [{
            type: "Available",
            status: "True",
            lastTransitionTime: now,
            reason: "Local",
            message: "Local APIServices are always available",
          }],
        },
      });
    }
  }
  return services;
}

/** A local APIService with the metadata the server gives a new object. */
export function apiServiceMeta(service: JsonObject): JsonObject {
  const meta = service.metadata as JsonObject;
  return {
    ...service,
    metadata: { ...meta, uid: crypto.randomUUID(), creationTimestamp: timestamp() },
  };
}
