/**
 * Telling a promise from a plain value, so that calls which may or may not be
 * asynchronous (user storages, handlers) are awaited only when they are: an `await` of a
 * plain value still costs a promise and a turn of the event loop.
 *
 * @module
 */

/** Whether the value is a promise (or another thenable) to await; else it is used as is. */
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === "function";
}
