/**
 * Every kind of resource-changing handler: resume (objects found when the operator
 * starts), create, update, delete, and a field handler for `spec.field`. Handlers of
 * one kind run in the order they are declared here.
 *
 *   kopf run examples/05-handlers/example.ts
 *   kubectl apply -f examples/obj.yaml
 *   kubectl patch kex kopf-example-1 --type merge -p '{"spec":{"field":"changed"}}'
 *   kubectl delete kex kopf-example-1
 */
import { kopf } from "../../mod.ts";

kopf.on.resume("kopfexamples", function resumeFn1({ logger }) {
  logger.info("RESUMED 1st");
});

kopf.on.create("kopfexamples", function createFn1({ logger }) {
  logger.info("CREATED 1st");
});

kopf.on.resume("kopfexamples", function resumeFn2({ logger }) {
  logger.info("RESUMED 2nd");
});

kopf.on.create("kopfexamples", function createFn2({ logger }) {
  logger.info("CREATED 2nd");
});

kopf.on.update("kopfexamples", function updateFn({ diff, logger }) {
  logger.info(`UPDATED: ${JSON.stringify(diff)}`);
});

kopf.on.delete("kopfexamples", function deleteFn1({ logger }) {
  logger.info("DELETED 1st");
});

kopf.on.delete("kopfexamples", function deleteFn2({ logger }) {
  logger.info("DELETED 2nd");
});

kopf.on.field("kopfexamples", { field: "spec.field" }, function fieldFn({ old, new: now, logger }) {
  logger.info(`FIELD CHANGED: ${JSON.stringify(old)} -> ${JSON.stringify(now)}`);
});
