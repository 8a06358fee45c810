/**
 * What the handlers of the fake API server work with: the cluster's parts, and one request
 * as read at the entry (its path, user, and for resources the target and rendering).
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import type { Admission } from "./admission.ts";
import type { Authenticator } from "./authentication.ts";
import type { Catalog } from "./catalog.ts";
import type { FakeClusterFaults, RequestResource } from "./faults.ts";
import type { FlowControl } from "./flow_control.ts";
import type { Lifecycle } from "./lifecycle.ts";
import type { Objects } from "./objects.ts";
import type { Target } from "./targets.ts";
import type { RbacAuthorizer, UserInfo } from "./rbac.ts";
import type { ServedRequest } from "./request_log.ts";
import type { RequestPath } from "./request_path.ts";
import type { Rendering } from "./renderings.ts";
import type { IncludeObject } from "./tables.ts";
import type { Traffic } from "./traffic.ts";
import type { WatchHub } from "./watch.ts";

/** Everything the router needs from the cluster. */
export interface RouterContext {
  catalog: Catalog;
  objects: Objects;
  lifecycle: Lifecycle;
  watches: WatchHub;
  faults: FakeClusterFaults;
  /** Who sends each request. */
  authenticator: Authenticator;
  /** The RBAC authorizer, when RBAC is on; without it, every request is allowed. */
  authorizer?: RbacAuthorizer;
  /** The admission webhooks. */
  admission: Admission;
  /** What the server has sent, per resource. */
  traffic: Traffic;
  /** API Priority and Fairness, when the cluster has limits; without, nothing is held. */
  flowControl?: FlowControl;
  /** The `host:port` clients reach the server at. */
  serverAddress(): string;
  /** Record a served request. */
  log(entry: ServedRequest): void;
}

/** One request, as read once at the entry. */
export interface Call {
  readonly ctx: RouterContext;
  readonly request: Request;
  readonly url: URL;
  /** The path, as authorized: routing reads the same one. */
  readonly path: RequestPath;
  /** Who it acts as (after impersonation). */
  readonly user: UserInfo;
  /** Note the Kubernetes verb and resource, for the request log and fault injection. */
  setVerb(verb: string, resource?: RequestResource): void;
}

/** A request to a resource, with what it addresses and how to answer it. */
export interface ResourceCall extends Call {
  /** What it addresses: the type, version, namespace, name and subresource. */
  readonly target: Target;
  /** The query parameters. */
  readonly params: URLSearchParams;
  /** How objects are rendered: as they are, as a Table, or as metadata only. */
  readonly rendering: Rendering;
  /** The `apiVersion` of `meta.k8s.io` renderings: `meta.k8s.io/v1` unless asked otherwise. */
  readonly metaApiVersion: string;
  /** What a Table row includes of its object. */
  readonly include: IncludeObject;
  /** One object as the rendering asks for. */
  render(object: JsonObject): JsonObject;
}
