/**
 * How the client reads its tuning: the operator's `settings.networking` and
 * `settings.watching` (or any part of them); fields left out take the settings' defaults.
 *
 * @module
 */
import { NetworkingSettings, WatchingSettings } from "../settings/api_settings.ts";
import type { ConcurrencyBounds } from "./concurrency.ts";

/** Timeouts and retries of regular requests: all or some of `settings.networking`. */
export type NetworkingTuning = Partial<NetworkingSettings>;

/** Timeouts and pauses of watch streams: all or some of `settings.watching`. */
export type WatchingTuning = Partial<WatchingSettings>;

const NETWORKING: NetworkingSettings = new NetworkingSettings();
const WATCHING: WatchingSettings = new WatchingSettings();

/** A timeout value, with `null` and `undefined` both meaning "none". */
export function timeoutOf(value: number | null | undefined): number | undefined {
  return value === null || value === undefined ? undefined : value;
}

/** The limit of one regular request in seconds; `undefined` for none. */
export function requestTimeoutOf(networking: NetworkingTuning): number | undefined {
  return timeoutOf(
    networking.requestTimeout === undefined ? NETWORKING.requestTimeout : networking.requestTimeout,
  );
}

/** The retry pauses of one request (a number means one pause). */
export function backoffsOf(errorBackoffs: NetworkingTuning["errorBackoffs"]): Iterator<number> {
  const value = errorBackoffs ?? NETWORKING.errorBackoffs;
  return (typeof value === "number" ? [value] : value)[Symbol.iterator]();
}

/** Whether the client adapts its requests in flight to the server (and holds the rest back). */
export function adaptiveConcurrencyOf(networking: NetworkingTuning): boolean {
  return networking.adaptiveConcurrency ?? NETWORKING.adaptiveConcurrency;
}

/** The bounds of the adaptive limit, read from the tuning whenever asked (so changes apply). */
export function concurrencyBoundsOf(networking: NetworkingTuning): ConcurrencyBounds {
  return {
    get initialConcurrency() {
      return networking.initialConcurrency ?? NETWORKING.initialConcurrency;
    },
    get minConcurrency() {
      return networking.minConcurrency ?? NETWORKING.minConcurrency;
    },
    get maxConcurrency() {
      return networking.maxConcurrency ?? NETWORKING.maxConcurrency;
    },
  };
}

/** The pause before reconnecting a watch stream, in seconds. */
export function reconnectBackoffOf(watching: WatchingTuning): number {
  return watching.reconnectBackoff ?? WATCHING.reconnectBackoff;
}

/** Seconds of silence after which a watch stream is reconnected; `undefined` for never. */
export function inactivityTimeoutOf(watching: WatchingTuning): number | undefined {
  return timeoutOf(
    watching.inactivityTimeout === undefined
      ? WATCHING.inactivityTimeout
      : watching.inactivityTimeout,
  );
}

/** How listings are fetched: streamed, paginated, or streamed where the server supports it. */
export function listModeOf(watching: WatchingTuning): "auto" | "stream" | "paginate" {
  return watching.listMode ?? WATCHING.listMode;
}

/** The page size of listings (and the batch size of streamed listings). */
export function listPageSizeOf(watching: WatchingTuning): number {
  return watching.listPageSize ?? WATCHING.listPageSize;
}
