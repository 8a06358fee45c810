/**
 * The operator's HTTP endpoints, for the orchestrator and for monitoring:
 *
 * - liveness (e.g. `http://0.0.0.0:8080/healthz`, as in Kopf): the results of the probe
 *   handlers as JSON -- `{}` when there are none -- cached for a few seconds, so that
 *   frequent probing does not overload the operator; a failing probe answers 500;
 * - readiness (`/readyz` beside every other endpoint): 200 once the initial listings are
 *   in and the indices populated, 503 while the operator starts, is paused by a peer, or
 *   stops;
 * - metrics (e.g. `http://0.0.0.0:9090/metrics`): the Prometheus text format.
 *
 * Endpoints on the same host and port share one server; others get one each. They answer
 * `GET` and `HEAD` only (405 otherwise) and take no request body (413); every client is
 * held to the bounds of `settings.endpoints` ({@link endpointLimits}): read timeouts, and a
 * share of the connections per client address, so that no client's idle sockets make the
 * kubelet's probes fail.
 *
 * @module
 */

import { ConfigurationError } from "../structs/errors.ts";
import { EndpointSettings } from "../settings/cluster_settings.ts";
import { realClock } from "../structs/clock.ts";
import { describeError } from "../structs/log_formats.ts";
import type { HttpServer, HttpServerLimits } from "../platform/http_server.ts";
import type { MetricsRegistry } from "../structs/metrics.ts";
import { type ActivityContext, runProbes } from "./activities.ts";
import { outsideContexts } from "../platform/async_context.ts";

/** Answers the requests of one path. */
export type EndpointRoute = () => Response | Promise<Response>;

/** The operator's endpoints: routes by URL (`http://host:port/path`). */
export type EndpointRoutes = ReadonlyMap<string, EndpointRoute>;

/** The running endpoints. */
export interface RunningEndpoints {
  /** The URLs answered at (with the real ports when port 0 was asked for). */
  readonly urls: readonly string[];
  /** Stop listening. */
  close(): Promise<void>;
}

/** The path of the readiness probe, served beside every other endpoint. */
export const READINESS_PATH = "/readyz";

/**
 * The bounds of the endpoints' clients (probes, scrapers): no request body, and the
 * timeouts and connection slots of `settings.endpoints` (its defaults when omitted).
 */
export function endpointLimits(settings = new EndpointSettings()): HttpServerLimits {
  const { headerTimeout, bodyTimeout, idleTimeout, clientConnectionLimit, connectionLimit } =
    settings;
  return {
    bodyLimit: 0,
    headerTimeout,
    bodyTimeout,
    idleTimeout,
    clientConnectionLimit,
    connectionLimit,
  };
}

/** The methods the endpoints answer: reading only. */
const METHODS: ReadonlySet<string> = new Set(["GET", "HEAD"]);

/** The parts of an endpoint URL; only plain HTTP is supported. */
export function parseEndpoint(
  endpoint: string,
  what = "liveness",
): { hostname: string; port: number; path: string } {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new ConfigurationError(
      `The ${what} endpoint ${JSON.stringify(endpoint)} is not a URL; ` +
        `give one like http://0.0.0.0:8080/${what === "metrics" ? "metrics" : "healthz"}.`,
    );
  }
  if (url.protocol !== "http:") {
    throw new ConfigurationError(
      `The ${what} endpoint ${JSON.stringify(endpoint)} must use http:// (only HTTP is supported).`,
    );
  }
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return { hostname, port: url.port === "" ? 80 : Number(url.port), path: url.pathname || "/" };
}

/**
 * The liveness probe: the probe handlers' results as JSON, reused for `cacheSeconds` (10
 * by default); 500 with the error when a probe fails.
 */
export function livenessRoute(
  options: ActivityContext & { readonly cacheSeconds?: number },
): EndpointRoute {
  const cacheMs = (options.cacheSeconds ?? 10) * 1000;
  let cached: { at: number; body: Promise<string> } | undefined;
  const probe = (): Promise<string> => {
    const now = realClock.now() * 1000;
    if (cached === undefined || now - cached.at >= cacheMs) {
      const body = runProbes(options).then((results) => JSON.stringify(results));
      cached = { at: now, body };
      body.catch(() => (cached = undefined)); // failures are not cached
    }
    return cached.body;
  };
  return async () => {
    try {
      return new Response(await probe(), { headers: { "content-type": "application/json" } });
    } catch (error) {
      return new Response(JSON.stringify({ error: describeError(error) }), {
        status: 500,
        headers: { "content-type": "application/json" },
      });
    }
  };
}

/**
 * What the readiness probe tells about the operator as a whole: the operator keeps it up
 * to date as its state changes, and the probe reads it when asked.
 */
export class Readiness {
  /** The initial listings are in and the indices populated. */
  ready = false;
  /** A peer of a higher priority pauses the operator. */
  paused = false;
  /** The operator is stopping. */
  stopping = false;
  /** Another replica handles the objects (leader election), or no shard is held. */
  standby = false;
  /** Whether the operator answers admission reviews (then a standby is not ready). */
  webhooks = false;

  /** `true` when ready, else why not. */
  verdict(): string | true {
    if (this.stopping) return "stopping";
    if (this.paused) return "paused by a peer of a higher priority";
    // A standby's webhook server is down: the Service must send reviews to the leader only.
    if (this.standby && this.webhooks) return "on standby: another replica leads";
    if (!this.ready) return "starting: the initial listings are not all in";
    return true;
  }
}

/** The readiness probe: 200 when ready, else 503 with the reason. */
export function readinessRoute(readiness: Readiness): EndpointRoute {
  return () => {
    const state = readiness.verdict();
    return state === true
      ? new Response("ready\n", { headers: { "content-type": "text/plain" } })
      : new Response(`not ready: ${state}\n`, {
        status: 503,
        headers: { "content-type": "text/plain" },
      });
  };
}

/** The metrics: the registry's exposition in the Prometheus text format. */
export function metricsRoute(registry: MetricsRegistry): EndpointRoute {
  return () =>
    new Response(registry.expose(), { headers: { "content-type": registry.contentType } });
}

/**
 * Listen for the routes: one server per host and port; `/readyz` (if given) is added to
 * each server that does not route it otherwise. Every client is held to `limits`
 * ({@link endpointLimits} of the default settings when omitted).
 */
export async function startEndpoints(
  routes: EndpointRoutes,
  readiness?: EndpointRoute,
  limits: HttpServerLimits = endpointLimits(),
): Promise<RunningEndpoints> {
  const servers = new Map<
    string,
    { hostname: string; port: number; paths: Map<string, EndpointRoute> }
  >();
  for (const [url, route] of routes) {
    const { hostname, port, path } = parseEndpoint(url);
    const key = `${hostname}:${port}`;
    let server = servers.get(key);
    if (server === undefined) servers.set(key, server = { hostname, port, paths: new Map() });
    server.paths.set(path, route);
  }
  const started: HttpServer[] = [];
  const urls: string[] = [];
  // The server's code loads with the first endpoint: an operator without probes never loads it.
  const { startHttpServer } = await outsideContexts(() => import("../platform/http_server.ts"));
  try {
    for (const { hostname, port, paths } of servers.values()) {
      if (readiness !== undefined && !paths.has(READINESS_PATH)) {
        paths.set(READINESS_PATH, readiness);
      }
      const server = await startHttpServer({
        hostname,
        port,
        limits,
        name: "The probe and metrics server",
        handler: (request) => {
          const route = paths.get(new URL(request.url).pathname);
          if (route === undefined) return new Response(null, { status: 404 });
          if (!METHODS.has(request.method)) {
            return new Response(null, { status: 405, headers: { allow: "GET, HEAD" } });
          }
          return route();
        },
      });
      started.push(server);
      const host = server.hostname.includes(":") ? `[${server.hostname}]` : server.hostname;
      for (const path of paths.keys()) urls.push(`http://${host}:${server.port}${path}`);
    }
  } catch (error) {
    await Promise.all(started.map((server) => server.close()));
    throw error;
  }
  return { urls, close: async () => void await Promise.all(started.map((s) => s.close())) };
}
