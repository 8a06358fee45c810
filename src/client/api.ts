/**
 * The transport to the Kubernetes API: every request of the framework goes through an
 * {@link ApiClient}. It takes credentials from the {@link Vault}, speaks native `fetch`
 * with the credentials' TLS settings, sends a failed request again where that is safe (a
 * request never sent, an idempotent one; 5xx and 429 answers likewise, see
 * `retry_policy.ts`) along the error backoffs (honouring `Retry-After`), re-logs in on
 * 401, and turns other 4xx into typed errors carrying the server's `Status`. Regular
 * requests (not watches) go under an adaptive limit of requests in flight
 * (`concurrency.ts`, `settings.networking.adaptiveConcurrency`): those above it wait,
 * live changes' before deferrable work's (`request_priorities.ts`).
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
import type { OperatorMetrics } from "../structs/operator_metrics.ts";
import type { RawBody } from "../structs/bodies.ts";
import {
  type NetworkingTuning,
  requestTimeoutOf,
  timeoutOf,
  type WatchingTuning,
} from "./tuning.ts";
import type { Vault, VaultItem } from "./vault.ts";
import { Exchange, Transport } from "./transport.ts";
import { ObjectAnswer, parseAnswer } from "./object_answers.ts";

export { parseRetryAfter } from "./transport.ts";

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
  /**
   * The `Accept` header; `application/json` by default. E.g. `METADATA_LIST_ACCEPT`
   * for objects' metadata only.
   */
  accept?: string;
  /** Cancels the request, including its retries and pauses. */
  signal?: AbortSignal;
  /** Retry pauses for this request instead of the client's `networking.errorBackoffs`. */
  errorBackoffs?: Iterable<number> | number;
  /**
   * Whether sending the request twice has the effect of sending it once, so that it may go
   * again after a failure that leaves its outcome unknown (its reply lost, its time up, a
   * 5xx answer). Judged from the method and body when not given: reads, `DELETE`, `PUT`
   * with `metadata.resourceVersion`, merge and apply patches, JSON patches without `test`,
   * `move`, `copy`, `remove` or array insertions are; `POST` is not. A request that may
   * not go again fails with `APIOutcomeUnknownError` instead.
   */
  idempotent?: boolean;
  /**
   * The answer may be large (a list of many objects): ask for it compressed, as the API
   * server sends answers over 128 KiB when asked. Such requests go over `fetch`, which
   * decompresses them; others, on Deno, over the client's own connections, whose answers
   * are read whole up to 64 MiB.
   */
  compressed?: boolean;
}

/** Options of one {@link ApiClient.openStream}. */
export interface StreamOptions {
  /** Query parameters, added to those already in the path. */
  query?: QueryParams;
  /**
   * The `Accept` header; `application/json` by default. E.g. `METADATA_ACCEPT` for
   * watch events with the objects' metadata only.
   */
  accept?: string;
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

/** A request whose answer is an object, read as an {@link ObjectAnswer}; see {@link answerOf}. */
let requestAnswer: (
  api: ApiClient,
  method: string,
  path: string,
  options: RequestOptions,
) => Promise<ObjectAnswer>;

/**
 * Make a request as {@link ApiClient.request} does, but keep its answer (an object) as text:
 * its `metadata.resourceVersion` is read out of it at once, the object is parsed only when
 * asked for. A write's answer is mostly needed for its version alone.
 */
export function answerOf(
  api: ApiClient,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ObjectAnswer> {
  return requestAnswer(api, method, path, options);
}

/** The metrics of a client's transport; see {@link metricsOf}. */
let transportMetrics: (api: ApiClient) => OperatorMetrics | undefined;

/**
 * The client of the Kubernetes API. One per operator (or per test); close it to release
 * connections. All the framework's API calls go through {@link request} and
 * {@link openStream}; the operations (`listObjects`, `patchObject`, `watchObjects`, ...)
 * are built on these two.
 */
export class ApiClient {
  /** The credentials vault the client draws from. */
  readonly vault: Vault;
  /** Timeouts and retries of regular requests. */
  readonly networking: NetworkingTuning;
  /** Timeouts and pauses of watch streams. */
  readonly watching: WatchingTuning;
  readonly #transport: Transport;

  static {
    // A stand-in of the client's shape (tests give one) counts nothing.
    transportMetrics = (api) => #transport in api ? api.#transport.metrics : undefined;
    requestAnswer = (api, method, path, options) => {
      if (#transport in api) {
        // No async function of its own: one frame less for every write of the framework.
        const { fullPath, sent } = api.#exchange(method, path, options);
        return sent.then(({ response, text }) =>
          new ObjectAnswer({ text: text ?? "", fullPath, status: response.status }, method)
        );
      }
      // A stand-in of the client's shape (tests give one) answers parsed objects only.
      const client = api as ApiClient;
      return client.request<RawBody>(method, path, options).then(ObjectAnswer.parsed);
    };
  }

  /** Make a client that draws credentials from the vault. */
  constructor(vault: Vault, options: ApiClientOptions = {}) {
    this.vault = vault;
    this.networking = options.networking ?? {};
    this.watching = options.watching ?? {};
    this.#transport = new Transport(
      vault,
      this.networking,
      options.userAgent ?? "kopf",
      options.metrics,
    );
  }

  /**
   * Make a request and return the parsed JSON response (`undefined` for an empty body).
   * Sends it again after failures where that is safe (see {@link RequestOptions.idempotent})
   * along the error backoffs; raises a typed {@link APIError} for other 4xx, and once the
   * retries are exhausted.
   */
  async request<T = unknown>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<T> {
    const { fullPath, sent } = this.#exchange(method, path, options);
    const { response, text } = await sent;
    return text ? parseAnswer<T>(text, response.status, method, fullPath) : undefined as T;
  }

  /** The exchange of {@link request} under way, and the path it went to. */
  #exchange(
    method: string,
    path: string,
    options: RequestOptions,
  ): { readonly fullPath: string; readonly sent: Promise<Exchange> } {
    const fullPath = withQuery(path, options.query);
    const body = options.body;
    const sent = this.#transport.exchange(
      new Exchange(
        method,
        fullPath,
        body,
        body === undefined ? undefined : JSON.stringify(body),
        options.contentType ?? "application/json",
        options.signal,
        options.errorBackoffs,
        timeoutOf(this.networking.connectTimeout),
        requestTimeoutOf(this.networking),
        false,
        options.idempotent,
        options.accept,
        options.compressed,
      ),
    );
    return { fullPath, sent };
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
    const { response, item } = await this.#transport.exchange(
      new Exchange(
        "GET",
        fullPath,
        undefined,
        undefined,
        "application/json",
        options.signal,
        undefined,
        connectTimeout,
        undefined,
        true,
        true,
        options.accept,
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
    await this.#transport.close();
  }

  /** Close the client at the end of an `await using` block. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/**
 * Where the client counts requests, if anywhere: the watches count theirs there too. For
 * the framework's own metrics; not part of the client's public surface.
 */
export function metricsOf(api: ApiClient): OperatorMetrics | undefined {
  return transportMetrics(api);
}
