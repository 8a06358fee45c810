/**
 * Fault injection: dropped watches, failing requests (5xx, 429 with `Retry-After`),
 * latency, token expiry and history compaction -- the trouble a real cluster gives
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
  /** At most this many requests fail by this rule; then it is spent. Unlimited by default. */
  times?: number;
}

/** Which write replies are lost, and how often; see {@link FakeClusterFaults.loseReplies}. */
export interface LoseRepliesOptions {
  /** The share of matching writes whose reply is lost, from 0 to 1 (1 = all). */
  share: number;
  /** Only these verbs (`create`, `update`, `patch`, `delete`); all writes by default. */
  verbs?: readonly string[];
  /** Only these resources: plural (`pods`), `plural.group` or kind. */
  resources?: readonly string[];
}

/** The verbs that write. */
const WRITE_VERBS: ReadonlySet<string> = new Set([
  "create",
  "update",
  "patch",
  "delete",
  "deletecollection",
]);

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
  /** How many more requests the rules with `times` fail. */
  readonly #left = new Map<FailRequestsOptions, number>();
  #lostReplies: LoseRepliesOptions[] = [];
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
        `failRequests() needs an HTTP error status (400\u2013599), not ${options.status}`,
      );
    }
    if (options.times !== undefined && !(Number.isInteger(options.times) && options.times > 0)) {
      throw new UsageError(
        `failRequests() needs a positive whole number of times, not ${options.times}`,
      );
    }
    const rule = { ...options };
    this.#rules.push(rule);
    if (rule.times !== undefined) this.#left.set(rule, rule.times);
  }

  /**
   * Lose the reply of a share of the matching writes: the write is applied, then the
   * connection breaks before the client reads the answer -- as when a load balancer or the
   * network drops it. The client cannot tell whether its write was done.
   */
  loseReplies(options: LoseRepliesOptions): void {
    if (!(options.share >= 0 && options.share <= 1)) {
      throw new UsageError(`loseReplies() needs a share between 0 and 1, not ${options.share}`);
    }
    this.#lostReplies.push({ ...options });
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
    this.#left.clear();
    this.#lostReplies = [];
    this.#latency = 0;
    this.dropWatchesEvery(null);
  }

  /** The delay to apply to each response, in milliseconds. */
  get currentLatency(): number {
    return this.#latency;
  }

  /** The failure rule hitting this request, if any (decided by chance per `share`). */
  failureFor(verb: string, resource: RequestResource | undefined): FailRequestsOptions | undefined {
    const rule = pick(this.#rules, verb, resource);
    const left = rule === undefined ? undefined : this.#left.get(rule);
    if (rule !== undefined && left !== undefined) {
      if (left <= 1) {
        this.#left.delete(rule);
        this.#rules = this.#rules.filter((r) => r !== rule);
      } else {
        this.#left.set(rule, left - 1);
      }
    }
    return rule;
  }

  /** Whether the reply to this (written) request is to be lost (decided by chance). */
  losesReply(verb: string, resource: RequestResource | undefined): boolean {
    return WRITE_VERBS.has(verb) && pick(this.#lostReplies, verb, resource) !== undefined;
  }
}

/** The first rule that matches the request, decided by chance per its `share`. */
function pick<
  T extends { share: number; verbs?: readonly string[]; resources?: readonly string[] },
>(
  rules: readonly T[],
  verb: string,
  resource: RequestResource | undefined,
): T | undefined {
  for (const rule of rules) {
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
