/**
 * The sections of `OperatorSettings` on how the operator reaches the API: its watch
 * streams, its regular requests, and its observation of namespaces and CRDs.
 *
 * Apart from `OperatorSettings` itself (`operator_settings.ts`), which gathers and checks
 * the sections: the client reads these without the rest.
 *
 * @module
 */

import type { WatchSelectors } from "./watch_selectors.ts";

/**
 * How watch streams behave (the client's `WatchingOptions`).
 *
 * @example Shorter watch requests behind a proxy that drops idle connections
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.watching.serverTimeout = 300;
 *   settings.watching.clientTimeout = 330;
 *   settings.watching.inactivityTimeout = 90;
 * });
 * ```
 */
export class WatchingSettings {
  /** The server-side limit of one watch request (`timeoutSeconds`); `null` leaves it to the server. */
  serverTimeout: number | null = null;
  /** The client-side limit of one watch request; `null` for none. */
  clientTimeout: number | null = null;
  /** The connect timeout of watch requests; `null` falls back to `networking.connectTimeout`. */
  connectTimeout: number | null = null;
  /** The pause between watch requests, so that errors and disconnects do not flood the API. */
  reconnectBackoff = 0.1;
  /**
   * Reconnect a stream that sent nothing (not even a bookmark) for this long; `null` to wait
   * forever. The server sends bookmarks about every minute and keeps events for 75 seconds.
   */
  inactivityTimeout: number | null = 70;
  /**
   * How the initial (and every later) listing of a watched resource is fetched:
   * `"stream"` as a watch that begins with the current objects and ends them with a
   * bookmark (`sendInitialEvents`, Kubernetes 1.27+, on by default since 1.32); `"paginate"`
   * as list requests of {@link listPageSize} objects each, following `continue` tokens;
   * `"auto"` streams where the server supports it and paginates elsewhere, remembering
   * the fallback per watched resource.
   */
  listMode: "auto" | "stream" | "paginate" = "auto";
  /**
   * The most objects one list request returns (`limit`), and the most objects of a streamed
   * listing passed on at once; client-go's page size by default.
   */
  listPageSize = 500;
  /**
   * Seconds for which a listing waits for the processing to catch up (back-pressure: the
   * rest of the listing stays on the server); afterwards the rest is passed on as it comes
   * and waits in the per-object queues. Waiting keeps the memory low at the start against
   * a big cluster, but the events after the listing (the echoes of the operator's own
   * patches among them) wait behind it. `0` never waits. A listing held for minutes would
   * have to begin anew (continuations expire), hence the bound.
   */
  listPatience = 120;
  /**
   * Ask the API server only for the objects that the handlers' filters can match: the
   * label and field selectors that every handler of a resource requires are sent with its
   * list and watch requests (see the large-clusters guide). `false` lists and watches every
   * object and filters here, as Kopf does.
   */
  selectByFilters = true;
  /**
   * Selectors of one's own for the list and watch requests, on top of the derived ones
   * (e.g. `kopf run -l`): objects outside them are never seen, whatever the handlers'
   * filters. Each entry names a resource as handlers do (`"pods"`,
   * `"kopfexamples.kopf.dev"`), or none for every served resource.
   */
  selectors: WatchSelectors[] = [];
}

/**
 * How regular API requests behave (the client's `NetworkingOptions`).
 *
 * @example Quick failures against a cluster far away
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.networking.requestTimeout = 30;
 *   settings.networking.connectTimeout = 5;
 *   settings.networking.errorBackoffs = [1, 2, 5]; // three retries
 * });
 * ```
 */
export class NetworkingSettings {
  /** The longest a regular request (not a watch) may take; `null` for no limit. */
  requestTimeout: number | null = 300;
  /** The longest a connection may take to be established; `null` for no separate limit. */
  connectTimeout: number | null = null;
  /**
   * Pauses between attempts on network errors, 5xx and 429; a single number means one
   * retry; empty disables retries. About a minute in total by default.
   */
  errorBackoffs: Iterable<number> | number = [1, 1, 2, 3, 5, 8, 13, 21];
  /**
   * Adapt the number of regular requests in flight to what the API server admits: fewer
   * after a 429 (API Priority and Fairness rejects what it cannot queue) or while answers
   * slow down, more while they come back quickly; the requests above the limit wait in the
   * client, those of live changes before those of resumes, timers, daemons and retries.
   * Watches are never counted, as the API server does not count them. `false` sends every
   * request at once, with no limit in the client. For a fixed limit, set the three bounds
   * below to one number.
   */
  adaptiveConcurrency = true;
  /** The limit of regular requests in flight to begin with (it adapts from there). */
  initialConcurrency = 8;
  /** The lowest the limit goes, however hard the API server pushes back. */
  minConcurrency = 1;
  /** The highest the limit goes, however fast the API server answers. */
  maxConcurrency = 256;
}

/**
 * Whether namespaces and CRDs are observed as they come and go.
 *
 * @example Serve only the resources and namespaces that exist when the operator starts
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.scanning.disabled = true;
 * });
 * ```
 */
export class ScanningSettings {
  /** Serve only what exists at startup: no namespace patterns, no CRDs added later. */
  disabled = false;
}
