/**
 * The transport to the Kubernetes API: every request of the framework goes through an
 * {@link ApiClient}. It takes credentials from the {@link Vault}, speaks native `fetch`
 * with the credentials' TLS settings, retries network errors, 5xx and 429 along the
 * error backoffs (honouring `Retry-After`), re-logs in on 401, and turns other 4xx into
 * typed errors carrying the server's `Status`.
 *
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ kubeconfig: await kopf.loginWithKubeconfig() }) });
 * await using api = new ApiClient(vault, { networking: { requestTimeout: 60 } });
 * const version = await api.request("GET", "/version");
 * ```
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import type { ConnectionInfo } from "../structs/credentials.ts";
import { LoginError, UsageError } from "../structs/errors.ts";
import { FileNotFoundError, readTextFile } from "../platform/files.ts";
import { categoryLogger, isLogged, TRAFFIC_CATEGORY } from "../platform/logging.ts";
import { FailureStreak } from "../structs/failure_streaks.ts";
import { inSpan, isTracing } from "../platform/tracing.ts";
import { type OperatorMetrics, requestLabels } from "../structs/operator_metrics.ts";
import { findMissingPermission } from "../platform/permission_flags.ts";
import {
  createHttpClient,
  describeNetworkError,
  type HttpClient,
} from "../platform/http_client.ts";
import { authorizationOf, staticAuthorization, TokenFiles } from "./authorization.ts";
import {
  APICertificateError,
  APIConnectionError,
  apiErrorFor,
  APIResponseError,
  APITimeoutError,
  statusFromBody,
} from "./api_errors.ts";
import {
  backoffsOf,
  type NetworkingTuning,
  requestTimeoutOf,
  timeoutOf,
  type WatchingTuning,
} from "./tuning.ts";
import { type AbortListener, listenAbort, unlistenAbort } from "../structs/abort_listeners.ts";
import { realClock, sleep } from "../structs/clock.ts";
import { type Deadline, DeadlineQueue, type Expiring } from "../structs/deadline_queues.ts";
import type { Vault, VaultItem } from "./vault.ts";

/** Options of an {@link ApiClient}. */
export interface ApiClientOptions {
  /**
   * Timeouts and retries of regular requests: `settings.networking`, or some of its
   * fields (the others take their defaults). Read when used, so changes apply at once.
   */
  networking?: NetworkingTuning;
  /** Timeouts and pauses of watch streams: `settings.watching`, or some of its fields. */
  watching?: WatchingTuning;
  /** The `User-Agent` header; `kopf` by default. */
  userAgent?: string;
  /**
   * Where requests, their durations and retries are counted; nowhere by default.
   *
   * @internal the operator's own metrics.
   */
  metrics?: OperatorMetrics;
}

/** Query parameters; `undefined` values are left out. */
export type QueryParams = Readonly<Record<string, string | number | boolean | undefined>>;

/** Options of one {@link ApiClient.request}. */
export interface RequestOptions {
  /** Query parameters, added to those already in the path. */
  query?: QueryParams;
  /** The body, serialised as JSON. */
  body?: unknown;
  /** The body's content type; `application/json` by default. */
  contentType?: string;
  /** Cancels the request, including its retries and pauses. */
  signal?: AbortSignal;
  /** Retry pauses for this request instead of the client's `networking.errorBackoffs`. */
  errorBackoffs?: Iterable<number> | number;
}

/** Options of one {@link ApiClient.openStream}. */
export interface StreamOptions {
  /** Query parameters, added to those already in the path. */
  query?: QueryParams;
  /** Cancels the stream: the connection is closed and reads end. */
  signal?: AbortSignal;
}

/** An open streaming response (e.g. a watch) with a successful status. */
export interface ApiStream {
  /** The response body; cancel it (or abort the signal) when done. */
  body: ReadableStream<Uint8Array>;
  /** The credentials that opened the stream. */
  item: VaultItem;
}

/** Which errors a request retries. */
/** What one attempt came to: retried (with what the failure streak reports) or final. */
type Retryable =
  | { retry: true; error: Error; delay?: number; reason: string; kind: string }
  | { retry: false; error: Error };

const traffic = getLogger([...TRAFFIC_CATEGORY]);
const logger = getLogger(["kopf", "client", "api"]);
const clientLogger = categoryLogger(["kopf", "client"]);

function withQuery(path: string, query: QueryParams | undefined): string {
  let params: URLSearchParams | undefined;
  // Most writes carry only undefined parameters (no dry run, no field manager): no URL work.
  for (const key in query) {
    const value = query[key];
    if (value !== undefined) (params ??= new URLSearchParams()).set(key, String(value));
  }
  if (params === undefined) return path;
  const qs = params.toString();
  if (!qs) return path;
  return path + (path.includes("?") ? "&" : "?") + qs;
}

/** Seconds to wait according to a `Retry-After` header (seconds or an HTTP date). */
export function parseRetryAfter(
  value: string | null,
  now: number = realClock.wall(),
): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value.trim());
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

class TimeoutReason extends Error {
  override name = "TimeoutReason";
}

/**
 * The abort of one attempt: it follows the caller's signal, and aborts on the attempt's
 * timeout. The controller itself listens to both, with no closures made per attempt.
 */
class Attempt extends AbortController implements AbortListener, Expiring {
  /** The caller's signal, while followed. */
  #outer: AbortSignal | undefined;
  #timeouts: DeadlineQueue | undefined;
  #deadline: Deadline | undefined;

  constructor(outer: AbortSignal | undefined, timeouts: DeadlineQueue | undefined) {
    super();
    if (outer?.aborted) this.abort(outer.reason);
    else if (outer !== undefined) {
      this.#outer = outer;
      listenAbort(outer, this);
    }
    if (timeouts !== undefined) {
      this.#timeouts = timeouts;
      this.#deadline = timeouts.enter(this);
    }
  }

  /** The caller's signal aborted. */
  handleAbort(): void {
    this.abort(this.#outer!.reason);
  }

  /** The attempt's time is up. */
  expire(): void {
    this.#deadline = undefined;
    this.abort(new TimeoutReason());
  }

  /** Stop following the caller's signal: the attempt's work is over. */
  unlink(): void {
    if (this.#outer === undefined) return;
    unlistenAbort(this.#outer, this);
    this.#outer = undefined;
  }

  /** The attempt has its answer (or has failed): its timeout is over. */
  settle(): void {
    if (this.#deadline === undefined) return;
    this.#timeouts!.cancel(this.#deadline);
    this.#deadline = undefined;
  }
}

/**
 * One request through its retry loop: what is sent, how long each attempt may take, and
 * (once done) the last response, its text if read, and whose credentials it used. One
 * object per request carries all of it: the loop runs once per object handled.
 */
class Exchange {
  response!: Response;
  text: string | undefined;
  item!: VaultItem;

  constructor(
    readonly method: string,
    readonly path: string,
    /** The JSON text to send, if any. */
    readonly body: string | undefined,
    /** The body's content type. */
    readonly contentType: string,
    /** The caller's signal. */
    readonly outer: AbortSignal | undefined,
    /** The retry pauses; the client's when undefined. */
    readonly errorBackoffs: Iterable<number> | number | undefined,
    readonly connectTimeout: number | undefined,
    /** Each attempt's timeout in seconds. */
    readonly timeout: number | undefined,
    /**
     * A stream (a watch): its body is left to the caller, so it stays linked to the
     * caller's signal, and is read here only if the status is an error.
     */
    readonly stream: boolean,
  ) {}
}

/**
 * The client of the Kubernetes API. One per operator (or per test); close it to release
 * connections. All the framework's API calls go through {@link request} and
 * {@link openStream}; the operations (`listObjects`, `patchObject`, `watchObjects`, …)
 * are built on these two.
 */
export class ApiClient {
  /** The credentials vault the client draws from. */
  readonly vault: Vault;
  /** Timeouts and retries of regular requests. */
  readonly networking: NetworkingTuning;
  /** Timeouts and pauses of watch streams. */
  readonly watching: WatchingTuning;
  readonly #userAgent: string;
  readonly #tokenFiles = new TokenFiles();
  readonly #pool = new Map<string, Promise<HttpClient>>();
  /** What each set of credentials needs per request, computed once per credentials. */
  readonly #prepared = new WeakMap<ConnectionInfo, Prepared>();
  /** The failures of each API server in a row, reported once each (not per attempt). */
  readonly #streaks = new Map<string, FailureStreak>();
  readonly #metrics: OperatorMetrics | undefined;
  /** The requests' timeouts, one queue (and one timer) per length of timeout. */
  readonly #timeouts = new Map<number, DeadlineQueue>();
  #closed = false;

  /** Make a client that draws credentials from the vault. */
  constructor(vault: Vault, options: ApiClientOptions = {}) {
    this.vault = vault;
    this.networking = options.networking ?? {};
    this.watching = options.watching ?? {};
    this.#metrics = options.metrics;
    this.#userAgent = options.userAgent ?? "kopf";
  }

  /**
   * Make a request and return the parsed JSON response (`undefined` for an empty body).
   * Retries network errors, timeouts, 5xx and 429 along the error backoffs; raises a
   * typed {@link APIError} for other 4xx, and once the retries are exhausted.
   */
  async request<T = unknown>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<T> {
    const fullPath = withQuery(path, options.query);
    const { response, text } = await this.#exchange(
      new Exchange(
        method,
        fullPath,
        options.body === undefined ? undefined : JSON.stringify(options.body),
        options.contentType ?? "application/json",
        options.signal,
        options.errorBackoffs,
        timeoutOf(this.networking.connectTimeout),
        requestTimeoutOf(this.networking),
        false,
      ),
    );
    if (!text) return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new APIResponseError(response.status, text, { method, path: fullPath }, {
        cause: error,
      });
    }
  }

  /**
   * Open a streaming GET (a watch) and return its body once the status is known to be
   * successful. Opening is retried like {@link request}; what happens after is the
   * reader's business. Uses the watching connect timeout (else the networking ones).
   */
  async openStream(path: string, options: StreamOptions = {}): Promise<ApiStream> {
    const fullPath = withQuery(path, options.query);
    const connectTimeout = timeoutOf(
      this.watching.connectTimeout ?? this.networking.connectTimeout,
    ) ?? requestTimeoutOf(this.networking);
    const { response, item } = await this.#exchange(
      new Exchange(
        "GET",
        fullPath,
        undefined,
        "application/json",
        options.signal,
        undefined,
        connectTimeout,
        undefined,
        true,
      ),
    );
    return { body: response.body ?? new ReadableStream({ start: (c) => c.close() }), item };
  }

  /**
   * The default namespace of the credentials (the kubeconfig context's or the pod's),
   * for calls on namespaced resources that name no namespace.
   */
  async defaultNamespace(signal?: AbortSignal): Promise<string | undefined> {
    return (await this.vault.select(signal)).info.defaultNamespace;
  }

  /** Close all pooled connections. Requests made after closing fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const clients = [...this.#pool.values()];
    this.#pool.clear();
    for (const client of clients) {
      try {
        await (await client).close();
      } catch {
        // A client that failed to be created has nothing to close.
      }
    }
  }

  /** Close the client at the end of an `await using` block. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** The retry loop of a request, in a span of its own when traced. */
  #exchange(exchange: Exchange): Promise<Exchange> {
    if (!isTracing()) return this.#attempts(exchange);
    const { method, path } = exchange;
    const [verb, resource] = requestLabels(method, path);
    return inSpan(`kopf api ${verb} ${resource}`, {
      "http.request.method": method,
      "url.path": path.split("?")[0],
      "kopf.api.verb": verb,
      "kopf.resource": resource,
    }, async (annotate) => {
      const result = await this.#attempts(exchange);
      annotate({
        "http.response.status_code": result.response.status,
        "server.address": result.item.info.server,
      });
      return result;
    }, "client");
  }

  /** The timeouts of the given length: a timer per length, not per request. */
  #deadlines(seconds: number): DeadlineQueue {
    let queue = this.#timeouts.get(seconds);
    if (queue === undefined) {
      queue = new DeadlineQueue(seconds);
      this.#timeouts.set(seconds, queue);
    }
    return queue;
  }

  /** The retry loop around attempts: credentials, 401s, backoffs, typed errors. */
  async #attempts(exchange: Exchange): Promise<Exchange> {
    const { method, path, outer, timeout } = exchange;
    // Made at the first retry: the first attempt usually succeeds.
    let backoffs: Iterator<number> | undefined;
    let unauthorized = 0;
    for (;;) {
      if (this.#closed) {
        throw new UsageError("The API client is closed; make a new one to send requests.");
      }
      outer?.throwIfAborted();
      const item = await this.vault.select(outer);
      // Follows the caller's signal, and aborts on this attempt's timeout.
      const attempt = new Attempt(
        outer,
        timeout === undefined ? undefined : this.#deadlines(timeout),
      );
      const signal = attempt.signal;
      const started = realClock.now();
      let outcome: Retryable;
      try {
        const response = await this.#send(item, exchange, signal);
        const text = exchange.stream && response.ok ? undefined : await response.text();
        const status = response.status;
        this.#logTraffic(method, path, status, started, item);
        this.#count(method, path, String(status), started);
        if (response.ok || (status < 500 && status !== 429 && status !== 401)) {
          this.#streakOf(item.info.server).succeeded(); // it answers, whatever it says
        }
        if (response.ok) {
          // A stream's body outlives this call: it must keep following the caller's signal.
          if (!exchange.stream) attempt.unlink();
          exchange.response = response;
          exchange.text = text;
          exchange.item = item;
          return exchange;
        }
        attempt.unlink();
        const error = apiErrorFor(
          status,
          statusFromBody(status, response.statusText, text ?? ""),
          { method, path },
        );
        if (status === 401) {
          this.vault.invalidate(item, `HTTP 401: ${error.message}`);
          // The first rejection switches credentials at once (usually an expired token);
          // if fresh ones are rejected too, pause along the backoffs instead of hammering
          // the API server and the logins.
          if (++unauthorized === 1) continue;
        }
        outcome = status >= 500 || status === 429 || status === 401
          ? {
            retry: true,
            error,
            delay: parseRetryAfter(response.headers.get("retry-after")),
            reason: `HTTP ${status}: ${error.message}`,
            kind: String(status),
          }
          : { retry: false, error };
      } catch (e) {
        attempt.unlink();
        if (outer?.aborted) throw outer.reason;
        if (e instanceof LoginError || e instanceof APIConnectionError) throw e;
        // A missing Deno/Node permission never heals by retrying: let it name its flag.
        if (findMissingPermission(e)) throw e;
        const timedOut = signal.reason instanceof TimeoutReason;
        outcome = this.#networkFailure(e, method, path, item, timedOut, timeout);
        this.#logTraffic(method, path, outcome.error.name, started, item);
        this.#count(method, path, "error", started);
      } finally {
        attempt.settle();
      }
      if (!outcome.retry) throw outcome.error;
      backoffs ??= backoffsOf(exchange.errorBackoffs ?? this.networking.errorBackoffs);
      const next = backoffs.next();
      const delay = next.done ? undefined : outcome.delay ?? next.value;
      // Reported per server, once for many requests and attempts: a server that cannot
      // be reached is said within the first attempt, not after all the retries.
      this.#streakOf(item.info.server).failed({
        reason: outcome.reason,
        kind: outcome.kind,
        retryIn: delay,
      });
      if (delay === undefined) throw outcome.error;
      if (this.#metrics !== undefined) {
        const [verb, resource] = requestLabels(method, path);
        this.#metrics.apiRetries.inc([verb, resource, outcome.kind]);
      }
      logger.debug("Retrying {method} {path} in {delay} s: {error}", {
        method,
        path,
        delay,
        error: outcome.error.message,
      });
      if (!(await sleep(delay, outer))) outer!.throwIfAborted();
    }
  }

  #networkFailure(
    e: unknown,
    method: string,
    path: string,
    item: VaultItem,
    timedOut: boolean,
    timeout: number | undefined,
  ): Retryable {
    const context = { method, path };
    const server = item.info.server;
    if (timedOut) {
      const message = `${method} ${path} at ${server} timed out after ${timeout} s.`;
      const error = new APITimeoutError(message, context, { cause: e });
      return { retry: true, error, reason: `no answer within ${timeout}s`, kind: "timeout" };
    }
    const { kind, detail } = describeNetworkError(e);
    if (kind === "certificate") {
      const message = `Cannot verify the certificate of ${server} (${detail}); ` +
        `set the right CA (caPath/caData, certificate-authority in kubeconfig) or use insecure mode.`;
      return { retry: false, error: new APICertificateError(message, context, { cause: e }) };
    }
    const message = `${method} ${path} at ${server} failed: ${detail}`;
    const error = kind === "timeout"
      ? new APITimeoutError(message, context, { cause: e })
      : new APIConnectionError(message, context, { cause: e });
    return { retry: true, error, reason: `cannot connect: ${detail}`, kind };
  }

  /**
   * Where requests are counted, if anywhere (the watches count theirs there too).
   *
   * @internal the operator's own metrics.
   */
  get metrics(): OperatorMetrics | undefined {
    return this.#metrics;
  }

  /** Count a request and its duration, if metrics are kept. */
  #count(method: string, path: string, code: string, started: number): void {
    const metrics = this.#metrics;
    if (metrics === undefined) return;
    const [verb, resource] = requestLabels(method, path);
    metrics.apiRequests.inc([verb, resource, code]);
    if (verb !== "watch") metrics.apiDuration.observe([verb, resource], realClock.now() - started);
  }

  #streakOf(server: string): FailureStreak {
    let streak = this.#streaks.get(server);
    if (streak === undefined) {
      streak = new FailureStreak({ logger: clientLogger, what: `The API server ${server}` });
      this.#streaks.set(server, streak);
    }
    return streak;
  }

  #logTraffic(
    method: string,
    path: string,
    status: number | string,
    started: number,
    item: VaultItem,
  ): void {
    if (!isLogged(TRAFFIC_CATEGORY, "debug")) return;
    const duration = Math.round((realClock.now() - started) * 1000);
    traffic.debug("{method} {path} → {status} in {duration} ms (credentials: {login})", {
      method,
      path,
      status,
      duration,
      login: item.id,
    });
  }

  /** One HTTP exchange with one set of credentials. */
  #send(item: VaultItem, exchange: Exchange, signal: AbortSignal): Promise<Response> {
    const info = item.info;
    const prepared = this.#prepare(info);
    const http = prepared.clients.get(exchange.connectTimeout);
    // Only a token file can change between requests; other credentials' headers are fixed.
    if (http === undefined || info.tokenPath) {
      return this.#sendSlowly(info, prepared, exchange, signal);
    }
    return fetchOf(http, prepared, this.#headersOf(prepared, exchange), exchange, signal);
  }

  /** {@link #send} with the HTTP client still to make, or the token file to read. */
  async #sendSlowly(
    info: ConnectionInfo,
    prepared: Prepared,
    exchange: Exchange,
    signal: AbortSignal,
  ): Promise<Response> {
    const connectTimeout = exchange.connectTimeout;
    const http = await this.#httpClientFor(info, prepared.clientKey, connectTimeout);
    prepared.clients.set(connectTimeout, http);
    const header = info.tokenPath ? await authorizationOf(info, this.#tokenFiles) : prepared.header;
    return await fetchOf(http, prepared, this.#headers(header, exchange), exchange, signal);
  }

  /** The request headers of fixed credentials: made once per content type, then reused. */
  #headersOf(prepared: Prepared, exchange: Exchange): Record<string, string> {
    const key = exchange.body === undefined ? "" : exchange.contentType;
    let headers = prepared.headers.get(key);
    if (headers === undefined) {
      headers = Object.freeze(this.#headers(prepared.header, exchange));
      prepared.headers.set(key, headers);
    }
    return headers;
  }

  #headers(authorization: string | undefined, exchange: Exchange): Record<string, string> {
    const headers: Record<string, string> = {
      "Accept": "application/json",
      "User-Agent": this.#userAgent,
    };
    if (authorization) headers["Authorization"] = authorization;
    if (exchange.body !== undefined) headers["Content-Type"] = exchange.contentType;
    return headers;
  }

  #prepare(info: ConnectionInfo): Prepared {
    let prepared = this.#prepared.get(info);
    if (!prepared) {
      prepared = {
        base: info.server.replace(/\/+$/, ""),
        clientKey: JSON.stringify([
          info.caPath ?? null,
          info.caData ?? null,
          info.insecure ?? false,
          info.certificatePath ?? null,
          info.certificateData ?? null,
          info.privateKeyPath ?? null,
          info.privateKeyData ?? null,
        ]),
        header: info.tokenPath ? undefined : staticAuthorization(info),
        clients: new Map(),
        headers: new Map(),
      };
      this.#prepared.set(info, prepared);
    }
    return prepared;
  }

  async #httpClientFor(
    info: ConnectionInfo,
    clientKey: string,
    connectTimeout: number | undefined,
  ): Promise<HttpClient> {
    const key = `${clientKey}/${connectTimeout ?? ""}`;
    let client = this.#pool.get(key);
    if (!client) {
      client = makeHttpClient(info, connectTimeout);
      this.#pool.set(key, client);
      client.catch(() => this.#pool.delete(key));
    }
    return await client;
  }
}

/** Per-credentials request parts: they never change for one {@link ConnectionInfo}. */
interface Prepared {
  /** The server URL without trailing slashes, to prepend to request paths. */
  readonly base: string;
  /** The TLS settings, as the part of the pool key shared by all connect timeouts. */
  readonly clientKey: string;
  /** The `Authorization` header when the credentials have no token file. */
  readonly header: string | undefined;
  /**
   * The HTTP clients made, by connect timeout: no pool key to build per request. A client
   * that fails to be made never gets here, and a closed API client sends nothing more.
   */
  readonly clients: Map<number | undefined, HttpClient>;
  /** The request headers of fixed credentials, by content type (`""` without a body). */
  readonly headers: Map<string, Readonly<Record<string, string>>>;
}

/** The request of an exchange, sent with the given headers. */
function fetchOf(
  http: HttpClient,
  prepared: Prepared,
  headers: Record<string, string>,
  exchange: Exchange,
  signal: AbortSignal,
): Promise<Response> {
  return http.fetch(prepared.base + exchange.path, {
    method: exchange.method,
    headers,
    body: exchange.body,
    signal,
    stream: exchange.stream,
  });
}

async function readCredentialFile(what: string, path: string): Promise<string> {
  try {
    return await readTextFile(path);
  } catch (e) {
    if (findMissingPermission(e)) throw e;
    const why = e instanceof FileNotFoundError ? "it does not exist" : (e as Error).message;
    throw new LoginError(`Cannot read the ${what} file ${path}: ${why}.`);
  }
}

async function makeHttpClient(
  info: ConnectionInfo,
  connectTimeout: number | undefined,
): Promise<HttpClient> {
  const ca = info.caData ?? (info.caPath ? await readCredentialFile("CA", info.caPath) : undefined);
  const certificate = info.certificateData ??
    (info.certificatePath
      ? await readCredentialFile("client certificate", info.certificatePath)
      : undefined);
  const privateKey = info.privateKeyData ??
    (info.privateKeyPath ? await readCredentialFile("client key", info.privateKeyPath) : undefined);
  if ((certificate === undefined) !== (privateKey === undefined)) {
    throw new LoginError(
      `The credentials for ${info.server} have a client ${certificate ? "certificate" : "key"} ` +
        `but no ${certificate ? "key" : "certificate"}; give both or neither.`,
    );
  }
  for (
    const [what, pem] of [["CA", ca], ["client certificate", certificate], [
      "client key",
      privateKey,
    ]] as const
  ) {
    if (pem !== undefined && !pem.includes("-----BEGIN ")) {
      throw new LoginError(
        `The ${what} for ${info.server} is not PEM data (no "-----BEGIN" block); ` +
          `give PEM text, not base64 or a path.`,
      );
    }
  }
  try {
    return await createHttpClient({
      caCertificates: ca ? [ca] : undefined,
      certificate,
      privateKey,
      insecure: info.insecure,
      connectTimeout,
    });
  } catch (e) {
    if (findMissingPermission(e)) throw e;
    const what = certificate ? "CA or client certificate and key" : "CA";
    throw new LoginError(
      `The ${what} for ${info.server} cannot be used (${(e as Error).message}); ` +
        `give PEM-encoded data.`,
    );
  }
}
