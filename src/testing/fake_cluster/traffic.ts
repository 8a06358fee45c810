/**
 * What the fake API server has sent, per resource: the objects of list responses, watch
 * events and GET responses, and the bytes of the bodies that carried them -- so that a
 * benchmark can tell what a change to the watching costs on the wire (metadata only,
 * server-side selectors). Counted where the bodies are made: the byte lengths of the
 * encoded responses and of the watch lines as written (cached lines included), never by
 * serialising anything again. Also what flow control did with the requests it limits.
 *
 * @module
 */

/** Counts of one kind of traffic: how many, and their bytes. */
export interface TrafficTally {
  /** How many responses or events. */
  readonly count: number;
  /** Their bytes, as sent (UTF-8 JSON). */
  readonly bytes: number;
}

/**
 * What the fake API server sent for one resource, or for all: only successful answers
 * (2xx) are counted, error `Status` responses never.
 */
export interface TrafficCounts {
  /**
   * Objects sent: the items of list responses, the watch events that carry an object
   * (`ADDED`, `MODIFIED`, `DELETED`, the initial events of streamed listings included),
   * and the GET responses of single objects (one each).
   */
  readonly objects: number;
  /** The bytes of those: list and GET response bodies, and those watch events' lines. */
  readonly bytes: number;
  /** List responses (one per page): how many, their bytes, and their `items`. */
  readonly lists: TrafficTally & { readonly items: number };
  /** GET responses of single objects (and their subresources): how many, their bytes. */
  readonly gets: TrafficTally;
  /** Watch events with objects: how many, their bytes (each line with its newline). */
  readonly watchEvents: TrafficTally;
  /** `BOOKMARK` events (the end of initial events too): not in `objects` and `bytes`. */
  readonly bookmarks: TrafficTally;
  /** `ERROR` events of watches (410 at a resume): not in `objects` and `bytes`. */
  readonly watchErrors: TrafficTally;
}

/**
 * What API Priority and Fairness did with the requests it limits (with
 * the cluster's `maxInflight` option; all 0 without): a request is either dispatched
 * (served) or rejected with a 429, at once or after waiting in the queue.
 */
export interface FlowControlCounts {
  /** Requests served, at once or after waiting. */
  readonly dispatched: number;
  /** Requests that waited in the queue, then were served or rejected. */
  readonly queued: number;
  /** Requests answered with 429: the queue was full, or their wait ran out. */
  readonly rejected: number;
  /** Of the rejected, those whose wait in the queue ran out. */
  readonly timedOut: number;
}

/**
 * What the fake API server has sent since it started: in total, and per resource, keyed as
 * {@link FakeResource} names resources -- `configmaps` for the core group,
 * `kopfexamples.kopf.dev` (plural.group) for others. A snapshot: read it again for newer
 * counts, and subtract two for what happened between them.
 */
export interface FakeClusterTraffic {
  /** Everything sent, all resources together. */
  readonly total: TrafficCounts;
  /** Per resource that has sent anything. */
  readonly resources: Readonly<Record<string, TrafficCounts>>;
  /** The requests that flow control limited: served, queued, rejected with 429. */
  readonly flowControl: FlowControlCounts;
}

/** The counters of flow control, bumped as it decides. */
export class FlowControlTally {
  dispatched = 0;
  queued = 0;
  rejected = 0;
  timedOut = 0;

  /** The counts as the public, frozen shape. */
  counts(): FlowControlCounts {
    const { dispatched, queued, rejected, timedOut } = this;
    return Object.freeze({ dispatched, queued, rejected, timedOut });
  }
}

/** The counters of one resource, bumped where the bodies are made. */
export class ResourceTraffic {
  listResponses = 0;
  listItems = 0;
  listBytes = 0;
  getResponses = 0;
  getBytes = 0;
  events = 0;
  eventBytes = 0;
  bookmarks = 0;
  bookmarkBytes = 0;
  errors = 0;
  errorBytes = 0;

  /** A watch line of this type was written. */
  watchLine(type: string, bytes: number): void {
    if (type === "BOOKMARK") {
      this.bookmarks++;
      this.bookmarkBytes += bytes;
    } else if (type === "ERROR") {
      this.errors++;
      this.errorBytes += bytes;
    } else {
      this.events++;
      this.eventBytes += bytes;
    }
  }

  /** These counts added to `into`'s. */
  addTo(into: ResourceTraffic): void {
    into.listResponses += this.listResponses;
    into.listItems += this.listItems;
    into.listBytes += this.listBytes;
    into.getResponses += this.getResponses;
    into.getBytes += this.getBytes;
    into.events += this.events;
    into.eventBytes += this.eventBytes;
    into.bookmarks += this.bookmarks;
    into.bookmarkBytes += this.bookmarkBytes;
    into.errors += this.errors;
    into.errorBytes += this.errorBytes;
  }

  /** The counts as the public, frozen shape. */
  counts(): TrafficCounts {
    return Object.freeze({
      objects: this.listItems + this.events + this.getResponses,
      bytes: this.listBytes + this.eventBytes + this.getBytes,
      lists: Object.freeze({
        count: this.listResponses,
        bytes: this.listBytes,
        items: this.listItems,
      }),
      gets: Object.freeze({ count: this.getResponses, bytes: this.getBytes }),
      watchEvents: Object.freeze({ count: this.events, bytes: this.eventBytes }),
      bookmarks: Object.freeze({ count: this.bookmarks, bytes: this.bookmarkBytes }),
      watchErrors: Object.freeze({ count: this.errors, bytes: this.errorBytes }),
    });
  }
}

/** The counters of every resource that has sent anything. */
export class Traffic {
  /** By the resource's name in {@link FakeClusterTraffic.resources} (`plural.group`). */
  readonly #resources = new Map<string, ResourceTraffic>();
  /** What flow control did with the requests. */
  readonly flowControl = new FlowControlTally();

  /** The counters of a resource (made at its first traffic). */
  of(group: string, plural: string): ResourceTraffic {
    const key = group ? `${plural}.${group}` : plural;
    let counters = this.#resources.get(key);
    if (counters === undefined) {
      counters = new ResourceTraffic();
      this.#resources.set(key, counters);
    }
    return counters;
  }

  /** A frozen snapshot of all counts. */
  snapshot(): FakeClusterTraffic {
    const total = new ResourceTraffic();
    const resources: Record<string, TrafficCounts> = {};
    for (const [name, counters] of this.#resources) {
      counters.addTo(total);
      resources[name] = counters.counts();
    }
    return Object.freeze({
      total: total.counts(),
      resources: Object.freeze(resources),
      flowControl: this.flowControl.counts(),
    });
  }
}
