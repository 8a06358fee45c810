/**
 * The lanes of the queueing, in their order of priority, and how long each waits behind the
 * lanes before it: the one place where they are defined. An object waits for its place in
 * the lane of the state it waits with:
 *
 * - **live**: a change told of by a live watch event -- made now, and someone may wait for it;
 * - **retries**: the object's own work coming back -- a handler's retry after a failure or a
 *   delay it asked for, the framework's retry after an error, a parent queued again for its
 *   children's changes: work in progress, but already served once;
 * - **listings**: a state found by a listing (the start, a re-listing after a gap, a resync):
 *   mostly objects that have not changed since they were last handled.
 *
 * A lane's handicap is how long its waiters wait behind newer ones of the lanes before it
 * (see `structs/fair_queues.ts`): a retry due now goes after the live changes of the next 2
 * seconds, a listed object after those of the next 5, so a steady stream of changes delays
 * the other lanes by that much and never starves them. Within each lane, the tenants
 * (`settings.queueing.fairness`) take turns.
 *
 * @module
 */

/** A lane of the queueing (its index in {@link LANE_HANDICAPS}). */
export type Lane = typeof LIVE | typeof RETRIES | typeof LISTINGS;

/** States told of by live watch events. */
export const LIVE = 0;
/** Retries and revisits of an object's own processing, and parents queued again. */
export const RETRIES = 1;
/** States found by listings and re-listings. */
export const LISTINGS = 2;

/**
 * The seconds for which each lane's waiters wait behind the newer ones of the lanes before
 * it, by lane: see the module docs.
 */
export const LANE_HANDICAPS: readonly number[] = Object.freeze([0, 2, 5]);

/** The lane of a state: `again` for a processing that comes back, else by its event type. */
export function laneOf(type: string | null, again: boolean): Lane {
  return again ? RETRIES : type === null ? LISTINGS : LIVE;
}
