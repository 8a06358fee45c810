/**
 * The options of the fake cluster and of the identities it makes tokens for.
 *
 * @module
 */

/** Options of {@link FakeCluster.start}. */
export interface FakeClusterOptions {
  /**
   * The port on 127.0.0.1; `0` (the default) picks a free one -- with `state`, the port of
   * the last run when it is free, so that old kubeconfigs still point at the cluster.
   */
  port?: number;
  /**
   * Serve HTTPS with a certificate authority generated at start. Off by default: plain
   * HTTP keeps tests simple (any `fetch()` reaches the cluster), and the kubeconfig it
   * writes is accepted by every client all the same.
   */
  tls?: boolean;
  /**
   * The bearer token clients must send; `false` lets anyone in. By default a random
   * token with `tls`, none over plain HTTP (kubectl never sends tokens over plain HTTP).
   */
  token?: string | false;
  /**
   * Also accept client certificates issued by the cluster's CA (needs `tls`); the
   * kubeconfig and connection info then carry one (user `kopf-fake-admin`), and no token
   * is made up unless `token` is given.
   */
  clientCertificates?: boolean;
  /**
   * A state file: the cluster is loaded from it at start and saved to it on stop -- its
   * objects, and its identity (the CA and serving certificate, the admin's token and
   * client certificate, the tokens issued to users and service accounts, the port), so
   * that clients with the kubeconfig of an earlier run reconnect as to a restarted API
   * server. It holds private keys and tokens: it is written readable by its owner only.
   */
  state?: string;
  /** How many changes the history keeps for watches to resume from (10,000 by default). */
  historySize?: number;
  /**
   * Seconds after its last write when an Event (core `v1` or `events.k8s.io`) is deleted,
   * as kube-apiserver's `--event-ttl` (3600, its default, by default); `0` keeps Events
   * forever. Watchers see a `DELETED` event; it comes at most min(a tenth of the TTL,
   * 60 s) late, as a real server's lease reuse allows.
   */
  eventTtl?: number;
  /** Seconds between BOOKMARK events on watches that allow them (10 by default). */
  bookmarkInterval?: number;
  /**
   * Whether watches may begin with the current objects, ended by a bookmark
   * (`sendInitialEvents=true`), as Kubernetes 1.32+ does by default (true by default).
   * `false` answers like an older server (or one with the WatchList feature off): such a
   * watch is refused with a 422 (`resourceVersionMatch` is forbidden for watches), so that
   * clients fall back to paginated lists.
   */
  streamingLists?: boolean;
  /**
   * Authorize every request with RBAC, as a real cluster does: Roles, ClusterRoles and
   * their bindings decide what each user may do, and the rest is a 403. The cluster's
   * own token (always made up with RBAC, unless `token` is given) and client certificate
   * stay admins (`system:masters`); {@link FakeCluster.tokenFor} and
   * {@link FakeCluster.serviceAccountToken} make tokens for others, and requests without
   * credentials are `system:anonymous`. Also serves the access reviews (`kubectl auth
   * can-i`), `TokenRequest`s, and the default discovery roles.
   */
  rbac?: boolean;
  /**
   * Serve at most this many requests at once, as kube-apiserver's API Priority and
   * Fairness does for a priority level (a whole number, at least 1); none by default.
   * Watches hold a place only while they are set up, and other long-running requests
   * (exec, attach, logs, port forwarding, proxies) none; health checks (`/healthz`,
   * `/livez`, `/readyz`) are exempt, as by the `probes` flow schema. Every request held to
   * the limit is answered with the `X-Kubernetes-PF-FlowSchema-UID` and
   * `X-Kubernetes-PF-PriorityLevel-UID` headers; the cluster's admin is held too (a real
   * cluster exempts `system:masters`), since its credentials stand in for an operator's.
   */
  maxInflight?: number;
  /**
   * With `maxInflight`: how many more requests may wait, first come first served (as many
   * as `maxInflight` by default; 0 for none). A request waits at most a quarter of its
   * deadline (60 s, or its `timeout` parameter when shorter), then gets a 429; so does one
   * that finds the queue full: plain text, `Retry-After` (1 s, doubling up to 32 while
   * requests keep being rejected), and the same headers. `cluster.traffic.flowControl`
   * counts them, and the request log marks them `throttled`.
   */
  maxQueued?: number;
}

/** Who {@link FakeCluster.tokenFor} makes a token for. */
export interface FakeUser {
  /** The user name, e.g. `alice` or `system:serviceaccount:default:op`. */
  user: string;
  /** The groups (`system:authenticated` is added). */
  groups?: readonly string[];
}

/** Options of {@link FakeCluster.serviceAccountToken}. */
export interface FakeTokenOptions {
  /** How long the token is valid, in seconds (3600 by default, at least 600). */
  expirationSeconds?: number;
  /** Whom the token is for; the API server by default. */
  audiences?: readonly string[];
}
