/**
 * The sections of `OperatorSettings` on what the operator writes besides the handlers'
 * patches: Kubernetes Events from log records, objects applied server-side (with the
 * field manager's name checked as the API server checks it), and the standard status
 * conditions.
 *
 * Apart from `OperatorSettings` itself (`operator_settings.ts`), which gathers and checks
 * the sections.
 *
 * @module
 */

import type { LogLevelSetting } from "../structs/log_formats.ts";

/**
 * Which log records of handlers become Kubernetes Events on the object.
 *
 * @example Post only warnings and errors as Kubernetes Events, under the operator's name
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.posting.level = "warning";
 *   settings.posting.reportingComponent = "example-operator";
 * });
 * ```
 */
export class PostingSettings {
  /** Whether events are posted at all (also those of `kopf.event()` and friends). */
  enabled = true;
  /** The lowest level posted as an event. */
  level: LogLevelSetting = "info";
  /** `source.component` and `reportingComponent` of the events. */
  reportingComponent = "kopf";
  /** `reportingInstance` of the events. */
  reportingInstance = "dev";
  /** `metadata.generateName` of the events. */
  eventNamePrefix = "kopf-event-";
}

/**
 * How `kopf.apply()` writes the operator's objects with server-side apply -- and, with
 * `outcomes`, how the framework writes its own fields on the objects it handles.
 *
 * The field manager is the name under which the server records which fields the operator
 * owns (`metadata.managedFields`): an apply removes the fields that its manager applied
 * before and omits now, and fails on fields that other managers own. So it is part of the
 * operator's identity on the cluster: give each operator a name of its own, and keep it --
 * the fields owned under an old name stay owned by it after a rename (and are no longer
 * removed when the operator stops applying them). It is not taken from
 * `posting.reportingComponent` for that reason: that name only labels Events, and may
 * change freely.
 *
 * @example An operator that owns its children's fields under its own name
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.applying.fieldManager = "example-operator";
 *   settings.applying.force = false; // fail on fields others own rather than take them
 * });
 * ```
 */
export class ApplyingSettings {
  /**
   * The field manager of `kopf.apply()`: `"kopf"` by default (the framework's User-Agent,
   * under which its other writes are recorded). At most 128 printable characters.
   */
  fieldManager = "kopf";
  /**
   * Take over fields that another manager owns with another value, rather than fail with
   * a 409 conflict. `true` by default: an operator is the authority on its children, and
   * a conflict it cannot resolve would only retry for ever (the API server's guidance for
   * controllers). `false` where other controllers or GitOps tools share the objects and
   * a conflict should stop the operator rather than overwrite them.
   */
  force = true;
  /**
   * Write the framework's own fields on the objects it handles -- the handlers' results and
   * progress, the diff-base, our finalizer, the status conditions, the handlers' `patch` --
   * by server-side apply under `fieldManager` (always forced: those fields are ours by
   * name), instead of merge patches. `false` by default, which is what Kopf does. Turn it on
   * when several operators (or other controllers) write the same objects: each then owns
   * its own finalizer among theirs without guarded requests, and its own conditions in a
   * `status.conditions` list keyed by `type` (the CRD declares
   * `x-kubernetes-list-type: map`), rather than rewriting the whole list. Give each
   * operator its own `fieldManager` then. Daemons' and timers' patches stay merge patches
   * (they run beside the handling cycles, whose intent they cannot state), recorded under
   * `fieldManager`. The number of requests per cycle is the same (docs/writes.md).
   */
  outcomes = false;
}

/** The longest field manager name the API server accepts, in bytes of UTF-8. */
const FIELD_MANAGER_MAX_BYTES = 128;

/** Characters that Go's `unicode.IsPrint` refuses: controls and the like, spaces but " ". */
const UNPRINTABLE = /(?! )[\p{C}\p{Z}]/u;

/**
 * What is wrong with a field manager name, as the API server checks it (at most 128 bytes,
 * all printable), or `undefined` if nothing is.
 */
export function fieldManagerProblem(value: unknown): string | undefined {
  const expected = `a non-empty string of at most ${FIELD_MANAGER_MAX_BYTES} printable characters`;
  if (typeof value !== "string" || value === "" || UNPRINTABLE.test(value)) return expected;
  const bytes = new TextEncoder().encode(value).length;
  return bytes > FIELD_MANAGER_MAX_BYTES ? expected : undefined;
}

/**
 * The standard status conditions that the framework keeps on custom resources
 * (`status.conditions`, and `status.observedGeneration`), as Argo CD, Flux, `kubectl wait`
 * and kstatus read them: after each handling cycle, `Ready` says whether every handler of
 * the latest change succeeded, `Reconciling` whether some are still pending or retrying,
 * `Stalled` whether one failed for good (these two are there only while True, as kstatus'
 * abnormal-true conditions are). They ride in the cycle's own write, and only when
 * they change. Built-in resources never get them (their conditions belong to Kubernetes).
 * `enabled = false` keeps the status as Kopf writes it.
 *
 * @example Conditions of the operator's own names, or none at all
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.conditions.ready = "Available"; // the handlers set a "Ready" of their own
 *   // settings.conditions.enabled = false;  // or: Kopf's status only, no conditions
 * });
 * ```
 */
export class ConditionsSettings {
  /** Whether the framework writes the conditions and `status.observedGeneration` at all. */
  enabled = true;
  /** The type of the condition that is `True` when all handlers succeeded. */
  ready = "Ready";
  /** The type of the condition that is `True` while handlers are pending or retrying. */
  reconciling = "Reconciling";
  /** The type of the condition that is `True` when a handler failed for good. */
  stalled = "Stalled";
}
