/** Counting a fake cluster's API requests during a benchmark. */
import type { FakeCluster } from "../../../src/testing/mod.ts";
import type { ServedRequest } from "../../../src/testing/fake_cluster/mod.ts";

const WRITE_VERBS = new Set(["create", "update", "patch", "delete"]);

/**
 * Counts the fake cluster's requests as they come: call {@link drain} often enough (every
 * 50 ms or so), because the cluster's log keeps only the newest 10,000.
 */
export class RequestCounter {
  #last: ServedRequest | undefined;
  readonly byVerb = new Map<string, number>();
  /** When the last write to an object (not an Event) arrived, in ms since the epoch. */
  lastWrite = 0;
  /** Write requests to `objects` and to `events`. */
  readonly writesTo = new Map<string, number>();
  /** Objects whose own body (not only the status) has been patched successfully. */
  readonly patched = new Set<string>();
  /** Objects whose status subresource has been patched successfully. */
  readonly statusPatched = new Set<string>();

  constructor(private readonly cluster: FakeCluster) {
    const log = cluster.requests;
    this.#last = log[log.length - 1];
  }

  drain(): void {
    const log = this.cluster.requests;
    const from = this.#last ? log.lastIndexOf(this.#last) + 1 : 0;
    for (let i = from; i < log.length; i++) {
      const request = log[i];
      this.byVerb.set(request.verb, (this.byVerb.get(request.verb) ?? 0) + 1);
      if (!WRITE_VERBS.has(request.verb)) continue;
      const what = request.path.includes("/events") ? "events" : "objects";
      this.writesTo.set(what, (this.writesTo.get(what) ?? 0) + 1);
      if (what === "objects") this.lastWrite = Math.max(this.lastWrite, request.time.getTime());
      if (request.verb === "patch" && request.status < 300) {
        const status = request.path.endsWith("/status");
        const path = status ? request.path.slice(0, -"/status".length) : request.path;
        const name = path.slice(path.lastIndexOf("/") + 1);
        (status ? this.statusPatched : this.patched).add(name);
      }
    }
    this.#last = log[log.length - 1] ?? this.#last;
  }

  get total(): number {
    return [...this.byVerb.values()].reduce((a, b) => a + b, 0);
  }

  get writes(): number {
    return [...this.writesTo.values()].reduce((a, b) => a + b, 0);
  }

  /** The requests by verb, e.g. `list 1, watch 1, patch 1000`. */
  describe(): string {
    return [...this.byVerb].map(([verb, count]) => `${verb || "other"} ${count}`).join(", ");
  }
}
