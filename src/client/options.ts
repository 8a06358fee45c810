/**
 * Tuning of API requests and watch streams, in seconds. The client cannot see the
 * operator's settings (a higher layer); these plain shapes are what
 * `settings.networking` and `settings.watching` satisfy, with the same defaults.
 *
 * @module
 */

/** How regular (non-watch) API requests behave. Times are in seconds. */
export interface NetworkingOptions {
  /** The longest a whole request may take; `null` for no limit. Default 300. */
  requestTimeout?: number | null;
  /** The longest a connection may take to be established; `null` for none. Default none. */
  connectTimeout?: number | null;
  /**
   * Pauses between attempts on network errors, 5xx and 429; one number means one retry;
   * empty means no retries. Re-iterated from the start for every request.
   * Default `[1, 1, 2, 3, 5, 8, 13, 21]` (about a minute).
   */
  errorBackoffs?: Iterable<number> | number;
}

/** How watch streams behave. Times are in seconds. */
export interface WatchingOptions {
  /** The server-side timeout asked for (`timeoutSeconds`); `null` leaves it to the server. */
  serverTimeout?: number | null;
  /** The client-side limit of one watch request's life; `null` for none. */
  clientTimeout?: number | null;
  /** The connect timeout of watch requests; falls back to the networking one. */
  connectTimeout?: number | null;
  /** The pause before reconnecting a closed or failed stream. Default 0.1. */
  reconnectBackoff?: number;
  /**
   * Reconnect when nothing (not even a bookmark) arrives for this long; `null` to wait
   * forever. Default none, as the server's bookmarks and timeouts usually suffice.
   */
  inactivityTimeout?: number | null;
}

/** The default pauses between retried API requests, in seconds. */
export const DEFAULT_ERROR_BACKOFFS: readonly number[] = Object.freeze([1, 1, 2, 3, 5, 8, 13, 21]);

/** The default limit of a regular request, in seconds. */
export const DEFAULT_REQUEST_TIMEOUT = 300;

/** The default pause before reconnecting a watch stream, in seconds. */
export const DEFAULT_RECONNECT_BACKOFF = 0.1;

/** The retry pauses of one request, from the options (a number means one pause). */
export function backoffsOf(options: NetworkingOptions): Iterator<number> {
  const value = options.errorBackoffs ?? DEFAULT_ERROR_BACKOFFS;
  return (typeof value === "number" ? [value] : value)[Symbol.iterator]();
}

/** A timeout value, with `null` and `undefined` both meaning "none". */
export function timeoutOf(value: number | null | undefined): number | undefined {
  return value === null || value === undefined ? undefined : value;
}

/**
 * What every built-in login function accepts besides its own options: the arguments of a
 * login handler (only `logger` is named here, so that the arguments object fits; the rest
 * is ignored). This lets `kopf.on.login(loginWithKubeconfig)` work as it is.
 */
export interface LoginFunctionOptions {
  /** The handler's logger, when called as a login handler; unused. */
  logger?: unknown;
}
