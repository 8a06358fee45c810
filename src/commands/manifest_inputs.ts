/**
 * What `kopf manifests` makes the manifests for ({@link ManifestInput}): the operator's
 * handlers and settings, the cluster's resource types, the scope, the image and names, the
 * rules declared for the handlers' own API calls, and how the replicas coordinate.
 *
 * @module
 */
import type { Resource } from "../structs/resources.ts";
import { matcherOf, type OperatorRegistry } from "../intents/registry.ts";
import type { OperatorSettings } from "../settings/operator_settings.ts";

/** An RBAC rule, as in a Role. */
export interface RbacRule {
  /** API groups; `""` is the core group. */
  readonly apiGroups: readonly string[];
  /** Resources, and subresources as `plural/sub`. */
  readonly resources: readonly string[];
  /** Verbs. */
  readonly verbs: readonly string[];
  /** Only these objects (by name), when given. */
  readonly resourceNames?: readonly string[];
}

/** A rule with the scope of its resource: namespaced rules go where the served ones go. */
export interface ScopedRule extends RbacRule {
  /** Whether the resource lives in namespaces. */
  readonly namespaced: boolean;
}

/** What the manifests are made for. */
export interface ManifestInput {
  /** The operator's handlers. */
  readonly registry: OperatorRegistry;
  /** The operator's settings (defaults unless the operator's module changed them). */
  readonly settings: OperatorSettings;
  /** The resource types of the cluster (built-in ones and the CRDs given). */
  readonly resources: readonly Resource[];
  /** Serve the whole cluster. */
  readonly clusterwide: boolean;
  /** The namespace patterns served otherwise. */
  readonly namespaces: readonly string[];
  /** No peering at all. */
  readonly standalone: boolean;
  /** The peering object's name, when one is named. */
  readonly peeringName?: string;
  /** The image of the operator (built by the Dockerfile recipe). */
  readonly image: string;
  /** The name of the ServiceAccount, roles, bindings and Deployment. */
  readonly name: string;
  /** The namespace of the ServiceAccount and the Deployment. */
  readonly namespace: string;
  /** Serve metrics at this port (and declare it), if asked for. */
  readonly metricsPort?: number;
  /**
   * The port of the webhook server, for operators with admission handlers: a Service
   * reaches it there (9443 by default).
   */
  readonly webhookPort?: number;
  /**
   * Rules for the handlers' own API calls (what they create, read or change beyond the
   * objects they serve), as `--rule` declares them; namespaced or cluster-wide by the
   * resource's scope.
   */
  readonly rules?: readonly ScopedRule[];
  /**
   * How several replicas share the work, if they do: leader election, or a number of
   * shards (`kopf run --leader-election` / `--shards`). The Lease is named after the
   * Deployment and lives in its namespace.
   */
  readonly leadership?: { readonly leaderElection: boolean; readonly shards: number };
  /** The Deployment's replicas: 2 with leader election, the shards with sharding, else 1. */
  readonly replicas?: number;
  /**
   * Keep the runtime's public root CAs (Mozilla's) trusted in the pods, for handlers that
   * call public HTTPS services with the global `fetch`. By default the Deployment empties
   * Deno's root store, so that the operator trusts the cluster's CA alone.
   */
  readonly publicRoots?: boolean;
}

/** Whether the replicas coordinate through Leases (leader election, or more than one shard). */
export function coordinated(input: ManifestInput): boolean {
  return input.leadership !== undefined &&
    (input.leadership.leaderElection || input.leadership.shards > 1);
}

/** How many replicas the Deployment runs. */
export function replicasOf(input: ManifestInput): number {
  if (input.replicas !== undefined) return input.replicas;
  if (!coordinated(input)) return 1;
  return input.leadership!.leaderElection ? 2 : input.leadership!.shards;
}

/** Whether the operator has admission handlers. */
export function hasWebhooks(input: ManifestInput): boolean {
  return matcherOf(input.registry).handlers.some((h) => h.kind === "webhook");
}
