/**
 * A Kubernetes operator framework for TypeScript, modelled on Kopf.
 *
 * Register plain async functions on the {@link kopf} namespace object and run the
 * operator; the framework watches the cluster, detects changes, calls the handlers,
 * retries them and persists their progress on the objects.
 *
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.create("kopfexamples", async ({ spec, logger }) => {
 *   logger.info(`Created with ${JSON.stringify(spec)}`);
 *   return { message: "hello" };
 * });
 * ```
 *
 * @module
 */

export * as kopf from "./src/kopf.ts";
export * from "./src/kopf.ts";
