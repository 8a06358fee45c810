/**
 * What a pipeline is made of (`pipeline.ts`): the operator's parts its stages work with
 * (`pipeline_stages.ts`), in a module of its own that both import.
 *
 * @module
 */

import type { Clock } from "../../structs/clock.ts";
import type { OperatorMetrics } from "../../structs/operator_metrics.ts";
import type { Semaphore } from "../../structs/semaphores.ts";
import type { ApiClient } from "../../client/api.ts";
import type { OperatorSettings } from "../../settings/operator_settings.ts";
import type { LifeCycleFn } from "../../intents/lifecycles.ts";
import type { OperatorRegistry } from "../../intents/registry.ts";
import type { ObjectTable } from "../objects/object_table.ts";
import type { ChildChanges } from "../objects/parent_changes.ts";
import type { Spawner } from "../../engines/daemons.ts";
import type { OperatorIndexers } from "../../engines/indexing.ts";
import type { Ownership } from "../../engines/leader_election.ts";

/** What processing is made of: one per operator. */
export interface PipelineOptions {
  /** The API client for patching. */
  readonly api: ApiClient;
  /** The handlers. */
  readonly registry: OperatorRegistry;
  /** The operator's settings. */
  readonly settings: OperatorSettings;
  /** What the operator knows of each object (its memory among it). */
  readonly objects: ObjectTable;
  /** The clock of progress records; the real one by default. */
  readonly clock?: Clock;
  /**
   * How many objects may be patched at once ({@link DEFAULT_WRITE_LIMIT} by default): with
   * thousands of objects changing together, unbounded concurrent requests cost far more
   * memory and time than a queue (Kopf's HTTP client caps its connections likewise).
   * Every request in flight holds its connection's buffers and its object's half-done
   * state; at 10,000 objects, 100 at once cost ~45 MB more peak RSS than 32 at once, for
   * no gain in throughput.
   */
  readonly writeLimit?: number;
  /** The limit of writes shared with the operator's other writers (its daemons and timers). */
  readonly writes?: Semaphore;
  /** The daemons and timers, if the operator has any. */
  readonly spawner?: Spawner;
  /** The indexing functions, if the operator has any. */
  readonly indexers?: OperatorIndexers;
  /** Where cycles, patches and handler runs are counted; nowhere by default. */
  readonly metrics?: OperatorMetrics;
  /** Which due handlers run per cycle; the process's default lifecycle if omitted. */
  readonly lifecycle?: LifeCycleFn;
  /**
   * Which objects this replica handles now (leader election, sharding). Objects of other
   * replicas are only indexed: the indices stay whole, nothing runs and nothing is
   * written. All objects are this replica's when omitted.
   */
  readonly ownership?: Ownership;
  /** The children's changes waiting for their parents, when there are child handlers. */
  readonly children?: ChildChanges;
}
