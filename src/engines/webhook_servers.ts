/**
 * What a webhook server is to the admission engine: the function it is given to answer
 * reviews ({@link WebhookFn}), what it gets when it starts, the client configs it yields
 * (under which the cluster reaches it), and the error it answers with HTTP 400. The
 * servers themselves live in the kits.
 *
 * @module
 */
import type { AdmissionReviewResponse } from "../structs/admission_reviews.ts";
import type { Logger } from "../structs/loggers.ts";
import { AdmissionSettings } from "../settings/cluster_settings.ts";

/** How the cluster reaches a webhook server: what goes to `webhooks[].clientConfig`. */
export interface WebhookClientConfig {
  /** The HTTPS URL of the server; the handler's id is appended as the last path segment. */
  url?: string;
  /** The PEM CA bundle that signed the server's certificate, base64-encoded. */
  caBundle?: string;
  /** An in-cluster service in front of the server; the handler's id is appended to its path. */
  service?: {
    /** The service's namespace. */
    namespace: string;
    /** The service's name. */
    name: string;
    /** The path prefix. */
    path?: string;
    /** The service port; 443 by default. */
    port?: number;
  };
}

/**
 * Answers one review request: what the framework gives to a webhook server. It rejects
 * ({@link AdmissionRequestError}) only when the request is not a review request at all.
 */
export type WebhookFn = (
  request: unknown,
  /** What a webhook server passes along with a review request. */
  info?: {
    /** The webhook (handler id) named by the request's URL; all handlers when omitted. */
    readonly webhook?: string;
    /** The HTTP headers of the request, names in lowercase. */
    readonly headers?: Readonly<Record<string, string>>;
    /** The client certificate of the caller, when it presented one the server trusts. */
    readonly sslpeer?: Readonly<Record<string, unknown>> | null;
  },
) => Promise<AdmissionReviewResponse>;

/** What a webhook server passes along with a review request. */
export type WebhookRequestInfo = NonNullable<Parameters<WebhookFn>[1]>;

/** What a webhook server gets when it starts. */
export interface AdmissionServerContext {
  /** Aborted when the operator stops: close the server and end the iteration then. */
  readonly signal: AbortSignal;
  /** Where the server says what it does. */
  readonly logger: Logger;
  /**
   * Facts about the cluster, for servers that adapt to it (e.g. the auto-detecting ones);
   * `undefined` when there is no cluster to ask.
   */
  readonly cluster?: {
    /** The API server's version string, e.g. `v1.31.1+k3s1`. */
    gitVersion(): Promise<string | undefined>;
    /** The labels of the cluster's nodes (empty when they cannot be listed). */
    nodeLabels(): Promise<readonly Readonly<Record<string, string>>[]>;
  };
  /**
   * The bounds to hold every client to (body size, read timeouts, connections per client
   * and in all): those of `settings.admission`; its defaults when omitted.
   */
  readonly limits?: Readonly<
    Pick<
      AdmissionSettings,
      | "bodyLimit"
      | "bufferLimit"
      | "headerTimeout"
      | "bodyTimeout"
      | "idleTimeout"
      | "clientConnectionLimit"
      | "connectionLimit"
    >
  >;
}

/** What can be learned about the cluster the operator runs against. */
export type ClusterFacts = NonNullable<AdmissionServerContext["cluster"]>;

/** The bounds a webhook server holds every client to: the fields of `settings.admission`. */
export type AdmissionServerLimits = NonNullable<AdmissionServerContext["limits"]>;

/** The limits of `settings.admission` (of the defaults without it), for a webhook server. */
export function admissionServerLimits(
  settings: AdmissionSettings = new AdmissionSettings(),
): AdmissionServerLimits {
  const { bodyLimit, bufferLimit, headerTimeout, bodyTimeout, idleTimeout } = settings;
  const { clientConnectionLimit, connectionLimit } = settings;
  return {
    bodyLimit,
    bufferLimit,
    headerTimeout,
    bodyTimeout,
    idleTimeout,
    clientConnectionLimit,
    connectionLimit,
  };
}

/**
 * A webhook server or tunnel: `serve` starts it and yields the client config under which
 * the cluster reaches it (again whenever that changes); it calls `fn` for each review
 * request and ends when `context.signal` aborts. An iteration that ends or fails
 * before that stops the operator.
 */
export interface AdmissionServer {
  /** Start serving; see the interface docs. */
  serve(fn: WebhookFn, context: AdmissionServerContext): AsyncIterable<WebhookClientConfig>;
}

/** A plain function that serves like {@link AdmissionServer.serve}. */
export type AdmissionServerFn = (
  fn: WebhookFn,
  context: AdmissionServerContext,
) => AsyncIterable<WebhookClientConfig>;

/**
 * The request is not an `AdmissionReview` request; servers answer it with HTTP 400.
 *
 * @example A webhook server of one's own answers anything but a review with HTTP 400
 * ```ts
 * import { type AdmissionServer, kopf } from "@kopf/kopf";
 *
 * const server: AdmissionServer = {
 *   async *serve(fn, { signal }) {
 *     const http = Deno.serve({ port: 9443, signal }, async (request) => {
 *       try {
 *         return Response.json(await fn(await request.json()));
 *       } catch (error) {
 *         if (!(error instanceof kopf.AdmissionRequestError)) throw error;
 *         return new Response(error.message, { status: 400 });
 *       }
 *     });
 *     yield { url: "https://operator.example.com:9443" };
 *     await http.finished;
 *   },
 * };
 * kopf.on.startup(({ settings }) => {
 *   settings.admission.server = server;
 * });
 * ```
 */
export class AdmissionRequestError extends Error {
  /** The error's name. */
  override name = "AdmissionRequestError";
}
