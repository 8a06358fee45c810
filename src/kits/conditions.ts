/**
 * Status conditions of the handlers' own (`kopf.setCondition`), kept by the same rules as
 * the framework's `Ready`, `Reconciling` and `Stalled`: the whole list goes into the
 * handler's patch with the other types left in place; `lastTransitionTime` changes only
 * when the condition's status does; `observedGeneration` is the object's generation.
 *
 * @module
 */

import { realClock } from "../structs/clock.ts";
import {
  type ConditionInit,
  conditionProblem,
  type ConditionStatus,
  putConditions,
  transitionTime,
} from "../structs/condition_lists.ts";
import { UsageError } from "../structs/errors.ts";
import type { Patch } from "../structs/patches.ts";

export type { ConditionInit, ConditionStatus };

/**
 * Set a status condition of the object in the handler's patch: the whole list of
 * `status.conditions` (as the patch already holds it this cycle, else as the object has it)
 * with this condition in place of the one of its type, or appended. Its
 * `lastTransitionTime` is now only if its status changes; its `observedGeneration` is the
 * object's `metadata.generation`. The change is written with the handler's outcome, in the
 * same request. A type or reason that the API would refuse (a reason is one CamelCase word)
 * throws a `kopf.UsageError` naming it.
 *
 * The framework's own conditions (`settings.conditions`: `Ready`, `Reconciling`, `Stalled`)
 * are set after the handlers, on top of what they set: give yours other types.
 *
 * @example Say that a database is provisioned, beside the framework's Ready
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.create("databases", async ({ spec, patch, body }) => {
 *   const response = await fetch(`https://db.example.com/provision/${spec.name}`);
 *   kopf.setCondition({ patch, body }, {
 *     type: "DatabaseReady",
 *     status: response.ok ? "True" : "False",
 *     reason: response.ok ? "Provisioned" : "ProvisioningFailed",
 *     message: `The backend answered HTTP ${response.status}.`,
 *   });
 * });
 * ```
 */
export function setCondition<S, St>(
  target: {
    /** The handler's patch: the conditions go there, with the cycle's other changes. */
    readonly patch: Patch<S, St>;
    /** The object as the handler sees it: its conditions and generation are read. */
    readonly body: {
      readonly metadata?: { readonly generation?: number };
      readonly status?: unknown;
    };
  },
  condition: ConditionInit,
): void {
  const problem = isObject(condition) ? conditionProblem(condition) : "it is not an object";
  if (problem !== undefined) {
    throw new UsageError(
      `kopf.setCondition() cannot set the condition ${
        JSON.stringify(isObject(condition) ? condition.type : condition)
      }: ${problem}.`,
    );
  }
  const generation = target.body.metadata?.generation;
  putConditions(target.patch as unknown as Patch, target.body.status, [condition], {
    generation: typeof generation === "number" ? generation : undefined,
    now: transitionTime(realClock.wall()),
  });
}

function isObject(value: unknown): value is ConditionInit {
  return typeof value === "object" && value !== null;
}
