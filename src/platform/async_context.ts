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

/**
 * The values of all contexts in the current flow, as `[context, value, context, value, ...]`
 * (each context once). One storage holds them all: the runtime copies the values of every
 * storage at each run, so a run costs less with one storage than with one per context, and
 * several contexts are set with one run (see {@link AsyncContext.runAll}).
 */
type Frame = readonly unknown[];

const frames = new AsyncLocalStorage<Frame>();

/** A context and the value to give it, for {@link AsyncContext.runAll}. */
export type Binding = readonly [context: AsyncContext<unknown>, value: unknown];

/** Where the context's value is in the frame, or -1. */
function indexIn(frame: Frame | undefined, context: unknown): number {
  if (frame !== undefined) {
    for (let i = 0; i < frame.length; i += 2) if (frame[i] === context) return i + 1;
  }
  return -1;
}

/** Set the context's value in a frame of one's own (flows share frames: copy them first). */
function setIn(frame: unknown[], context: unknown, value: unknown): void {
  const index = indexIn(frame, context);
  if (index >= 0) frame[index] = value;
  else frame.push(context, value);
}

/** A slot whose value is set for the duration of a call and everything it awaits. */
export class AsyncContext<T> {
  /** Run `fn` with `value` as the current value; nested calls see it until `fn` settles. */
  run<R>(value: T, fn: () => R): R {
    const frame = frames.getStore()?.slice() ?? [];
    setIn(frame, this, value);
    return frames.run(frame, fn);
  }

  /** The current value, or `undefined` outside of any {@link run}. */
  get(): T | undefined {
    const frame = frames.getStore();
    const index = indexIn(frame, this);
    return index < 0 ? undefined : frame![index] as T;
  }

  /** The same as {@link get}: the name `ContextLocalStorage` users (e.g. logtape) expect. */
  getStore(): T | undefined {
    return this.get();
  }

  /**
   * Run `fn` with several contexts set at once, as nested {@link run}s would (a context
   * given twice takes the later value), in one switch of the flow's values.
   */
  static runAll<R>(bindings: readonly Binding[], fn: () => R): R {
    const frame = frames.getStore()?.slice() ?? [];
    for (let i = 0; i < bindings.length; i++) setIn(frame, bindings[i][0], bindings[i][1]);
    return frames.run(frame, fn);
  }
}

/** The flow as at the program's start: no context set. */
const outside = AsyncLocalStorage.snapshot();

/**
 * Run `fn` outside of every context, as at the program's start; for a module's `import()`
 * at the point of use. Deno resolves an import that loads modules in the flow it began in
 * and leaves that flow current for what it calls next on its own (the next test, a
 * server's handler): begun in a handler's flow, the handler's contexts would leak there.
 * The caller still awaits the import in its own flow.
 */
export function outsideContexts<R>(fn: () => R): R {
  return outside(fn);
}

/**
 * `fn`, bound to the async context of the caller: called later from anywhere (a timer of
 * the simulation's virtual clock fires from its driver), it runs in the context that was
 * current here, as a runtime's own timers do.
 */
export function bindToCurrentContext<A extends unknown[]>(
  fn: (...args: A) => void,
): (...args: A) => void {
  const snapshot = AsyncLocalStorage.snapshot();
  return (...args: A) => snapshot(() => fn(...args));
}
