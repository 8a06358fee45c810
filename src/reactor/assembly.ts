/**
 * The runnables of one operator, in the order they start (and, reversed, stop):
 *
 * | runnable            | needs                                   | reacts to                  |
 * | ------------------- | --------------------------------------- | -------------------------- |
 * | startup handlers    | --                                       |                            |
 * | endpoints           | startup                                 | paused, resumed, standby, gained, losing, ready |
 * | API client          | startup                                 |                            |
 * | event posting       | client                                  |                            |
 * | cleanup handlers    | client, posting                         |                            |
 * | peering             | client                                  |                            |
 * | coordination        | client                                  |                            |
 * | admission           | client, coordination                    | gained, losing             |
 * | daemons and timers  | client, coordination, peering           | paused, resumed, losing    |
 * | processing          | client, coordination, daemons           |                            |
 * | queueing            | processing, coordination                | losing                     |
 * | gauges              | queueing, daemons                       |                            |
 * | observation         | client, peering, admission, processing, queueing | paused, resumed, gained |
 *
 * Adding an engine is adding its runnable here; the manager does the rest.
 *
 * @module
 */

import { CleanupRunnable, StartupRunnable } from "./runnables/activities_runnable.ts";
import { AdmissionRunnable } from "./runnables/admission_runnable.ts";
import { ChildrenRunnable } from "./runnables/children_runnable.ts";
import { ClientRunnable } from "./runnables/client_runnable.ts";
import { CoordinationRunnable } from "./runnables/coordination_runnable.ts";
import { DaemonsRunnable } from "./runnables/daemons_runnable.ts";
import { EndpointsRunnable, type EndpointUrls } from "./runnables/endpoints_runnable.ts";
import { GaugesRunnable } from "./runnables/gauges_runnable.ts";
import { ObservationRunnable } from "./runnables/observation_runnable.ts";
import { PeeringRunnable } from "./runnables/peering_runnable.ts";
import { PostingRunnable } from "./runnables/posting_runnable.ts";
import { ProcessingRunnable } from "./runnables/processing_runnable.ts";
import { QueueingRunnable } from "./runnables/queueing_runnable.ts";
import type { Manager, Runnable } from "./manager.ts";
import type { OperatorParts } from "./operator_parts.ts";

/** Add the operator's runnables to the manager; see the module docs. */
export function assembleOperator(
  manager: Manager,
  parts: OperatorParts,
  endpoints: EndpointUrls,
  onReady?: () => void,
): void {
  const startup = manager.add(new StartupRunnable(parts));
  manager.add(new EndpointsRunnable(parts, endpoints, [startup]));
  const client = manager.add(new ClientRunnable(parts, [startup]));
  const posting = manager.add(new PostingRunnable(parts, client));
  manager.add(new CleanupRunnable(parts, [client, posting]));
  const peering = manager.add(new PeeringRunnable(parts, client));
  const coordination = manager.add(new CoordinationRunnable(parts, client));
  const admission = manager.add(new AdmissionRunnable(parts, client, coordination));
  const daemons = manager.add(new DaemonsRunnable(parts, client, coordination, peering));
  const processing = manager.add(new ProcessingRunnable(parts, client, coordination, daemons));
  const queueing = manager.add(new QueueingRunnable(parts, processing, coordination));
  manager.add(new GaugesRunnable(parts, queueing, daemons));
  const observation = manager.add(
    new ObservationRunnable(parts, { client, peering, admission, processing, queueing }),
  );
  if (parts.children !== undefined) {
    const needs = { client, peering, processing, queueing, observation };
    manager.add(new ChildrenRunnable(parts, needs, parts.children));
  }
  if (onReady !== undefined) manager.add(readyCallback(onReady));
}

/** The embedder's callback, once the initial listings are in. */
function readyCallback(onReady: () => void): Runnable {
  return { name: "ready callback", after: [], reactions: { listed: () => onReady() } };
}
