/**
 * The log of the requests the fake API server answered, and waiting for one to arrive.
 *
 * @module
 */

/** One request the fake API server answered. */
export interface ServedRequest {
  /** The HTTP method. */
  readonly method: string;
  /** The URL path, e.g. `/api/v1/namespaces/default/pods`. */
  readonly path: string;
  /** The query string without `?`, possibly empty. */
  readonly query: string;
  /** The Kubernetes verb (`get`, `list`, `watch`, `create`, ...), or `""` for discovery and such. */
  readonly verb: string;
  /** The HTTP status answered. */
  readonly status: number;
  /** When the request arrived. */
  readonly time: Date;
  /** How many objects a list answered (one page of them, with `limit`). */
  readonly items?: number;
  /** The `Accept` header, when the request gave one (e.g. to ask for metadata only). */
  readonly accept?: string;
  /**
   * Milliseconds it waited in flow control's queue before it was served or rejected
   * (with the cluster's `maxInflight`); absent when it did not wait.
   */
  readonly waited?: number;
  /**
   * `true` when flow control rejected it (a 429 with `Retry-After`), which tells it from
   * a 429 of `cluster.faults.failRequests()`.
   */
  readonly throttled?: true;
}

/** The request log keeps this many entries, the newest. */
export const REQUEST_LOG_LIMIT = 10_000;

/** The served requests, the newest {@link REQUEST_LOG_LIMIT} of them, and their waiters. */
export class RequestLog {
  readonly #entries: ServedRequest[] = [];
  readonly #waiters = new Set<(entry: ServedRequest) => void>();

  /** Record a served request and tell the waiters. */
  add(entry: ServedRequest): void {
    const entries = this.#entries;
    entries.push(entry);
    // Trimmed in batches: one splice per 10,000 requests, not one per request.
    if (entries.length > 2 * REQUEST_LOG_LIMIT) {
      entries.splice(0, entries.length - REQUEST_LOG_LIMIT);
    }
    for (const waiter of this.#waiters) waiter(entry);
  }

  /** The requests served so far (the newest 10,000 at most), oldest first. */
  get entries(): readonly ServedRequest[] {
    return this.#entries.slice(-REQUEST_LOG_LIMIT);
  }

  /** The first request (served already or to come) that matches; rejects after `seconds`. */
  waitFor(predicate: (request: ServedRequest) => boolean, seconds: number): Promise<ServedRequest> {
    const found = this.#entries.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const waiter = (entry: ServedRequest) => {
        if (!predicate(entry)) return;
        this.#waiters.delete(waiter);
        clearTimeout(timer);
        resolve(entry);
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`Timed out after ${seconds}s waiting for a matching request.`));
      }, seconds * 1000);
      this.#waiters.add(waiter);
    });
  }
}
