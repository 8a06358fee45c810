/**
 * The API client's requests through their attempts: credentials from the vault, one
 * timeout per attempt, a switch of credentials on 401, typed errors for error answers,
 * and the retries that `retry_policy.ts` allows, along the error backoffs (or at once, or
 * after `Retry-After`), with the failures of each API server reported as one streak.
 * Each attempt of a regular request (not a watch) first takes a place under the adaptive
 * limit of requests in flight (`concurrency.ts`), at the priority its caller runs under.
 *
 * @module
 */
import { getLogger } from "../platform/log_routing.ts";
import { LoginError, UsageError } from "../structs/errors.ts";
import { categoryLogger, isLogged, TRAFFIC_CATEGORY } from "../platform/logging.ts";
import { FailureStreak } from "../structs/failure_streaks.ts";
import { inSpan, isTracing } from "../platform/tracing.ts";
import type { OperatorMetrics } from "../structs/operator_metrics.ts";
import { requestLabels } from "../structs/metric_labels.ts";
import { findMissingPermission } from "../platform/permission_flags.ts";
import { describeNetworkError } from "../platform/http_client.ts";
import { responseHeader } from "../platform/http1_responses.ts";
import { deliveryOf } from "../platform/request_delivery.ts";
import { apiErrorFor, statusFromBody } from "./api_errors.ts";
import {
  APICertificateError,
  APIConnectionError,
  APIOutcomeUnknownError,
  APITimeoutError,
} from "./connection_errors.ts";
import {
  adaptiveConcurrencyOf,
  backoffsOf,
  concurrencyBoundsOf,
  type NetworkingTuning,
} from "./tuning.ts";
import { ConcurrencyLimiter, type Permit } from "./concurrency.ts";
import { currentRequestPriority } from "./request_priorities.ts";
import { type AbortListener, listenAbort, unlistenAbort } from "../structs/abort_listeners.ts";
import { realClock, sleep } from "../structs/clock.ts";
import { type Deadline, DeadlineQueue, type Expiring } from "../structs/deadline_queues.ts";
import type { Vault, VaultItem } from "./vault.ts";
import { Connections, type OutgoingRequest } from "./connections.ts";
import { ServerWarnings } from "./server_warnings.ts";
import {
  type Replay,
  replayAfterAnswer,
  replayAfterFailure,
  whyNotIdempotent,
} from "./retry_policy.ts";

/**
 * What one attempt came to: sent again (with what the failure streak reports), sent again
 * at once with new credentials (`relogin`), or final.
 */
type Outcome =
  | { replay: "now" | "later"; error: Error; delay?: number; reason: string; kind: string }
  | { replay: "never"; error: Error }
  | { replay: "relogin"; error: Error };

const traffic = getLogger([...TRAFFIC_CATEGORY]);
const logger = getLogger(["kopf", "client", "api"]);
const clientLogger = categoryLogger(["kopf", "client"]);

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
 * One request through its attempts: what is sent, how long each attempt may take, and
 * (once done) the last response, its text if read, and whose credentials it used. One
 * object per request carries all of it: the loop runs once per object handled.
 */
export class Exchange implements OutgoingRequest {
  response!: Response;
  text: string | undefined;
  item!: VaultItem;
  /** Why the request may not be sent twice (`null`: it may), once asked. */
  #notIdempotent: string | null | undefined;

  constructor(
    readonly method: string,
    readonly path: string,
    /** The body as given, to judge whether the request is idempotent. */
    readonly payload: unknown,
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
    /** The caller's word on whether sending twice is as sending once; judged if undefined. */
    readonly idempotent: boolean | undefined,
    /** The `Accept` header; `application/json` when undefined. */
    readonly accept: string | undefined = undefined,
    /** The answer may be large (a list): asked for compressed. */
    readonly compressed: boolean = false,
  ) {}

  /**
   * Why the request may not go twice; `undefined` if it may. Judged on the first failure
   * only: a request that succeeds at once costs nothing here.
   */
  whyNotIdempotent(): string | undefined {
    if (this.#notIdempotent === undefined) {
      this.#notIdempotent = this.idempotent === true
        ? null
        : this.idempotent === false
        ? `the caller says a ${this.method} of it may take effect twice`
        : whyNotIdempotent(this.method, this.payload, this.contentType) ?? null;
    }
    return this.#notIdempotent ?? undefined;
  }
}

/** The attempts of the API client's requests; see the module docs. */
export class Transport {
  readonly #vault: Vault;
  readonly #networking: NetworkingTuning;
  readonly #connections: Connections;
  /** The failures of each API server in a row, reported once each (not per attempt). */
  readonly #streaks = new Map<string, FailureStreak>();
  /** The server's warnings, said once per text. */
  readonly #warnings = new ServerWarnings();
  /** The requests' timeouts, one queue (and one timer) per length of timeout. */
  readonly #timeouts = new Map<number, DeadlineQueue>();
  /** Where requests are counted, if anywhere (the watches count theirs there too). */
  readonly metrics: OperatorMetrics | undefined;
  /** The places of regular requests in flight, while `adaptiveConcurrency` is on. */
  readonly #limiter: ConcurrencyLimiter;
  #closed = false;

  constructor(
    vault: Vault,
    networking: NetworkingTuning,
    userAgent: string,
    metrics: OperatorMetrics | undefined,
  ) {
    this.#vault = vault;
    this.#networking = networking;
    this.#connections = new Connections(userAgent);
    this.metrics = metrics;
    const limiter = this.#limiter = new ConcurrencyLimiter(concurrencyBoundsOf(networking));
    if (metrics !== undefined) {
      // Read when scraped; while the limit is off, there is none to show.
      const adaptive = () => adaptiveConcurrencyOf(networking);
      metrics.apiConcurrencyLimit.collectWith((set) => adaptive() && set([], limiter.limit));
      metrics.apiConcurrencyInflight.collectWith((set) => adaptive() && set([], limiter.inflight));
      metrics.apiConcurrencyWaiting.collectWith((set) => adaptive() && set([], limiter.waiting));
    }
  }

  /** Close all pooled connections. Requests made after closing fail. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#connections.close();
  }

  /** The request through its attempts, in a span of its own when traced. */
  exchange(exchange: Exchange): Promise<Exchange> {
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

  /** The loop of attempts: credentials, 401s, the retry policy, backoffs, typed errors. */
  async #attempts(exchange: Exchange): Promise<Exchange> {
    const { method, path, outer } = exchange;
    // Made at the first retry: the first attempt usually succeeds.
    let backoffs: Iterator<number> | undefined;
    const tries = { unauthorized: 0, staleRetried: false, throttled: 0 };
    // Watches are not counted: the server does not count long-running requests either;
    // nor is the coordination of replicas, whose Leases must not wait behind handlers.
    const priority = exchange.stream ? undefined : currentRequestPriority();
    const limited = priority !== undefined && priority !== "exempt";
    for (;;) {
      if (this.#closed) {
        throw new UsageError("The API client is closed; make a new one to send requests.");
      }
      outer?.throwIfAborted();
      const permit = limited && adaptiveConcurrencyOf(this.#networking)
        ? await this.#limiter.acquire(priority, outer)
        : undefined;
      let item: VaultItem;
      try {
        item = await this.#vault.select(outer);
      } catch (error) {
        permit?.release();
        throw error;
      }
      const outcome = await this.#attempt(exchange, item, tries, permit);
      if (outcome === undefined) return exchange;
      if (outcome.replay === "never") throw outcome.error;
      if (outcome.replay === "relogin") continue;
      if (outcome.replay === "now") {
        // A kept connection closed by the server: routine, not a failure of the server.
        tries.staleRetried = true;
        this.#countRetry(method, path, "stale");
        logger.debug("Sending {method} {path} again at once: {error}", {
          method,
          path,
          error: outcome.error.message,
        });
        continue;
      }
      backoffs ??= backoffsOf(exchange.errorBackoffs ?? this.#networking.errorBackoffs);
      const next = backoffs.next();
      const delay = next.done ? undefined : outcome.delay ?? next.value;
      // Reported per server, once for many requests and attempts: a server that cannot
      // be reached is said within the first attempt, not after all the retries. Under the
      // adaptive limit, a request's first 429 is how the limit is found, not a failure:
      // only one refused again (or the last try) is.
      const probed = outcome.kind === "429" && permit !== undefined && tries.throttled++ === 0;
      if (!probed || delay === undefined) {
        this.#streakOf(item.info.server).failed({
          reason: outcome.reason,
          kind: outcome.kind,
          retryIn: delay,
        });
      }
      if (delay === undefined) throw outcome.error;
      this.#countRetry(method, path, outcome.kind);
      logger.debug("Retrying {method} {path} in {delay} s: {error}", {
        method,
        path,
        delay,
        error: outcome.error.message,
      });
      if (!(await sleep(delay, outer))) outer!.throwIfAborted();
    }
  }

  /**
   * One attempt with the given credentials: `undefined` when the exchange has its answer,
   * else what to do next.
   */
  async #attempt(
    exchange: Exchange,
    item: VaultItem,
    tries: { unauthorized: number; staleRetried: boolean },
    permit: Permit | undefined,
  ): Promise<Outcome | undefined> {
    const { method, path, outer, timeout } = exchange;
    // Follows the caller's signal, and aborts on this attempt's timeout.
    const attempt = new Attempt(
      outer,
      timeout === undefined ? undefined : this.#deadlines(timeout),
    );
    const signal = attempt.signal;
    const started = realClock.now();
    try {
      const response = await this.#connections.send(item.info, exchange, signal);
      const text = exchange.stream && response.ok ? undefined : await response.text();
      const status = response.status;
      if (permit !== undefined) this.#judge(permit, status, method);
      this.#logTraffic(method, path, status, started, item);
      this.#count(method, path, String(status), started);
      this.#warnings.note(method, path, responseHeader(response, "warning"));
      if (response.ok || (status < 500 && status !== 429 && status !== 401)) {
        this.#streakOf(item.info.server).succeeded(); // it answers, whatever it says
      }
      if (response.ok) {
        // A stream's body outlives this call: it must keep following the caller's signal.
        if (!exchange.stream) attempt.unlink();
        exchange.response = response;
        exchange.text = text;
        exchange.item = item;
        return undefined;
      }
      attempt.unlink();
      return this.#answered(exchange, item, response, text ?? "", tries);
    } catch (e) {
      attempt.unlink();
      if (permit !== undefined) this.#limiter.failed(permit);
      if (outer?.aborted) throw outer.reason;
      if (e instanceof LoginError || e instanceof APIConnectionError) throw e;
      // A missing Deno/Node permission never heals by retrying: let it name its flag.
      if (findMissingPermission(e)) throw e;
      const timedOut = signal.reason instanceof TimeoutReason;
      const outcome = this.#networkFailure(e, exchange, item, timedOut, tries.staleRetried);
      this.#logTraffic(method, path, outcome.error.name, started, item);
      this.#count(method, path, "error", started);
      return outcome;
    } finally {
      attempt.settle();
      permit?.release(); // after a throw between the answer and its judging: given back once
    }
  }

  /**
   * What an answer tells the adaptive limit: a 429 lowers it; others let it grow, unless
   * the latency of writes rises (reads take as long as what they list).
   */
  #judge(permit: Permit, status: number, method: string): void {
    if (status === 429) this.#limiter.throttle(permit);
    else this.#limiter.answered(permit, method !== "GET");
  }

  /** What an error answer leads to: new credentials, a replay, or its typed error. */
  #answered(
    exchange: Exchange,
    item: VaultItem,
    response: Response,
    text: string,
    tries: { unauthorized: number },
  ): Outcome {
    const { method, path } = exchange;
    const status = response.status;
    const error = apiErrorFor(status, statusFromBody(status, response.statusText, text), {
      method,
      path,
    });
    if (status === 401) {
      this.#vault.invalidate(item, `HTTP 401: ${error.message}`);
      // The first rejection switches credentials at once (usually an expired token); if
      // fresh ones are rejected too, pause along the backoffs instead of hammering the API
      // server and the logins.
      if (++tries.unauthorized === 1) return { replay: "relogin", error };
    }
    const retryAfter = response.headers.get("retry-after");
    const idempotent = status >= 500 ? exchange.whyNotIdempotent() === undefined : false;
    if (!replayAfterAnswer(status, retryAfter, idempotent)) return { replay: "never", error };
    return {
      replay: "later",
      error,
      delay: parseRetryAfter(retryAfter),
      reason: `HTTP ${status}: ${error.message}`,
      kind: String(status),
    };
  }

  #networkFailure(
    e: unknown,
    exchange: Exchange,
    item: VaultItem,
    timedOut: boolean,
    staleRetried: boolean,
  ): Outcome {
    const { method, path, timeout } = exchange;
    const context = { method, path };
    const server = item.info.server;
    const description = timedOut ? undefined : describeNetworkError(e);
    if (description?.kind === "certificate") {
      const message = `Cannot verify the certificate of ${server} (${description.detail}); ` +
        `set the right CA (caPath/caData, certificate-authority in kubeconfig) or use insecure mode.`;
      return { replay: "never", error: new APICertificateError(message, context, { cause: e }) };
    }
    const replay: Replay = replayAfterFailure({
      unsent: description?.unsent ?? false,
      staleConnection: deliveryOf(e).staleConnection,
      idempotent: exchange.whyNotIdempotent() === undefined,
      staleRetried,
    });
    const detail = description?.detail ?? `no answer within ${timeout} s`;
    if (replay === "never") {
      const message = `${method} ${path} at ${server} failed after it was sent (${detail}): it ` +
        `may or may not have taken effect, and it is not sent again, since ` +
        `${exchange.whyNotIdempotent()}; read the object to see.`;
      return { replay, error: new APIOutcomeUnknownError(message, context, { cause: e }) };
    }
    if (description === undefined) {
      const message = `${method} ${path} at ${server} timed out after ${timeout} s.`;
      const error = new APITimeoutError(message, context, { cause: e });
      return { replay, error, reason: `no answer within ${timeout}s`, kind: "timeout" };
    }
    const message = `${method} ${path} at ${server} failed: ${detail}`;
    const error = description.kind === "timeout"
      ? new APITimeoutError(message, context, { cause: e })
      : new APIConnectionError(message, context, { cause: e });
    const reason = description.unsent
      ? `cannot connect: ${detail}`
      : `connection failed: ${detail}`;
    return { replay, error, reason, kind: description.kind };
  }

  /** Count a request and its duration, if metrics are kept. */
  #count(method: string, path: string, code: string, started: number): void {
    const metrics = this.metrics;
    if (metrics === undefined) return;
    const [verb, resource] = requestLabels(method, path);
    metrics.apiRequests.inc([verb, resource, code]);
    if (code === "429") metrics.apiThrottled.inc([verb, resource]);
    if (verb !== "watch") metrics.apiDuration.observe([verb, resource], realClock.now() - started);
  }

  #countRetry(method: string, path: string, kind: string): void {
    if (this.metrics === undefined) return;
    const [verb, resource] = requestLabels(method, path);
    this.metrics.apiRetries.inc([verb, resource, kind]);
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
    traffic.debug("{method} {path} \u2192 {status} in {duration} ms (credentials: {login})", {
      method,
      path,
      status,
      duration,
      login: item.id,
    });
  }
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
