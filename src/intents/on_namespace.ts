/**
 * The type of `kopf.on`: every registration function, each with what it registers for and
 * an example.
 *
 * Apart from the registration functions that make it (`registration.ts`): the documented
 * surface, which is long, separate from the code, which is short.
 *
 * @module
 */
import type { ConnectionInfo } from "../structs/credentials.ts";
import type { ChildRegistrar } from "./child_registration.ts";
import type { ActivityRegistrar, ResourceRegistrar } from "./registrar_types.ts";
import type { HandlerOptions } from "./handler_options.ts";
import type { ChangingKwargs } from "./kwargs.ts";

/** The `kopf.on` namespace. */
export interface OnNamespace {
  /**
   * Every watch event of the matching objects; never retried.
   *
   * @example Count the pods as they come and go
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * const running = new Set<string>();
   * kopf.on.event("pods", ({ type, uid }) => {
   *   if (type === "DELETED") running.delete(uid);
   *   else running.add(uid);
   * });
   * ```
   */
  readonly event: ResourceRegistrar<"event">;
  /**
   * Objects created (new to the operator).
   *
   * @example Greet each new object in its status
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.create("kopfexamples", ({ name, logger }) => {
   *   logger.info(`${name} is created`);
   *   return { greeting: `hello, ${name}` }; // stored as status.<handler id>
   * });
   * ```
   */
  readonly create: ResourceRegistrar<"create">;
  /**
   * Objects whose essence changed.
   *
   * @example React to changes of the spec, with the old and new essence
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.update("kopfexamples", ({ diff, logger }) => {
   *   for (const [operation, field] of diff) logger.info(`${operation} ${field.join(".")}`);
   * });
   * ```
   */
  readonly update: ResourceRegistrar<"update">;
  /**
   * Objects marked for deletion; a finalizer blocks the deletion unless `optional`.
   *
   * @example Release an external resource before the object goes
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.delete("kopfexamples", async ({ name }) => {
   *   await fetch(`https://example.com/buckets/${name}`, { method: "DELETE" });
   * });
   * ```
   */
  readonly delete: ResourceRegistrar<"delete">;
  /**
   * Objects found when the operator starts (also mixed into creations and updates).
   *
   * @example Rebuild an in-memory cache for the objects found at startup
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * const sizes = new Map<string, unknown>();
   * kopf.on.resume("kopfexamples", ({ name, spec }) => {
   *   sizes.set(name, spec.size);
   * });
   * ```
   */
  readonly resume: ResourceRegistrar<"resume">;
  /**
   * Changes of one field (option `field`, required), in whichever cycle they happen, as in
   * Kopf: an update that changes, adds or removes it, and the creation of an object that
   * has it (`old` is `null` then); not resuming or deleting an object whose field did not
   * change.
   *
   * @example Scale something else when one field changes
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.field("kopfexamples", { field: "spec.replicas" }, ({ old, new: replicas, logger }) => {
   *   logger.info(`scaling from ${old ?? 0} to ${replicas}`);
   * });
   * ```
   */
  readonly field: ResourceRegistrar<"field">;
  /**
   * A long-running function per object.
   *
   * @example A watcher per object, the same as kopf.daemon
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.daemon("kopfexamples", async ({ name, stopped, logger }) => {
   *   while (!stopped.isSet) {
   *     logger.debug(`${name}: still watching`);
   *     await stopped.wait(60);
   *   }
   * });
   * ```
   */
  readonly daemon: ResourceRegistrar<"daemon">;
  /**
   * A function run periodically per object (option `interval` or `idle`, required).
   *
   * @example Check each object every five minutes, the same as kopf.timer
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.timer("kopfexamples", { interval: 300 }, async ({ name, patch }) => {
   *   const response = await fetch(`https://example.com/health/${name}`);
   *   patch.status.healthy = response.ok;
   * });
   * ```
   */
  readonly timer: ResourceRegistrar<"timer">;
  /**
   * An indexing function: its results form the index named by its id.
   *
   * @example Index the objects by their owner label, the same as kopf.index
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.index("kopfexamples", function byOwner({ labels, name }) {
   *   return labels.owner === undefined ? null : { [labels.owner]: name };
   * });
   * ```
   */
  readonly index: ResourceRegistrar<"index">;
  /**
   * A validating admission handler.
   *
   * @example Refuse objects whose size is not one of the offered ones
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.validate("kopfexamples", { operation: ["CREATE", "UPDATE"] }, ({ spec }) => {
   *   if (!["small", "large"].includes(String(spec.size))) {
   *     throw new kopf.AdmissionError("spec.size must be small or large", { code: 422 });
   *   }
   * });
   * ```
   */
  readonly validate: ResourceRegistrar<"webhook">;
  /**
   * A mutating admission handler: changes go into `patch`.
   *
   * @example Label every new object with the team that created it
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.mutate("kopfexamples", { operation: "CREATE" }, ({ userinfo, patch }) => {
   *   patch.metadata.labels = { "created-by": String(userinfo.username ?? "unknown") };
   * });
   * ```
   */
  readonly mutate: ResourceRegistrar<"webhook">;
  /**
   * A parent's handler for changes of its children: objects of the child resource with an
   * owner reference to it (the controller one, as `kopf.adopt()` sets it, unless
   * `anyOwner`). It gets the parent's arguments plus `child` and `childEvent`, and is retried
   * as other handlers are; its result goes to the parent's status.
   *
   * @example Restore a child ConfigMap when it is edited or deleted
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.child("kopfexamples", "configmaps", ({ name, childEvent, child, logger }) => {
   *   logger.info(`${child.metadata.name} of ${name}: ${childEvent}`);
   *   // Re-create or re-apply the child here, e.g. with the client and kopf.adopt().
   * });
   * ```
   */
  readonly child: ChildRegistrar;
  /**
   * Runs when the operator starts, before anything is watched.
   *
   * @example Tune the settings and open what the handlers share
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.startup(({ settings, memo }) => {
   *   settings.persistence.finalizer = "example.com/cleanup";
   *   memo.startedAt = new Date();
   * });
   * ```
   */
  readonly startup: ActivityRegistrar;
  /**
   * Runs when the operator stops.
   *
   * @example Say goodbye to an external registry when the operator exits
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.cleanup(async ({ logger }) => {
   *   await fetch("https://example.com/operators/me", { method: "DELETE" });
   *   logger.info("unregistered");
   * });
   * ```
   */
  readonly cleanup: ActivityRegistrar;
  /**
   * Provides credentials: returns a `ConnectionInfo` (or nothing).
   *
   * @example Log in with a token read from a mounted file
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.login(async () => ({
   *   server: "https://kubernetes.default.svc",
   *   token: (await Deno.readTextFile("/var/run/secrets/example/token")).trim(),
   * }));
   * ```
   */
  readonly login: ActivityRegistrar<ConnectionInfo | null | undefined | void>;
  /**
   * Contributes to the liveness endpoint's report under its id.
   *
   * @example Report the queue length on the liveness endpoint
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * const queue: string[] = [];
   * kopf.on.probe(function queueLength() {
   *   return queue.length; // reported under the id "queueLength"
   * });
   * ```
   */
  readonly probe: ActivityRegistrar;
  /**
   * Kopf's `kopf.on.subhandler`: a sub-handler of the running handler, the same as
   * `kopf.subhandler`.
   *
   * @example A sub-handler per container, registered the Kopf way
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * kopf.on.create("kopfexamples", ({ spec }) => {
   *   for (const name of (spec.containers as string[] | undefined) ?? []) {
   *     kopf.on.subhandler({ id: name }, ({ logger }) => logger.info(`checking ${name}`));
   *   }
   * });
   * ```
   */
  readonly subhandler: {
    /** Register `fn` as a sub-handler (its id is `<parent>/<function name>`). */
    <S = Record<string, unknown>, St = Record<string, unknown>, I = unknown>(
      fn: (kwargs: ChangingKwargs<S, St> & I) => unknown,
    ): (kwargs: ChangingKwargs<S, St> & I) => unknown;
    /** Register `fn` as a sub-handler with options (its id is `<parent>/<id>`). */
    <S = Record<string, unknown>, St = Record<string, unknown>, I = unknown>(
      options: Omit<HandlerOptions<ChangingKwargs<S, St> & I>, "metadataOnly">,
      fn: (kwargs: ChangingKwargs<S, St> & I) => unknown,
    ): (kwargs: ChangingKwargs<S, St> & I) => unknown;
  };
  /**
   * Kopf's `kopf.on.register`: a sub-handler of the running handler, function first, the
   * same as `kopf.register`.
   *
   * @example A named function as a sub-handler, the Kopf way
   * ```ts
   * import { kopf } from "@kopf/kopf";
   *
   * function notifyOwner({ name }: { name?: string }) {
   *   console.log(`${name} needs attention`);
   * }
   * kopf.on.update("kopfexamples", () => {
   *   kopf.on.register(notifyOwner, { retries: 3 });
   * });
   * ```
   */
  readonly register: <S = Record<string, unknown>, St = Record<string, unknown>, I = unknown>(
    fn: (kwargs: ChangingKwargs<S, St> & I) => unknown,
    options?: Omit<HandlerOptions<ChangingKwargs<S, St> & I>, "metadataOnly">,
  ) => (kwargs: ChangingKwargs<S, St> & I) => unknown;
}
