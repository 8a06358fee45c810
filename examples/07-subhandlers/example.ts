/**
 * Sub-handlers: the create handler registers one sub-handler per item of
 * `spec.items`. Each is tracked, retried and persisted like a handler of its own, with
 * the id `createFn/<item>`.
 *
 *   kopf run examples/07-subhandlers/example.ts
 *   kubectl apply -f examples/obj.yaml      # items: item1, item2
 */
import { kopf } from "../../mod.ts";

kopf.on.create("kopf.dev", "v1", "kopfexamples", function createFn({ spec }) {
  const items = Array.isArray(spec.items) ? spec.items.map(String) : [];
  for (const item of items) {
    kopf.subhandler({ id: item }, ({ logger }) => {
      logger.info(`=== Handling creation for ${item}. ===`);
    });
  }
});
