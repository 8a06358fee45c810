/**
 * The default ClusterRoles and ClusterRoleBindings that kube-apiserver keeps in every
 * cluster with RBAC on, as far as a fake cluster needs them: `cluster-admin` (bound to
 * `system:masters`), and the roles that let every user discover the API
 * (`system:discovery`), review its own access (`system:basic-user`) and read the
 * version and health (`system:public-info-viewer`, for anonymous users too).
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, PRIVILEGED_GROUP, RBAC_GROUP } from "./rbac.ts";

/** The labels and annotations kube-apiserver puts on the roles it keeps. */
const BOOTSTRAP = {
  labels: { "kubernetes.io/bootstrapping": "rbac-defaults" },
  annotations: { "rbac.authorization.kubernetes.io/autoupdate": "true" },
};

function clusterRole(name: string, rules: JsonObject[]): JsonObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: "ClusterRole",
    metadata: { name, ...structuredClone(BOOTSTRAP) },
    rules,
  };
}

function clusterRoleBinding(name: string, groups: string[]): JsonObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: "ClusterRoleBinding",
    metadata: { name, ...structuredClone(BOOTSTRAP) },
    roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name },
    subjects: groups.map((group) => ({ apiGroup: RBAC_GROUP, kind: "Group", name: group })),
  };
}

const PUBLIC_INFO = ["/healthz", "/livez", "/readyz", "/version", "/version/"];

/** The default ClusterRoles. */
export function defaultClusterRoles(): JsonObject[] {
  return [
    clusterRole("cluster-admin", [
      { apiGroups: ["*"], resources: ["*"], verbs: ["*"] },
      { nonResourceURLs: ["*"], verbs: ["*"] },
    ]),
    clusterRole("system:discovery", [{
      nonResourceURLs: [
        "/api",
        "/api/*",
        "/apis",
        "/apis/*",
        ...PUBLIC_INFO,
        "/openapi",
        "/openapi/*",
      ].sort(),
      verbs: ["get"],
    }]),
    clusterRole("system:basic-user", [
      {
        apiGroups: ["authorization.k8s.io"],
        resources: ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
        verbs: ["create"],
      },
      {
        apiGroups: ["authentication.k8s.io"],
        resources: ["selfsubjectreviews"],
        verbs: ["create"],
      },
    ]),
    clusterRole("system:public-info-viewer", [{ nonResourceURLs: PUBLIC_INFO, verbs: ["get"] }]),
  ];
}

/** The default ClusterRoleBindings. */
export function defaultClusterRoleBindings(): JsonObject[] {
  return [
    clusterRoleBinding("cluster-admin", [PRIVILEGED_GROUP]),
    clusterRoleBinding("system:discovery", [ALL_AUTHENTICATED]),
    clusterRoleBinding("system:basic-user", [ALL_AUTHENTICATED]),
    clusterRoleBinding("system:public-info-viewer", [ALL_AUTHENTICATED, ALL_UNAUTHENTICATED]),
  ];
}
