/**
 * Fault injection: dropped watches, failing requests (5xx, 429 with `Retry-After`),
 * latency, token expiry and history compaction — the trouble a real cluster gives
 * operators, on demand.
 *
 * @module
 */
import { UsageError } from "../../structs/errors.ts";

/** Which requests fail, and how. */
export interface FailRequestsOptions {
  /** The share of matching requests that fail, from 0 to 1 (1 = all). */
  share: number;
  /** The HTTP status code to fail with, e.g. 500, 503 or 429. */
  status: number;
  /** Only these verbs (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`). */
  verbs?: readonly string[];
  /** Only these resources: plural (`pods`), `plural.group` or kind. */
  resources?: readonly string[];
  /** Seconds for the `Retry-After` header; 429s get 1 when omitted. */
  retryAfter?: number;
}

/** What the faults act upon: the running cluster. */
export interface FaultTargets {
  dropWatches(): void;
  expireToken(): string | undefined;
  compact(): void;
}

/** The resource a request addressed, for matching failure rules. */
export interface RequestResource {
  /** The plural name, e.g. `pods`. */
  plural: string;
  /** The API group, `""` for the core group. */
  group: string;
  /** The kind, e.g. `Pod`. */
  kind: string;
}

/** Fault injection controls of a {@link FakeCluster}; see each method. */
export class FakeClusterFaults {
  readonly #targets: FaultTargets;
  #rules: FailRequestsOptions[] = [];
  #latency = 0;
  #dropTimer?: ReturnType<typeof setInterval>;

  /** Made by the cluster; tests use `cluster.faults`. */
  constructor(targets: FaultTargets) {
    this.#targets = targets;
  }

  /** Break every open watch now: their HTTP streams end mid-flight. */
  dropWatches(): void {
    this.#targets.dropWatches();
  }

  /** Break all open watches every so many seconds; `null` stops it. */
  dropWatchesEvery(seconds: number | null): void {
    clearInterval(this.#dropTimer);
    this.#dropTimer = undefined;
    if (seconds === null) return;
    if (!(seconds > 0)) {
      throw new UsageError(
        `dropWatchesEvery() needs a positive number of seconds or null, not ${seconds}`,
      );
    }
    this.#dropTimer = setInterval(() => this.#targets.dropWatches(), seconds * 1000);
  }

  /** Fail a share of the matching requests with a Kubernetes `Status` of that code. */
  failRequests(options: FailRequestsOptions): void {
    if (!(options.share >= 0 && options.share <= 1)) {
      throw new UsageError(`failRequests() needs a share between 0 and 1, not ${options.share}`);
    }
    if (!(options.status >= 400 && options.status <= 599)) {
      throw new UsageError(
        `failRequests() needs an HTTP error status (400–599), not ${options.status}`,
      );
    }
    this.#rules.push({ ...options });
  }

  /** Delay every response by so many milliseconds (0 removes the delay). */
  latency(ms: number): void {
    if (!(ms >= 0)) {
      throw new UsageError(`latency() needs a non-negative number of milliseconds, not ${ms}`);
    }
    this.#latency = ms;
  }

  /** Issue a new token; requests with the old one get 401 from now on. Returns the new one. */
  expireToken(): string | undefined {
    return this.#targets.expireToken();
  }

  /** Forget the change history: watches from any older resourceVersion get 410 Gone. */
  compact(): void {
    this.#targets.compact();
  }

  /** Remove all failure rules, the latency and the periodic watch drops. */
  clear(): void {
    this.#rules = [];
    this.#latency = 0;
    this.dropWatchesEvery(null);
  }

  /** The delay to apply to each response, in milliseconds. */
  get currentLatency(): number {
    return this.#latency;
  }

  /** The failure rule hitting this request, if any (decided by chance per `share`). */
  failureFor(verb: string, resource: RequestResource | undefined): FailRequestsOptions | undefined {
    for (const rule of this.#rules) {
      if (rule.verbs && !rule.verbs.includes(verb)) continue;
      if (rule.resources) {
        if (!resource) continue;
        const names = [resource.plural, `${resource.plural}.${resource.group}`, resource.kind];
        if (!rule.resources.some((r) => names.includes(r))) continue;
      }
      if (rule.share >= 1 || Math.random() < rule.share) return rule;
    }
    return undefined;
  }
}
