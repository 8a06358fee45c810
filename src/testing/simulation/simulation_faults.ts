/**
 * What may go wrong in a simulated run, and how often: the faults of a real cluster, the
 * legal answers of kube-apiserver that operators get wrong, and the operator's own
 * accidents. Each is on by default at a rate that a few minutes of simulated time meets
 * several times; `false` turns it off, a number weighs it (2: twice as often).
 *
 * @module
 */
import { UsageError } from "../../structs/errors.ts";

/** Switches and weights of what may go wrong in a simulated run; see each. */
export interface SimulationFaults {
  /**
   * The operator crashes as on SIGKILL -- its memory lost, its unfinished work unwritten --
   * right after one of its writes lands (before it reads the reply), or at any moment;
   * it is restarted a few seconds later.
   */
  readonly crashes?: boolean | number;
  /** The operator is stopped gracefully (as on SIGTERM) and started again. */
  readonly restarts?: boolean | number;
  /**
   * With several replicas: the one holding a Lease (the leader) is stopped gracefully, and
   * another takes the leadership over.
   */
  readonly takeovers?: boolean | number;
  /** The operator's token expires: its requests get 401 until it logs in again. */
  readonly tokenExpiry?: boolean | number;
  /**
   * The server closes a watch at any moment, cleanly, as its timeout does (kube-apiserver
   * ends each watch after a random part of its request timeout).
   */
  readonly watchTimeouts?: boolean | number;
  /** A watch breaks mid-stream, as when a connection is cut. */
  readonly watchDrops?: boolean | number;
  /**
   * Bookmarks come late or not at all, the `initial-events-end` one of a streaming list
   * included (the watch then closes before it: a client must not wait for it for ever).
   */
  readonly bookmarks?: boolean | number;
  /**
   * A watch resumed from a resourceVersion is answered with `410 Gone` (the watch cache
   * no longer holds it), so the client lists again and sees several changes as one.
   */
  readonly expiredResumes?: boolean | number;
  /**
   * The server of a seed does not stream lists in watches (as before Kubernetes 1.32, or
   * with the WatchList feature off): clients list in pages, then watch from the list.
   */
  readonly pagedLists?: boolean | number;
  /** Watch events come late, as from a watch cache that lags behind the writes. */
  readonly watchLag?: boolean | number;
  /**
   * A write that names a resourceVersion (an update, a patch or a deletion with that
   * precondition) fails with `409 Conflict`, as when another writer came first.
   */
  readonly conflicts?: boolean | number;
  /**
   * Requests are refused with `429 Too Many Requests` and a `Retry-After`, as API Priority
   * and Fairness does, or fail with `500`/`503`.
   */
  readonly errors?: boolean | number;
  /** A write is done but its reply is lost: the client cannot tell whether it was. */
  readonly lostReplies?: boolean | number;
  /**
   * Requests, replies and watch events take a few milliseconds each, drawn from the seed:
   * the order of whatever is in flight at once follows from it.
   */
  readonly latency?: boolean | number;
}

/** The names of the faults, in the order they are documented. */
export const FAULT_NAMES: readonly (keyof SimulationFaults)[] = [
  "crashes",
  "restarts",
  "takeovers",
  "tokenExpiry",
  "watchTimeouts",
  "watchDrops",
  "bookmarks",
  "expiredResumes",
  "pagedLists",
  "watchLag",
  "conflicts",
  "errors",
  "lostReplies",
  "latency",
];

/** The weights of the faults: 0 for off. */
export type FaultWeights = { readonly [name in keyof SimulationFaults]-?: number };

/** The weights of the faults as given: on (1) unless turned off or weighed. */
export function faultWeights(faults: SimulationFaults | false | undefined): FaultWeights {
  const weights = {} as Record<keyof SimulationFaults, number>;
  if (faults !== undefined && faults !== false && (typeof faults !== "object" || faults === null)) {
    throw new UsageError(
      `The simulation's faults must be an object of switches (e.g. { crashes: false }) or false, not ${
        JSON.stringify(faults)
      }.`,
    );
  }
  for (const key of Object.keys(faults || {})) {
    if (!(FAULT_NAMES as readonly string[]).includes(key)) {
      throw new UsageError(
        `Unknown simulation fault ${JSON.stringify(key)}: use ${FAULT_NAMES.join(", ")}.`,
      );
    }
  }
  for (const name of FAULT_NAMES) {
    const value = faults === false ? false : faults?.[name];
    if (value === undefined || value === true) weights[name] = 1;
    else if (value === false) weights[name] = 0;
    else if (typeof value === "number" && Number.isFinite(value) && value >= 0) {
      weights[name] = value;
    } else {
      throw new UsageError(
        `The simulation fault ${name} must be true, false or a weight of 0 or more, not ${
          JSON.stringify(value)
        }.`,
      );
    }
  }
  return weights;
}

/**
 * The base rates, at weight 1: chances per opportunity, or mean seconds between events.
 * Chosen so that a 10-object, 10-minute scenario meets most of them a few times.
 */
export const BASE_RATES = {
  /** The chance that the operator dies right after one of its writes lands. */
  crashAfterWrite: 0.01,
  /** Mean seconds between crashes at any moment. */
  crashEvery: 3600,
  /** Mean seconds between graceful restarts. */
  restartEvery: 3600,
  /** Mean seconds between stops of the leader (with several replicas). */
  takeoverEvery: 1800,
  /** Mean seconds between token expiries. */
  tokenExpiryEvery: 1800,
  /** Seconds before a crashed or stopped operator is started again: from, to. */
  restartDelay: [1, 10] as const,
  /** Mean seconds a watch lives before the server's timeout closes it. */
  watchLifetime: 180,
  /** Mean seconds a watch lives before it breaks. */
  watchDropEvery: 900,
  /** The chance that a bookmark is lost, and that one comes late. */
  bookmarkLost: 0.3,
  bookmarkLate: 0.3,
  /** The chance that a resumed watch is told 410 Gone. */
  expiredResume: 0.2,
  /** The chance that a seed's server has no streaming lists. */
  pagedLists: 0.3,
  /** The chance that a watch event comes late, and by how much (seconds): from, to. */
  eventLate: 0.03,
  eventDelay: [0.5, 8] as const,
  /** The chance of a 409 on a write with a resourceVersion. */
  conflict: 0.05,
  /** The chance of a 429, and of a 5xx, per request. */
  throttled: 0.02,
  failed: 0.005,
  /** The chance that a write's reply is lost. */
  lostReply: 0.01,
  /** A request's and a reply's latency in seconds: from, to (log-uniform). */
  latency: [0.0005, 0.02] as const,
  /** A watch event's latency in seconds: from, to (log-uniform). */
  eventLatency: [0.0002, 0.005] as const,
} as const;
