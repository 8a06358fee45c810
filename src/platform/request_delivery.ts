/**
 * What a failed HTTP request tells about whether it reached the server: the facts that the
 * API client's retry policy needs and only the transport knows. The transport marks its
 * errors with {@link markDelivery}; the API client reads them with {@link deliveryOf} and
 * alone decides whether to send the request again (a transport never replays on its own).
 *
 * @module
 */

/** Whether a failed request may have reached the server, and how it failed. */
export interface Delivery {
  /**
   * No byte of the request left this process (the connection could not be made, or was
   * found closed before writing): safe to send again whatever the method.
   */
  readonly unsent: boolean;
  /**
   * It failed on a kept connection before any byte of an answer arrived: the server (or a
   * proxy between) may have closed the connection as idle. A request that is safe to replay
   * may go again at once, on a new connection.
   */
  readonly staleConnection: boolean;
}

const NOTHING_KNOWN: Delivery = Object.freeze({ unsent: false, staleConnection: false });

const deliveries = new WeakMap<object, Delivery>();

/** Mark an error with what the transport knows of its request's delivery; returns it. */
export function markDelivery<E extends object>(error: E, delivery: Partial<Delivery>): E {
  deliveries.set(error, { ...NOTHING_KNOWN, ...deliveries.get(error), ...delivery });
  return error;
}

/**
 * What is known of the delivery of the request that failed with this error (or with one of
 * its causes); nothing (maybe sent, not stale) for errors the transport did not mark.
 */
export function deliveryOf(error: unknown): Delivery {
  for (let e = error, depth = 0; typeof e === "object" && e !== null && depth < 8; depth++) {
    const known = deliveries.get(e);
    if (known !== undefined) return known;
    e = (e as { cause?: unknown }).cause;
  }
  return NOTHING_KNOWN;
}
