/**
 * Kubernetes Events about the handled object (or any other): the general
 * `kopf.event()` and the shortcuts `kopf.info()`, `kopf.warn()` and `kopf.exception()`.
 *
 *   kopf run examples/04-events/example.ts
 *   kubectl apply -f examples/obj.yaml
 *   kubectl describe kex kopf-example-1     # the Events section
 */
import { kopf } from "../../mod.ts";

kopf.on.create("kopf.dev", "v1", "kopfexamples", function createFn({ body }) {
  kopf.event(body, { type: "SomeType", reason: "SomeReason", message: "Some message" });
  kopf.info(body, { reason: "SomeReason", message: "Some message" });
  kopf.warn(body, { reason: "SomeReason", message: "Some message" });
  try {
    throw new RangeError("Exception text.");
  } catch (error) {
    kopf.exception(body, { reason: "SomeReason", message: "Some exception:", error });
  }
});
