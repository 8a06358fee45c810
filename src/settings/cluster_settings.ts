/**
 * The sections of `OperatorSettings` on the operator's place in the cluster beside its
 * watches: the admission webhook server it serves, the servers of its probes and metrics,
 * the peers it pauses for, and leader election and sharding across its replicas.
 *
 * Apart from `OperatorSettings` itself (`operator_settings.ts`), which gathers and checks
 * the sections.
 *
 * @module
 */

/**
 * How admission requests reach the operator, and the bounds its webhook server holds every
 * client to: the server listens on the network before any client is known, so a client
 * that sends too much or too slowly is cut off rather than waited for.
 *
 * @example Serve the admission handlers and keep their webhook configurations up to date
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.admission.server = new kopf.WebhookAutoServer({ port: 9443 });
 *   settings.admission.managed = "example.com";
 * });
 * ```
 */
export class AdmissionSettings {
  /**
   * The webhook server or tunnel (e.g. `new kopf.WebhookServer()`; the admission engine defines
   * what it calls on it); `null` serves no admission handlers.
   */
  server: object | null = null;
  /** The name of the webhook configurations the operator keeps up to date; `null` for none. */
  managed: string | null = null;
  /**
   * The largest review request body, in bytes; larger ones get 413, unread. 7 MiB, as
   * controller-runtime: an object and its old version at the API server's size limits,
   * with the review around them.
   */
  bodyLimit: number = 7 * 1024 * 1024;
  /**
   * The most bytes of request bodies held at once across all connections (the server's
   * memory for bodies); a request that would pass it gets 503. At least `bodyLimit`.
   */
  bufferLimit: number = 64 * 1024 * 1024;
  /**
   * Seconds from a connection's start (TLS handshake included) to its first request's
   * complete head; for a later request of a kept-alive connection, from its first byte.
   */
  headerTimeout = 10;
  /**
   * Seconds for a request's body to arrive after its head, and for the answer to be sent.
   * The API server waits 30 seconds at most for a webhook, so a slower request is moot.
   */
  bodyTimeout = 30;
  /** Seconds a kept-alive connection may wait for its next request. */
  idleTimeout = 30;
  /**
   * The most connections open at once from one client address; more from it are closed as
   * they arrive, unanswered, while other clients are still served. Room for one API server
   * with 128 reviews in flight (over HTTP/1.1, one connection each).
   */
  clientConnectionLimit = 128;
  /**
   * The most connections open at once in all (more are closed as they arrive): a backstop
   * against many clients at once, eight clients' shares wide.
   */
  connectionLimit = 1024;
}

/**
 * The bounds the servers of the liveness probe, the readiness probe and the metrics hold
 * every client to (they take no request body). Their clients are the kubelet, which opens
 * a connection per probe (no keep-alive), and the scrapers, which keep one each; any pod
 * that reaches the port may call too, so no client may hold more than its share.
 *
 * @example Room for more scrapers behind one address (e.g. a proxy in front of them)
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.endpoints.clientConnectionLimit = 32;
 * });
 * ```
 */
export class EndpointSettings {
  /**
   * Seconds from a connection's start to its first request's complete head (a probe sends
   * it at once); for a later request of a kept-alive connection, from its first byte.
   */
  headerTimeout = 10;
  /** Seconds to send the answer. */
  bodyTimeout = 10;
  /** Seconds a kept-alive connection may wait for its next request (scrapers keep theirs). */
  idleTimeout = 30;
  /**
   * The most connections open at once from one client address; more from it are closed as
   * they arrive, unanswered, while other clients are still served.
   */
  clientConnectionLimit = 8;
  /**
   * The most connections open at once in all (more are closed as they arrive): a backstop
   * against many clients at once, 32 clients' shares wide.
   */
  connectionLimit = 256;
}

/**
 * How several operators of the same objects see each other.
 *
 * @example Deployments of one operator in a peering: the highest priority handles, others pause
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.peering.name = "example";
 *   settings.peering.priority = 100; // the standby deployment keeps the default, 0
 *   settings.peering.mandatory = true;
 * });
 * ```
 */
export class PeeringSettings {
  /** The peering object's name: operators in different peerings do not see each other. */
  name = "default";
  /** The priority: lower-priority operators pause while a higher one runs. */
  priority = 0;
  /** How long this operator's peering record stays valid without a refresh. */
  lifetime = 60;
  /** Fail (rather than run standalone) when the peering object is absent. */
  mandatory = false;
  /** Ignore peering entirely, even if a peering object exists. */
  standalone = false;
  /** Do not log the regular keep-alives (they are still sent). */
  stealth = false;
  /** Use the cluster-scoped peering rather than the namespaced one. */
  clusterwide = false;

  /** The inverse of `clusterwide`. */
  get namespaced(): boolean {
    return !this.clusterwide;
  }
  set namespaced(value: boolean) {
    this.clusterwide = !value;
  }
}

/**
 * How several replicas of the operator share the work through Leases
 * (`coordination.k8s.io/v1`), as client-go's leader election does: either one leader
 * handles everything while the others wait on standby (`leaderElection`), or the objects
 * are split into `shards`, each handled by the one replica that holds its Lease. The
 * timings are client-go's: a holder renews every `retryPeriod`, gives up if it could not
 * renew for `renewDeadline`, and others take over `leaseDuration` after its last renewal.
 *
 * @example Replicas of one Deployment: an elected leader handles, the others stand by
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.leadership.leaderElection = true;
 *   settings.leadership.name = "example-operator";
 *   settings.leadership.namespace = "operators";
 * });
 * ```
 */
export class LeadershipSettings {
  /** Elect one leader among the replicas; the others keep their watches warm on standby. */
  leaderElection = false;
  /** Split the objects into this many shards by their uid; 1 for no sharding. */
  shards = 1;
  /** The Lease's name (with sharding, the prefix of the shards' and members' Leases). */
  name = "kopf-operator";
  /** The Leases' namespace; `null`: the credentials' (a pod's own), else `default`. */
  namespace: string | null = null;
  /** Seconds a holder may go without renewing before another replica takes over. */
  leaseDuration = 15;
  /** Seconds a holder keeps trying to renew before it gives up handling. */
  renewDeadline = 10;
  /** Seconds between attempts to acquire or renew. */
  retryPeriod = 2;

  /** Whether the replicas coordinate through Leases at all. */
  get enabled(): boolean {
    return this.leaderElection || this.shards > 1;
  }
}
