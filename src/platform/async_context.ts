/**
 * Values that follow the flow of async calls: what a log record or a helper called from a
 * handler needs to know about the operator and the object being handled, without passing it
 * through every function.
 *
 * Backed by `AsyncLocalStorage` from `node:async_hooks`, which both Deno and Node provide.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** A slot whose value is set for the duration of a call and everything it awaits. */
export class AsyncContext<T> {
  readonly #storage = new AsyncLocalStorage<T>();

  /** Run `fn` with `value` as the current value; nested calls see it until `fn` settles. */
  run<R>(value: T, fn: () => R): R {
    return this.#storage.run(value, fn);
  }

  /** The current value, or `undefined` outside of any {@link run}. */
  get(): T | undefined {
    return this.#storage.getStore();
  }

  /** The same as {@link get}: the name `ContextLocalStorage` users (e.g. logtape) expect. */
  getStore(): T | undefined {
    return this.#storage.getStore();
  }
}
