/**
 * Embedding an operator in a program that has its own work to do: Kopf's `spawn_tasks()` and
 * `run_tasks()`, in promises and abort signals. {@link spawnTasks} starts an operator and
 * returns at once with a handle on it; {@link runTasks} waits for one or several such
 * operators and stops them all once one of them ends or a signal aborts. Together they do
 * what `operator()` does, for programs that start operators at one place and wait for them
 * at another.
 *
 * There is nothing to cancel forcibly in JavaScript: everything an operator starts ends
 * with its graceful stop (its signal), so Kopf's `ignored` tasks have no counterpart.
 *
 * @module
 */

import { KopfError } from "../structs/errors.ts";
import { oneLine, operator } from "./running.ts";
import type { OperatorOptions } from "./operator_options.ts";
import { reactorLogger } from "./default_logger.ts";

/** A running operator, as {@link spawnTasks} returns it. */
export interface OperatorTasks extends AsyncDisposable {
  /**
   * Settles when the operator has stopped: resolves after a graceful stop, rejects with
   * what made it fail (then also logged as an error).
   */
  readonly done: Promise<void>;
  /**
   * Resolves once the operator serves (its initial listings are in: objects created
   * afterwards arrive as watch events); rejects if it ends before that.
   */
  readonly ready: Promise<void>;
  /** Aborts when the operator is asked to stop: by {@link OperatorTasks.stop} or its signal. */
  readonly signal: AbortSignal;
  /** Whether the operator has not ended yet. */
  readonly running: boolean;
  /** Stop the operator gracefully; settles as {@link OperatorTasks.done} does. */
  stop(): Promise<void>;
}

/**
 * Start an operator and return at once, without waiting for it (Kopf's `spawn_tasks()`):
 * the returned handle says when it serves (`ready`) and when it has ended (`done`), and
 * stops it (`stop()`, or `await using`). The options are those of `operator()`; its
 * `signal`, if given, stops it too.
 *
 * @example Run an operator beside a program's own work, and stop it with the program
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.create("kopfexamples", ({ name, logger }) => logger.info(`Created ${name}`));
 * await using tasks = kopf.spawnTasks({ namespaces: ["default"] });
 * await tasks.ready;
 * // ... the program's own work, while the operator serves ...
 * await tasks.stop();
 * ```
 */
export function spawnTasks(options: OperatorOptions = {}): OperatorTasks {
  const controller = new AbortController();
  const outer = options.signal;
  const onAbort = () => controller.abort();
  if (outer?.aborted) controller.abort();
  else outer?.addEventListener("abort", onAbort, { once: true });
  let running = true;
  let resolveReady!: () => void;
  let rejectReady!: (error: unknown) => void;
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  ready.catch(() => {}); // awaited or not: a failure surfaces through `done` as well
  const logger = options.logger ?? reactorLogger();
  const done = (async () => {
    try {
      await operator({
        ...options,
        logger,
        signal: controller.signal,
        onReady: () => {
          resolveReady();
          options.onReady?.();
        },
      });
    } catch (error) {
      logger.error(`The operator has failed: ${oneLine(error)}`);
      throw error;
    } finally {
      running = false;
      outer?.removeEventListener("abort", onAbort);
    }
  })();
  done.then(
    () => rejectReady(new KopfError("The operator stopped before it served.")),
    (error) => rejectReady(error),
  );
  const stop = (): Promise<void> => {
    controller.abort();
    return done;
  };
  return {
    done,
    ready,
    signal: controller.signal,
    get running() {
      return running;
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/**
 * Wait for operators started with {@link spawnTasks} (Kopf's `run_tasks()`): once any of
 * them ends -- or `options.signal` aborts -- all the others are stopped gracefully, and
 * this resolves when all have ended. If any failed, it rejects with the failure of the
 * first of those in the order given.
 *
 * @example Two operators of their own registries, ended together on SIGTERM
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * const pods = new kopf.OperatorRegistry();
 * const kexes = new kopf.OperatorRegistry();
 * kopf.on.event("pods", { registry: pods }, ({ name }) => console.log(`pod ${name}`));
 * kopf.on.create("kopfexamples", { registry: kexes }, ({ name }) => console.log(`kex ${name}`));
 * const stop = new AbortController();
 * Deno.addSignalListener("SIGTERM", () => stop.abort());
 * await kopf.runTasks([
 *   kopf.spawnTasks({ registry: pods, clusterwide: true }),
 *   kopf.spawnTasks({ registry: kexes, namespaces: ["default"] }),
 * ], { signal: stop.signal });
 * ```
 */
export async function runTasks(
  tasks: OperatorTasks | readonly OperatorTasks[],
  options: {
    /** Stop the operators gracefully when this aborts. */
    readonly signal?: AbortSignal;
  } = {},
): Promise<void> {
  const all: readonly OperatorTasks[] = Array.isArray(tasks) ? tasks : [tasks as OperatorTasks];
  if (all.length === 0) return;
  const stopAll = () => {
    for (const task of all) void task.stop().catch(() => {});
  };
  const signal = options.signal;
  if (signal?.aborted) stopAll();
  signal?.addEventListener("abort", stopAll, { once: true });
  try {
    // The first to end (well or not) ends them all.
    await Promise.race(all.map((task) => task.done.then(stopAll, stopAll)));
    const outcomes = await Promise.allSettled(all.map((task) => task.done));
    const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
    if (failure !== undefined) throw failure.reason;
  } finally {
    signal?.removeEventListener("abort", stopAll);
  }
}
