/**
 * Lifecycles: which of the handlers due in a handling cycle run in it, and in which order --
 * Kopf's `kopf.lifecycles`, in camelCase.
 *
 * A lifecycle gets the handlers that are due now (not finished, not sleeping), in the order
 * of their declaration, and the handlers' states; it returns those to run in this cycle, in
 * the order to run them. The others stay due: the operator stores the outcomes of this
 * cycle and runs another one at once, until every handler is finished.
 *
 * | lifecycle    | runs per cycle                                                   |
 * | ------------ | ---------------------------------------------------------------- |
 * | `asap`       | one: the first of those with the fewest retries (the default)    |
 * | `oneByOne`   | one: the first in declaration order                              |
 * | `randomized` | one, picked at random                                            |
 * | `allAtOnce`  | all, in declaration order                                        |
 * | `shuffled`   | all, in a random order                                           |
 *
 * One handler per cycle means one write of the outcomes per handler: each success is on
 * the object before the next handler starts (a restart never runs it again), and each
 * handler sees the previous ones' results in the body. All at once writes once for all of
 * them. The operator's `lifecycle` option chooses, else {@link setDefaultLifecycle}'s.
 *
 * @module
 */

import { ConfigurationError } from "../structs/errors.ts";

/**
 * Choose which of the due handlers run in this handling cycle: return some of `handlers`
 * (the same objects), in the order to run them. Returning none while some are given is an
 * error: the cycle would repeat without end.
 *
 * A handler is seen by its `id` (e.g. `createFn` or `createFn/item1`; records carry more,
 * which lifecycles keep); `context.state.get(id)` is the progress of a handler in the current
 * handling, if it has any (Kopf's `state` argument).
 */
export type LifeCycleFn = <H extends { readonly id: string }>(
  handlers: readonly H[],
  context: {
    readonly state: {
      /** The progress of one handler in the current handling, if it has any. */
      get(id: string):
        | {
          /** Attempts made so far (0 before the first). */
          readonly retries: number;
          /** Seconds since the first attempt. */
          readonly runtime: number;
          /** When the first attempt was (or the handling began, before it). */
          readonly startedAt: Date;
          /** The reason it runs for (`create`, `update`, ...), if known. */
          readonly purpose: string | null;
          /** Succeeded for good. */
          readonly success: boolean;
          /** Failed for good. */
          readonly failure: boolean;
          /** The last error's message, if the last attempt failed. */
          readonly message: string | null;
          /** Seconds until it is due: 0 when due now, `null` when finished. */
          readonly delay: number | null;
        }
        | undefined;
    };
  },
) => readonly H[];

/** A handler as a lifecycle sees it. */
export type LifeCycleHandler = Parameters<LifeCycleFn>[0][number];

/** The handlers' states in the current handling, by handler id. */
export type LifeCycleState = Parameters<LifeCycleFn>[1]["state"];

function randomIndex(length: number): number {
  return Math.floor(Math.random() * length);
}

/**
 * The lifecycles, as Kopf names them in camelCase: pass one as the operator's `lifecycle`
 * option, to {@link setDefaultLifecycle}, or to `kopf.execute({ lifecycle })`.
 *
 * @example Run every operator of this process with all handlers at once (fewer writes)
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.setDefaultLifecycle(kopf.lifecycles.allAtOnce);
 * ```
 */
export const lifecycles: {
  /**
   * Kopf's `all_at_once`: all due handlers in one cycle, in declaration order.
   *
   * @example All due handlers in one cycle: fewer patches for many handlers
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * await kopf.operator({ lifecycle: kopf.lifecycles.allAtOnce, namespaces: ["default"] });
   * ```
   */
  readonly allAtOnce: LifeCycleFn;
  /**
   * Kopf's `one_by_one`: one handler per cycle, in declaration order.
   *
   * @example Strictly one handler after another, in the order they are declared
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.setDefaultLifecycle(kopf.lifecycles.oneByOne);
   * kopf.on.create("kopfexamples", function reserve() {});
   * kopf.on.create("kopfexamples", function provision() {}); // only once reserve() is done
   * ```
   */
  readonly oneByOne: LifeCycleFn;
  /**
   * Kopf's `randomized`: one handler per cycle, picked at random.
   *
   * @example One sub-handler per cycle, picked at random (e.g. to spread the load)
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.create("kopfexamples", async ({ spec }) => {
   *   const mirrors = (spec.mirrors as string[] | undefined) ?? [];
   *   const sync = (mirror: string) => async () => {
   *     await fetch(`https://${mirror}/sync`, { method: "POST" });
   *   };
   *   const fns = Object.fromEntries(mirrors.map((mirror) => [mirror, sync(mirror)]));
   *   await kopf.execute({ fns, lifecycle: kopf.lifecycles.randomized });
   * });
   * ```
   */
  readonly randomized: LifeCycleFn;
  /**
   * Kopf's `shuffled`: all due handlers in one cycle, in a random order.
   *
   * @example All due handlers at once, in a random order, to find order dependencies
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * if (Deno.args.includes("--shuffle-handlers")) {
   *   kopf.setDefaultLifecycle(kopf.lifecycles.shuffled);
   * }
   * ```
   */
  readonly shuffled: LifeCycleFn;
  /**
   * Kopf's `asap`, the default: one handler per cycle -- the first of those retried the
   * least, so that a failing handler goes last and the others are not held up by it.
   *
   * @example Back to the default after a test switched lifecycles
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.setDefaultLifecycle(kopf.lifecycles.asap); // the same as setDefaultLifecycle(null)
   * ```
   */
  readonly asap: LifeCycleFn;
} = Object.freeze({
  allAtOnce: <H extends LifeCycleHandler>(handlers: readonly H[]): readonly H[] => handlers,
  oneByOne: <H extends LifeCycleHandler>(handlers: readonly H[]): readonly H[] =>
    handlers.slice(0, 1),
  randomized: <H extends LifeCycleHandler>(handlers: readonly H[]): readonly H[] =>
    handlers.length === 0 ? [] : [handlers[randomIndex(handlers.length)]],
  shuffled: <H extends LifeCycleHandler>(handlers: readonly H[]): readonly H[] => {
    const out = [...handlers];
    for (let i = out.length - 1; i > 0; i--) {
      const j = randomIndex(i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  },
  asap: <H extends LifeCycleHandler>(
    handlers: readonly H[],
    { state }: Parameters<LifeCycleFn>[1],
  ): readonly H[] => {
    let best: H | undefined;
    let fewest = Infinity;
    for (const handler of handlers) {
      const retries = state.get(handler.id)?.retries ?? 0;
      if (retries < fewest) {
        best = handler;
        fewest = retries;
      }
    }
    return best === undefined ? [] : [best];
  },
});

let defaultLifecycle: LifeCycleFn = lifecycles.asap;

/** Throw a {@link ConfigurationError} naming `what` unless `value` is a lifecycle function. */
export function checkLifecycle(value: unknown, what: string): asserts value is LifeCycleFn {
  if (typeof value !== "function") {
    throw new ConfigurationError(
      `${what} must be a lifecycle function such as kopf.lifecycles.asap, not ${
        value === null ? "null" : typeof value
      }.`,
    );
  }
}

/**
 * Set the lifecycle of the operators started from now on in this process that are not given
 * one (`lifecycle` option); `null` or `undefined` restores Kopf's default, `asap`.
 *
 * @example A lifecycle of one's own: the handlers whose id says urgent first
 * ```ts
 * import { kopf, type LifeCycleFn } from "@kopf/kopf";
 *
 * const urgentFirst: LifeCycleFn = (handlers) => [
 *   ...handlers.filter((h) => h.id.startsWith("urgent")),
 *   ...handlers.filter((h) => !h.id.startsWith("urgent")),
 * ];
 * kopf.setDefaultLifecycle(urgentFirst);
 * ```
 */
export function setDefaultLifecycle(lifecycle: LifeCycleFn | null | undefined): void {
  if (lifecycle !== null && lifecycle !== undefined) {
    checkLifecycle(lifecycle, "kopf.setDefaultLifecycle()'s argument");
  }
  defaultLifecycle = lifecycle ?? lifecycles.asap;
}

/** The lifecycle of operators that are not given one (see {@link setDefaultLifecycle}). */
export function getDefaultLifecycle(): LifeCycleFn {
  return defaultLifecycle;
}

/** Whether the handler is one of the due ones and not planned yet. */
function isNew(handler: unknown, due: readonly unknown[], plan: readonly unknown[]): boolean {
  return due.includes(handler) && !plan.includes(handler);
}

/**
 * The handlers to run now: what the lifecycle returns of the due ones, each once, in its
 * order. Fails with a {@link ConfigurationError} if it returns something else than a list,
 * or nothing while some are due.
 */
export function planHandlers<H extends LifeCycleHandler>(
  lifecycle: LifeCycleFn,
  due: readonly H[],
  state: LifeCycleState,
): H[] {
  if (due.length === 0) return [];
  const chosen: unknown = lifecycle(due, { state });
  if (!Array.isArray(chosen)) {
    throw new ConfigurationError(
      `The lifecycle ${lifecycle.name || "function"} returned ${typeof chosen}, not a list ` +
        "of the handlers it was given.",
    );
  }
  const plan: H[] = [];
  // Each of the due ones once: few are due, so a set of them would cost more than a search.
  const given = due.length > 16 ? new Set<unknown>(due) : undefined;
  for (const handler of chosen as unknown[]) {
    if (given !== undefined ? given.delete(handler) : isNew(handler, due, plan)) {
      plan.push(handler as H);
    }
  }
  if (plan.length === 0) {
    throw new ConfigurationError(
      `The lifecycle ${lifecycle.name || "function"} chose none of the ${due.length} handlers ` +
        `due (${due.map((h) => h.id).join(", ")}); it must return at least one of them.`,
    );
  }
  return plan;
}
