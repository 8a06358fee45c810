/**
 * API Priority and Fairness, as kube-apiserver applies it
 * (apiserver/pkg/server/filters/priority-and-fairness.go): between authentication (and
 * impersonation) and authorization, every request but the long-running ones that are not
 * watches is classified; a limited priority level serves at most so many at once, lets so
 * many more wait in its queue, each for at most a quarter of its deadline, and rejects the
 * rest with a plain-text 429 whose `Retry-After` grows while the level stays overloaded.
 * Every classified request's answer names the UIDs of its flow schema and priority level.
 *
 * One limited level, one FIFO queue, one seat per request: see docs/fidelity.md for what
 * of kube-apiserver's fair queuing this leaves out.
 *
 * @module
 */
import { secondsOfDuration } from "../../structs/durations.ts";
import { UsageError } from "../../structs/errors.ts";
import { DroppedRequests } from "./dropped_requests.ts";
import type { Attributes } from "./rbac.ts";
import type { FlowControlTally } from "./traffic.ts";

/** How flow control classified a request: the UIDs its answer names. */
export interface Classification {
  readonly flowSchemaUid: string;
  readonly priorityLevelUid: string;
  /** An exempt priority level serves everything at once. */
  readonly exempt: boolean;
}

/**
 * The level every limited request is classified into: it stands for the `service-accounts`
 * flow schema and its `workload-low` priority level, where an operator's requests go.
 */
export const LIMITED: Classification = Object.freeze({
  flowSchemaUid: "5b0e9f4c-2f1d-4a57-9c3e-8d6a1f0b7e21",
  priorityLevelUid: "a3c7d2e8-61b4-4f09-8e5d-2c9f7b1a4d36",
  exempt: false,
});

/** The `probes` flow schema and the `exempt` priority level: health checks are never held. */
export const EXEMPT: Classification = Object.freeze({
  flowSchemaUid: "0c2d8a51-7e43-4b6f-9a1d-5f8e3c2b7a90",
  priorityLevelUid: "e6f1b3a7-2c94-4d58-8b0e-91a4c7d2f365",
  exempt: true,
});

/** The paths of the `probes` flow schema. */
const PROBES: ReadonlySet<string> = new Set(["/healthz", "/livez", "/readyz"]);

/**
 * kube-apiserver's long-running requests (controlplane/apiserver/config.go, with
 * server/filters/longrunning.go `BasicLongRunningRequestCheck`): these verbs, these
 * subresources, and the profiler's paths.
 */
const LONG_RUNNING_VERBS: ReadonlySet<string> = new Set(["watch", "proxy"]);
const LONG_RUNNING_SUBRESOURCES: ReadonlySet<string> = new Set([
  "attach",
  "exec",
  "proxy",
  "log",
  "portforward",
]);

/** `--request-timeout`'s default: a request's deadline unless its `timeout` is shorter. */
const REQUEST_TIMEOUT_SECONDS = 60;
/** No request waits in a queue longer than this (`getRequestWaitContext`'s hard limit). */
const MAX_WAIT_SECONDS = 60;

/** Whether kube-apiserver counts the request as long-running. */
export function isLongRunning(attributes: Attributes): boolean {
  if (LONG_RUNNING_VERBS.has(attributes.verb)) return true;
  if (attributes.resourceRequest) {
    return LONG_RUNNING_SUBRESOURCES.has(attributes.subresource ?? "");
  }
  return (attributes.path ?? "").startsWith("/debug/pprof/");
}

/** The flow schema and priority level of a request. */
export function classificationOf(attributes: Attributes): Classification {
  const probe = !attributes.resourceRequest && attributes.verb === "get" &&
    PROBES.has(attributes.path ?? "");
  return probe ? EXEMPT : LIMITED;
}

/** A `timeout` query parameter, in seconds, as Go's `time.ParseDuration` reads it. */
function timeoutOf(params: URLSearchParams): number | undefined {
  const text = params.get("timeout");
  // Go wants a unit on every number (a bare `0` apart, which means none anyway).
  if (!text || /^[\d.]+$/.test(text)) return undefined;
  return secondsOfDuration(text);
}

/**
 * How long a request may wait in the queue, in milliseconds: a quarter of its deadline --
 * `--request-timeout` (60 s), or its own `timeout` when shorter -- and at most a minute
 * (server/filters/priority-and-fairness.go `getRequestWaitContext`, the deadline from
 * endpoints/filters/request_deadline.go). A watch has no deadline: it waits the default,
 * a quarter of the request timeout (server/config.go `DefaultBuildHandlerChain`).
 */
export function waitLimitOf(params: URLSearchParams, watch: boolean): number {
  let deadline = REQUEST_TIMEOUT_SECONDS;
  const timeout = watch ? undefined : timeoutOf(params);
  if (timeout !== undefined && timeout > 0 && timeout < deadline) deadline = timeout;
  return Math.min(deadline / 4, MAX_WAIT_SECONDS) * 1000;
}

/** Set the headers that name a request's flow schema and priority level (`setResponseHeaders`). */
export function classified(response: Response, classification: Classification): Response {
  response.headers.set("X-Kubernetes-PF-FlowSchema-UID", classification.flowSchemaUid);
  response.headers.set("X-Kubernetes-PF-PriorityLevel-UID", classification.priorityLevelUid);
  return response;
}

/**
 * A request rejected by flow control, as kube-apiserver answers it: plain text, not a
 * `Status`, with `Retry-After` and the UIDs of the flow schema and priority level that
 * classified it (server/filters: priority-and-fairness.go `tooManyRequests`, Go's
 * `http.Error` for the body and its headers).
 */
export function tooManyRequests(retryAfter: number, classification = LIMITED): Response {
  const response = new Response("Too many requests, please try again later.\n", {
    status: 429,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "X-Content-Type-Options": "nosniff",
      "Retry-After": String(retryAfter),
    },
  });
  return classified(response, classification);
}

/** The limits of {@link FlowControl}. */
export interface FlowControlLimits {
  /** Requests served at once. */
  readonly maxInflight: number;
  /** Requests waiting at once; the rest are rejected. */
  readonly maxQueued: number;
}

/** The limits the cluster's options ask for, checked; `undefined` for none. */
export function flowControlLimits(
  options: { maxInflight?: number; maxQueued?: number },
): FlowControlLimits | undefined {
  const { maxInflight, maxQueued } = options;
  if (maxInflight === undefined) {
    if (maxQueued === undefined) return undefined;
    throw new UsageError("FakeCluster.start(): maxQueued needs maxInflight too.");
  }
  if (!Number.isInteger(maxInflight) || maxInflight < 1) {
    throw new UsageError(
      `FakeCluster.start(): maxInflight must be a whole number of requests, at least 1, not ${maxInflight}.`,
    );
  }
  if (maxQueued !== undefined && !(Number.isInteger(maxQueued) && maxQueued >= 0)) {
    throw new UsageError(
      `FakeCluster.start(): maxQueued must be a whole number of requests, 0 or more, not ${maxQueued}.`,
    );
  }
  return { maxInflight, maxQueued: maxQueued ?? maxInflight };
}

/** What flow control did with one request. */
export interface FlowOutcome {
  readonly response: Response;
  /** Milliseconds it waited in the queue; `undefined` when served or rejected at once. */
  readonly waited?: number;
  /** Whether it was rejected (a 429 of flow control). */
  readonly rejected: boolean;
}

/** One request waiting for a seat. */
interface Waiter {
  /** Give it the seat (`true`) or turn it away (`false`). */
  settle(seated: boolean): void;
}

/** See the module. */
export class FlowControl {
  #executing = 0;
  /** The waiting requests, oldest first. */
  readonly #waiting = new Set<Waiter>();
  readonly #dropped: DroppedRequests;

  constructor(
    readonly limits: FlowControlLimits,
    readonly tally: FlowControlTally,
    readonly now: () => number = Date.now,
  ) {
    this.#dropped = new DroppedRequests(now);
  }

  /** Requests served now (each holding a seat). */
  get executing(): number {
    return this.#executing;
  }

  /** Requests waiting now. */
  get waiting(): number {
    return this.#waiting.size;
  }

  /**
   * Serve a request as flow control lets it: `serve` runs holding a seat (a watch holds it
   * until `serve` returns, its stream set up, as kube-apiserver frees it once the watch
   * is initialized), or not at all when the request is rejected.
   */
  async handle(
    attributes: Attributes,
    params: URLSearchParams,
    serve: () => Promise<Response>,
  ): Promise<FlowOutcome> {
    const watch = attributes.verb === "watch";
    if (isLongRunning(attributes) && !watch) {
      return { response: await serve(), rejected: false };
    }
    const classification = classificationOf(attributes);
    if (classification.exempt) {
      return { response: classified(await serve(), classification), rejected: false };
    }
    const started = this.now();
    const seat = this.#seat(waitLimitOf(params, watch));
    const seated = typeof seat === "boolean" ? seat : await seat;
    const waited = typeof seat === "boolean" ? undefined : this.now() - started;
    if (!seated) {
      this.tally.rejected++;
      this.#dropped.record();
      const response = tooManyRequests(this.#dropped.retryAfter, classification);
      return { response, waited, rejected: true };
    }
    try {
      return { response: classified(await serve(), classification), waited, rejected: false };
    } finally {
      this.#release();
    }
  }

  /** Turn away every waiting request (the cluster stops). */
  close(): void {
    for (const waiter of [...this.#waiting]) waiter.settle(false);
  }

  /**
   * A seat, or none (`false`) when the queue is full or the wait runs out: decided at once,
   * or a promise of it for a request that waits in the queue.
   */
  #seat(waitLimit: number): boolean | Promise<boolean> {
    if (this.#executing < this.limits.maxInflight && this.#waiting.size === 0) {
      this.#executing++;
      this.tally.dispatched++;
      return true;
    }
    if (this.#waiting.size >= this.limits.maxQueued) return false;
    this.tally.queued++;
    return new Promise((resolve) => {
      const waiter: Waiter = {
        settle: (seated) => {
          this.#waiting.delete(waiter);
          clearTimeout(timer);
          resolve(seated);
        },
      };
      const timer = setTimeout(() => {
        this.tally.timedOut++;
        waiter.settle(false);
      }, waitLimit);
      this.#waiting.add(waiter);
    });
  }

  /** A seat is free: the oldest waiting request takes it. */
  #release(): void {
    this.#executing--;
    const next = this.#waiting.values().next();
    if (next.done) return;
    this.#executing++;
    this.tally.dispatched++;
    next.value.settle(true);
  }
}
