/**
 * What every runnable of one operator shares: its handlers, settings, memo, clock and
 * logger, the scope of namespaces it serves, and the few parts that exist from its very
 * start because the startup handlers already see them (the indices) or because several
 * runnables hold them (the objects' memories, the limit of writes, the metrics). Made once
 * per operator; nothing here is global, so several operators can run in one process.
 *
 * @module
 */

import type { ChildChanges } from "./objects/parent_changes.ts";
import type { Clock } from "../structs/clock.ts";
import type { Logger } from "../structs/loggers.ts";
import type { OperatorMetrics } from "../structs/operator_metrics.ts";
import type { Semaphore } from "../structs/semaphores.ts";
import type { OperatorSettings } from "../settings/operator_settings.ts";
import type { OperatorRegistry } from "../intents/registry.ts";
import type { HandlerMatcher } from "../intents/handler_matching.ts";
import type { LifeCycleFn } from "../intents/lifecycles.ts";
import type { ObjectTable } from "./objects/object_table.ts";
import type { ActivityContext, DefaultLogin } from "../engines/activities.ts";
import type { OperatorIndexers } from "../engines/indexing.ts";
import type { Scope } from "../structs/namespace_scopes.ts";

/** The shared inputs and parts of one operator; see the module docs. */
export interface OperatorParts {
  /** The handlers, as registered. */
  readonly registry: OperatorRegistry;
  /** The registry's matching: which handlers serve which resources and objects. */
  readonly matcher: HandlerMatcher;
  /** The settings, as the startup handlers leave them (read when used). */
  readonly settings: OperatorSettings;
  /** The operator's memo; each object gets a shallow copy. */
  readonly memo: unknown;
  /** The operator's time. */
  readonly clock: Clock;
  /** Where the operator reports what it does. */
  readonly logger: Logger;
  /** The namespaces served. */
  readonly scope: Scope;
  /** Which of the due handlers run in each handling cycle. */
  readonly lifecycle: LifeCycleFn;
  /** The login used when no login handlers are registered. */
  readonly defaultLogin: DefaultLogin;
  /** The metrics, when an endpoint exposes them; nothing is counted otherwise. */
  readonly metrics: OperatorMetrics | undefined;
  /** The indexing functions and their indices, when the operator has any. */
  readonly indexers: OperatorIndexers | undefined;
  /** What the operator knows of each object: its watch's, its memory, its unstored outcome. */
  readonly objects: ObjectTable;
  /** The one limit of all the operator's writes: the handling's and the daemons'. */
  readonly writes: Semaphore;
  /** The children's changes waiting for their parents, when there are child handlers. */
  readonly children: ChildChanges | undefined;
}

/** What the activities (startup, cleanup, login, probe handlers) run with. */
export function activityOf(parts: OperatorParts, signal?: AbortSignal): ActivityContext {
  return {
    registry: parts.registry,
    settings: parts.settings,
    memo: parts.memo,
    clock: parts.clock,
    signal,
    indices: parts.indexers?.indices,
  };
}
