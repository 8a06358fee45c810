/**
 * The smallest operator: one handler for new KopfExample objects.
 *
 *   kubectl apply -f examples/crd.yaml
 *   kopf run examples/01-minimal/example.ts --verbose
 *   kubectl apply -f examples/obj.yaml
 *
 * The returned value lands in the object's status under the handler's id:
 * `kubectl get kex kopf-example-1 -o jsonpath='{.status.createFn}'`.
 */
import { kopf } from "../../mod.ts";

kopf.on.create("kopfexamples", function createFn({ spec, logger }) {
  logger.info(`And here we are! Created with spec ${JSON.stringify(spec)}`);
  return { message: "hello world" };
});
