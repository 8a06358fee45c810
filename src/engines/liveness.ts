/**
 * The liveness endpoint: an HTTP listener (e.g. `http://0.0.0.0:8080/healthz`) answering
 * the orchestrator's liveness probes with the results of the probe handlers as JSON —
 * `{}` when there are none. Results are cached for a few seconds, so that frequent
 * probing does not overload the operator; a failing probe answers 500.
 *
 * @module
 */

import { ConfigurationError } from "../structs/errors.ts";
import { realClock } from "../structs/clock.ts";
import { describeError } from "../structs/log_formats.ts";
import { type HttpServer, startHttpServer } from "../platform/http_server.ts";
import { type ActivityOptions, runProbes } from "./activities.ts";

/** Options of {@link startLivenessEndpoint}. */
export interface LivenessOptions extends ActivityOptions {
  /** Where to listen: `http://host:port/path`; the path defaults to `/`. */
  readonly endpoint: string;
  /** Seconds to reuse the probes' results (10 by default). */
  readonly cacheSeconds?: number;
}

/** A running liveness endpoint. */
export interface LivenessEndpoint {
  /** The URL it answers at (with the real port when port 0 was asked for). */
  readonly url: string;
  /** Stop listening. */
  close(): Promise<void>;
}

/** The parts of a liveness endpoint URL; only plain HTTP is supported. */
export function parseLivenessEndpoint(
  endpoint: string,
): { hostname: string; port: number; path: string } {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new ConfigurationError(
      `The liveness endpoint ${JSON.stringify(endpoint)} is not a URL; ` +
        "give one like http://0.0.0.0:8080/healthz.",
    );
  }
  if (url.protocol !== "http:") {
    throw new ConfigurationError(
      `The liveness endpoint ${
        JSON.stringify(endpoint)
      } must use http:// (only HTTP is supported).`,
    );
  }
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return { hostname, port: url.port === "" ? 80 : Number(url.port), path: url.pathname || "/" };
}

/** Start answering liveness probes at `options.endpoint`. */
export async function startLivenessEndpoint(options: LivenessOptions): Promise<LivenessEndpoint> {
  const { hostname, port, path } = parseLivenessEndpoint(options.endpoint);
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
  const server: HttpServer = await startHttpServer({
    hostname,
    port,
    handler: async (request) => {
      if (new URL(request.url).pathname !== path) return new Response(null, { status: 404 });
      try {
        return new Response(await probe(), { headers: { "content-type": "application/json" } });
      } catch (error) {
        return new Response(JSON.stringify({ error: describeError(error) }), {
          status: 500,
          headers: { "content-type": "application/json" },
        });
      }
    },
  });
  return {
    url: `http://${
      server.hostname.includes(":") ? `[${server.hostname}]` : server.hostname
    }:${server.port}${path}`,
    close: () => server.close(),
  };
}
