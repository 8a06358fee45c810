/**
 * The resource-changing handler's run in the current flow: the handling cycle
 * (`changing.ts`) sets it around each handler it runs, and `kopf.execute()`
 * (`subhandler_execution.ts`) runs the sub-handlers in it. Apart from the cycle so that
 * `kopf.execute()`, which the package's entry exports, does not load the handling cycle
 * with it: an operator's start does not need the cycle before its first watch.
 *
 * @module
 */
import { AsyncContext } from "../platform/async_context.ts";
import type { ChangingHandler } from "../intents/handlers.ts";
import type { LifeCycleFn } from "../intents/lifecycles.ts";
import type { CauseOverrides } from "../intents/causes.ts";

/** How sub-handlers run: the checked options of `kopf.execute()`. */
export interface SubhandlerRun {
  /** The lifecycle; the operator's if omitted. */
  readonly lifecycle?: LifeCycleFn;
  /** What changes about the parent's cause for the sub-handlers (the diff given or computed). */
  readonly cause?: CauseOverrides;
}

/** What `kopf.execute()` needs of the handler's run (the cycle's `ChangingRun`). */
export interface ExecutingRun {
  /** The handler's id: the sub-handlers' ids are under it. */
  readonly parentId: string;
  /** Whether the sub-handlers registered in the handler have been run by `kopf.execute()`. */
  subexecuted: boolean;
  /** The sub-handlers registered with `kopf.subhandler()`/`kopf.register()` so far. */
  readonly registered: readonly ChangingHandler[];
  /** Run the given sub-handler records to completion, as the handling cycle does. */
  execute(handlers: readonly ChangingHandler[], run?: SubhandlerRun): Promise<void>;
}

/** The handler run in the current flow: what `kopf.execute()` runs sub-handlers in. */
export const changingRuns: AsyncContext<ExecutingRun> = new AsyncContext<ExecutingRun>();

/** The resource-changing handler running in the current flow, if any. */
export function currentChangingRun(): ExecutingRun | undefined {
  return changingRuns.get();
}
