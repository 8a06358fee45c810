/**
 * The reconciler: the operator's per-object pipeline on its own, for programs that watch
 * objects their own way (as kube-runtime lets a `reconcile` run on any stream). Given one
 * state of one object -- an event of a watch, or an object of a listing -- it does what the
 * operator does for it: its event handlers, its cause, its resource-changing handlers with
 * their progress, retries and finalizer, and the outcome written to the object in as few
 * requests as possible. It answers with what to do next ({@link Reconciliation}): when to
 * reconcile the object again if nothing newer comes first, and which `resourceVersion` our
 * write produced, so that older states of the object are not reconciled again.
 *
 * What the operator adds around it is the caller's: one reconciliation at a time per object
 * (states of one object must not overlap; different objects may), the latest state first,
 * the revisits it asks for. Daemons, timers and indices are engines with lives of their
 * own (they run beside the watches, not per event): a registry with any of them needs
 * `kopf.operator()`. Admission handlers are not for a reconciler either (the webhook server
 * calls them); they are ignored here.
 *
 * @module
 */

import type { LeavingEvent, ObjectEvent } from "../../structs/bodies.ts";
import type { Clock } from "../../structs/clock.ts";
import { ConfigurationError } from "../../structs/errors.ts";
import { Memo } from "../../structs/memos.ts";
import type { Resource } from "../../structs/resources.ts";
import type { ApiClient } from "../../client/api.ts";
import { OperatorSettings } from "../../settings/operator_settings.ts";
import type { LifeCycleFn } from "../../intents/lifecycles.ts";
import { getDefaultRegistry, matcherOf, type OperatorRegistry } from "../../intents/registry.ts";
import { ObjectTable } from "../objects/object_table.ts";
import type { Reconciliation } from "./object_processing.ts";
import { Pipeline } from "./pipeline.ts";

/** Options of {@link reconciler}. */
export interface ReconcilerOptions {
  /** The API client that reads and writes the objects (`@kopf/kopf/client`). */
  readonly api: ApiClient;
  /** The handlers; the default registry (where `kopf.on.*` register) if omitted. */
  readonly registry?: OperatorRegistry;
  /** The settings (storages, finalizer, error delays); Kopf's defaults if omitted. */
  readonly settings?: OperatorSettings;
  /** The memo that each object's memo is a shallow copy of; a new `Memo` if omitted. */
  readonly memo?: unknown;
  /** The time of progress records and retries; the real clock if omitted. */
  readonly clock?: Clock;
  /** Which of the due handlers run per reconciliation; the default lifecycle if omitted. */
  readonly lifecycle?: LifeCycleFn;
}

/**
 * Reconcile one state of one object of the resource: `event.type` is `null` for an object
 * of a listing, `DELETED` once it is gone, `LEFT` when a watch with selectors may have lost
 * sight of it (a `LeavingEvent`: it is read to tell), else the watch event's type; see the
 * module docs.
 */
export type Reconciler = (
  resource: Resource,
  event: ObjectEvent | LeavingEvent,
  options?: {
    /** Aborts the reconciliation's waits and requests (e.g. when the program stops). */
    readonly signal?: AbortSignal;
  },
) => Promise<Reconciliation>;

/**
 * The operator's per-object pipeline as a function, for a watch of one's own; see the
 * module docs. Throws a `ConfigurationError` if the registry has daemons, timers or
 * indices, which need `kopf.operator()`.
 *
 * @example Reconcile what a watch of one's own delivers, as the operator would
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, Discovery, Vault, watchObjects } from "@kopf/kopf/client";
 *
 * const registry = new kopf.OperatorRegistry();
 * kopf.on.create("kopfexamples", { registry }, ({ name }) => ({ greeted: name }));
 * const vault = new Vault({ relogin: async () => ({ kubeconfig: await kopf.loginWithKubeconfig() }) });
 * await using api = new ApiClient(vault);
 * const [resource] = (await new Discovery(api).resources())
 *   .filter((r) => r.plural === "kopfexamples" && r.preferred);
 * const reconcile = kopf.reconciler({ api, registry });
 * for await (const item of watchObjects(api, resource, { namespace: "default" })) {
 *   const events = item.type === "LISTED"
 *     ? item.objects.map((object) => ({ type: null, object }))
 *     : [{ type: item.type, object: item.object }];
 *   for (const event of events) {
 *     const { delay } = await reconcile(resource, event);
 *     if (delay !== undefined) console.log(`${event.object.metadata?.name}: again in ${delay}s`);
 *   }
 * }
 * ```
 */
export function reconciler(options: ReconcilerOptions): Reconciler {
  const registry = options.registry ?? getDefaultRegistry();
  const engines = matcherOf(registry).handlers.filter((h) =>
    h.kind === "daemon" || h.kind === "timer" || h.kind === "index"
  );
  if (engines.length > 0) {
    const listed = engines.map((h) => `${h.kind} ${JSON.stringify(h.id)}`).join(", ");
    throw new ConfigurationError(
      `The registry has ${listed}: daemons, timers and indices run beside the watches, in ` +
        "kopf.operator(), not in a reconciler. Register them in a registry of their own.",
    );
  }
  const pipeline = new Pipeline({
    api: options.api,
    registry,
    settings: options.settings ?? new OperatorSettings(),
    objects: new ObjectTable(options.memo ?? new Memo()),
    clock: options.clock,
    lifecycle: options.lifecycle,
  });
  return (resource, event, reconcile = {}) => pipeline.process(resource, event, reconcile.signal);
}
