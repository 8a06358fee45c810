/**
 * Watch-event handlers: called for every event seen on the objects (the initial
 * listing included), with no state kept on the objects and no retries. An error in an
 * event handler is logged and ignored; the other event handlers still run.
 *
 *   kopf run examples/08-events/example.ts --verbose
 */
import { kopf } from "../../mod.ts";

kopf.on.event("kopfexamples", function eventFnWithError() {
  throw new Error("Oops!");
});

kopf.on.event("kopfexamples", function normalEventFn({ type, name, logger }) {
  logger.info(`Event received: ${type ?? "LISTED"} ${name}`);
});
