/**
 * The operator's metrics, named and labelled in one place, as Prometheus' conventions
 * want them: the `kopf_` prefix, base units (seconds, bytes), `_total` for counters,
 * histograms for durations, and labels of bounded cardinality (resources, handler ids,
 * verbs, codes, outcomes -- never object names or uids).
 *
 * Each part of the operator records into the one {@link OperatorMetrics} it is given;
 * parts that are given none record nothing.
 *
 * @module
 */
import { type Counter, type Gauge, type Histogram, MetricsRegistry } from "./metrics.ts";
import { realClock } from "./clock.ts";

/** How one run of a handler ended, as `kopf_handler_runs_total` counts it. */
export type HandlerRunOutcome =
  | "success"
  | "temporary_error"
  | "permanent_error"
  | "exception"
  | "timeout"
  | "retries_exhausted";

/** Buckets for the duration of API requests and admission reviews, in seconds. */
const FAST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Buckets for the duration of handlers, in seconds (they may run for minutes). */
const HANDLER_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300];

/**
 * The operator's metrics: names, help texts and label names, by field of
 * {@link OperatorMetrics}.
 */
const DEFINITIONS = {
  handlerRuns: {
    name: "kopf_handler_runs_total",
    help: "Handler runs by resource, handler id and outcome.",
    labels: ["resource", "handler", "outcome"],
  },
  handlerDuration: {
    name: "kopf_handler_duration_seconds",
    help: "How long handler runs took.",
    labels: ["resource", "handler"],
    buckets: HANDLER_BUCKETS,
  },
  processingCycles: {
    name: "kopf_processing_cycles_total",
    help: "Object states processed, by resource.",
    labels: ["resource"],
  },
  patches: {
    name: "kopf_patches_total",
    help: "Patch requests that stored handling outcomes, by resource.",
    labels: ["resource"],
  },
  eventsReceived: {
    name: "kopf_events_received_total",
    help: "Watch events received, by resource and type (LISTED for listed objects).",
    labels: ["resource", "type"],
  },
  queueDepth: {
    name: "kopf_queue_depth",
    help: "Objects with events waiting to be processed, by resource (0 once none waits).",
    labels: ["resource"],
  },
  queueOldestAge: {
    name: "kopf_queue_oldest_event_age_seconds",
    help: "How long the oldest waiting event has waited, by resource.",
    labels: ["resource"],
  },
  workersBusy: {
    name: "kopf_workers_busy",
    help: "Objects being processed now.",
  },
  watchConnects: {
    name: "kopf_watch_connects_total",
    help: "Watch requests opened, by resource.",
    labels: ["resource"],
  },
  watchReconnects: {
    name: "kopf_watch_reconnects_total",
    help: "Watch streams that ended and were opened again, by resource.",
    labels: ["resource"],
  },
  watchErrors: {
    name: "kopf_watch_errors_total",
    help: "Watch streams that failed (broke, or the server sent an error), by resource.",
    labels: ["resource"],
  },
  watchRelists: {
    name: "kopf_watch_relists_total",
    help: "Full listings after a watch's history was gone (410), by resource.",
    labels: ["resource"],
  },
  watchSilence: {
    name: "kopf_watch_silence_seconds",
    help: "Seconds since a watch last heard from the server (event or bookmark).",
    labels: ["resource"],
  },
  apiRequests: {
    name: "kopf_api_requests_total",
    help: "Kubernetes API requests by verb, resource and status code.",
    labels: ["verb", "resource", "code"],
  },
  apiDuration: {
    name: "kopf_api_request_duration_seconds",
    help: "How long Kubernetes API requests took.",
    labels: ["verb", "resource"],
    buckets: FAST_BUCKETS,
  },
  apiRetries: {
    name: "kopf_api_retries_total",
    help: "Kubernetes API requests retried, by verb, resource and reason.",
    labels: ["verb", "resource", "reason"],
  },
  apiThrottled: {
    name: "kopf_api_throttled_total",
    help:
      "Kubernetes API requests answered 429 (throttled by the API server), by verb and resource.",
    labels: ["verb", "resource"],
  },
  apiConcurrencyLimit: {
    name: "kopf_api_concurrency_limit",
    help: "The client's adaptive limit of regular API requests in flight at once.",
  },
  apiConcurrencyInflight: {
    name: "kopf_api_concurrency_inflight",
    help: "Regular API requests in flight under the client's adaptive limit.",
  },
  apiConcurrencyWaiting: {
    name: "kopf_api_concurrency_waiting",
    help: "API requests waiting in the client for a place under its adaptive limit.",
  },
  objects: {
    name: "kopf_objects",
    help: "Objects the operator knows, by resource.",
    labels: ["resource"],
  },
  spawned: {
    name: "kopf_spawned_running",
    help: "Daemons and timers running, by kind.",
    labels: ["kind"],
  },
  indexSize: {
    name: "kopf_index_keys",
    help: "Keys in each index.",
    labels: ["index"],
  },
  admissionReviews: {
    name: "kopf_admission_reviews_total",
    help: "Admission reviews by webhook, operation and outcome.",
    labels: ["webhook", "operation", "outcome"],
  },
  admissionDuration: {
    name: "kopf_admission_review_duration_seconds",
    help: "How long admission reviews took.",
    labels: ["webhook"],
    buckets: FAST_BUCKETS,
  },
  peeringPaused: {
    name: "kopf_peering_paused",
    help: "1 while a peer of a higher priority pauses the operator, else 0.",
  },
  leading: {
    name: "kopf_leading",
    help: "1 while this replica leads (leader election) or holds a shard (sharding), else 0.",
  },
  ready: {
    name: "kopf_ready",
    help: "1 once the initial listings are in and the indices populated, else 0.",
  },
} as const;

/** The metrics of one operator; see the module docs. */
export class OperatorMetrics {
  /** Where they are kept and exposed from. */
  readonly registry: MetricsRegistry;

  /** Handler runs by resource, handler id and outcome. */
  readonly handlerRuns: Counter;
  /** How long handler runs took, by resource and handler id. */
  readonly handlerDuration: Histogram;
  /** Processing cycles (one state of one object) by resource. */
  readonly processingCycles: Counter;
  /** PATCH requests that stored outcomes, by resource. */
  readonly patches: Counter;
  /** Watch events received, by resource and type (`LISTED` for listed objects). */
  readonly eventsReceived: Counter;
  /**
   * Objects with events waiting to be processed, by resource: 0 for each resource the queue
   * has served once none waits, so that dashboards show 0 rather than no data.
   */
  readonly queueDepth: Gauge;
  /** How long the oldest waiting event has waited, by resource, in seconds (0 likewise). */
  readonly queueOldestAge: Gauge;
  /** Objects being processed now. */
  readonly workersBusy: Gauge;
  /** Watch requests opened, by resource. */
  readonly watchConnects: Counter;
  /** Watch streams that ended and were opened again, by resource. */
  readonly watchReconnects: Counter;
  /** Watch streams that failed (broke, or the server sent an error), by resource. */
  readonly watchErrors: Counter;
  /** Full listings after the watch's history was gone (410), by resource. */
  readonly watchRelists: Counter;
  /** Seconds since a watch last heard from the server (an event or a bookmark), by resource. */
  readonly watchSilence: Gauge;
  /** API requests by verb, resource and status code (`error` when none came). */
  readonly apiRequests: Counter;
  /** How long API requests took, by verb and resource. */
  readonly apiDuration: Histogram;
  /** API requests retried, by verb, resource and reason (a code, or `network`, `timeout`). */
  readonly apiRetries: Counter;
  /** API requests answered 429 (the server's flow control), by verb and resource. */
  readonly apiThrottled: Counter;
  /** The client's adaptive limit of requests in flight (set by the client while adaptive). */
  readonly apiConcurrencyLimit: Gauge;
  /** Requests in flight under the client's adaptive limit. */
  readonly apiConcurrencyInflight: Gauge;
  /** Requests waiting in the client for a place under its adaptive limit. */
  readonly apiConcurrencyWaiting: Gauge;
  /** Objects the operator knows, by resource. */
  readonly objects: Gauge;
  /** Daemons and timers running, by kind (`daemon`, `timer`). */
  readonly spawned: Gauge;
  /** Keys in each index, by index. */
  readonly indexSize: Gauge;
  /**
   * Admission reviews by webhook (a registered handler's id, `all`, or `unknown` for any
   * other id in the URL), operation (`unknown` for none of the four) and outcome.
   */
  readonly admissionReviews: Counter;
  /** How long admission reviews took, by webhook. */
  readonly admissionDuration: Histogram;
  /** 1 while the operator is paused by a peer of a higher priority, else 0. */
  readonly peeringPaused: Gauge;
  /** 1 while this replica handles objects under leader election or sharding. */
  readonly leading: Gauge;
  /** 1 once the operator is ready (initial listings in, indices populated), else 0. */
  readonly ready: Gauge;
  /** The open watches: when each last heard from the server (for `kopf_watch_silence_seconds`). */
  readonly watches: Map<object, { readonly resource: string; heardAt: number }> = new Map();

  /** The operator's metrics in a registry of their own (or the one given). */
  constructor(registry: MetricsRegistry = new MetricsRegistry()) {
    this.registry = registry;
    const r = registry;
    const d = DEFINITIONS;
    this.handlerRuns = r.counter(d.handlerRuns);
    this.handlerDuration = r.histogram(d.handlerDuration);
    this.processingCycles = r.counter(d.processingCycles);
    this.patches = r.counter(d.patches);
    this.eventsReceived = r.counter(d.eventsReceived);
    this.queueDepth = r.gauge(d.queueDepth);
    this.queueOldestAge = r.gauge(d.queueOldestAge);
    this.workersBusy = r.gauge(d.workersBusy);
    this.watchConnects = r.counter(d.watchConnects);
    this.watchReconnects = r.counter(d.watchReconnects);
    this.watchErrors = r.counter(d.watchErrors);
    this.watchRelists = r.counter(d.watchRelists);
    this.watchSilence = r.gauge(d.watchSilence).collectWith((set) => {
      const now = realClock.now();
      const longest = new Map<string, number>();
      for (const { resource, heardAt } of this.watches.values()) {
        longest.set(resource, Math.max(longest.get(resource) ?? 0, now - heardAt));
      }
      for (const [resource, seconds] of longest) set([resource], seconds);
    });
    this.apiRequests = r.counter(d.apiRequests);
    this.apiDuration = r.histogram(d.apiDuration);
    this.apiRetries = r.counter(d.apiRetries);
    this.apiThrottled = r.counter(d.apiThrottled);
    this.apiConcurrencyLimit = r.gauge(d.apiConcurrencyLimit);
    this.apiConcurrencyInflight = r.gauge(d.apiConcurrencyInflight);
    this.apiConcurrencyWaiting = r.gauge(d.apiConcurrencyWaiting);
    this.objects = r.gauge(d.objects);
    this.spawned = r.gauge(d.spawned);
    this.indexSize = r.gauge(d.indexSize);
    this.admissionReviews = r.counter(d.admissionReviews);
    this.admissionDuration = r.histogram(d.admissionDuration);
    this.peeringPaused = r.gauge(d.peeringPaused);
    this.leading = r.gauge(d.leading);
    this.ready = r.gauge(d.ready);
  }
}
