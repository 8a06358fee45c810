/**
 * The priority of the API client's requests: which of them wait longer when the client
 * holds requests back (see `concurrency.ts`). The requests made for live changes of objects
 * go first; those of work that can wait -- resuming objects found by a listing, timers,
 * daemons, handlers retried after an error, the events posted about objects -- go after
 * them (but not for ever: they age). The coordination of replicas (leader election,
 * sharding, peering) is `exempt`: its Leases must be renewed in time whatever the handlers
 * send, as kube-apiserver's APF gives leader election a priority level of its own
 * (`apis/flowcontrol/bootstrap/default.go`, `leader-election`).
 *
 * A caller does not pass the priority with every request: code run under
 * {@link runWithRequestPriority} (a handler and all it awaits) makes its requests at that
 * priority, whichever function sends them. Requests made outside any are `live`.
 *
 * @module
 */
import { AsyncContext, type Binding } from "../platform/async_context.ts";

/**
 * The priorities of requests: `exempt` for the coordination of replicas (never held back
 * by the client's limit, nor counted in it), then, first to last among those that wait,
 * `live` for the changes happening now (and anything not marked), `deferred` for work
 * that can wait (resumes, timers, daemons, retries, events).
 */
export type RequestPriority = "exempt" | "live" | "deferred";

/** The priorities that wait for a place under the client's limit, first to last. */
export const REQUEST_PRIORITIES: readonly RequestPriority[] = Object.freeze(["live", "deferred"]);

const priorities = new AsyncContext<RequestPriority>();

/** Run `fn` so that the requests it makes (and all it awaits makes) go at this priority. */
export function runWithRequestPriority<R>(priority: RequestPriority, fn: () => R): R {
  return priorities.run(priority, fn);
}

/**
 * The binding of the priority, for code that sets several contexts in one switch
 * (`AsyncContext.runAll`), as the handling of an object does per handler run.
 */
export function requestPriorityBinding(priority: RequestPriority): Binding {
  return priority === "deferred" ? DEFERRED : LIVE;
}

const DEFERRED: Binding = Object.freeze([priorities as AsyncContext<unknown>, "deferred"]);
const LIVE: Binding = Object.freeze([priorities as AsyncContext<unknown>, "live"]);

/** The priority of requests made now: the innermost one set, else `live`. */
export function currentRequestPriority(): RequestPriority {
  return priorities.get() ?? "live";
}
