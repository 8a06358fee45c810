/**
 * Timers: a function run on a schedule per object, whether the object changes or not.
 * Both timers here wait until the object has been left alone for a while (`idle`), then
 * run at their interval for as long as it stays unchanged; any change starts the quiet
 * period again.
 *
 *   kopf run examples/15-timers/example.ts --verbose
 *   kubectl apply -f examples/obj.yaml
 *   kubectl patch kex kopf-example-1 --type merge -p '{"spec":{"field":"changed"}}'
 */
import { kopf } from "../../mod.ts";

kopf.timer(
  "kopfexamples",
  { idle: 2, interval: 1 },
  function everySecond({ spec, logger }) {
    logger.info(`Ping from a frequent timer: field=${JSON.stringify(spec.field)}`);
  },
);

kopf.timer(
  "kopfexamples",
  { idle: 4, interval: 2 },
  function everyFewSeconds({ spec, logger }) {
    logger.info(`Ping from a slower timer: field=${JSON.stringify(spec.field)}`);
  },
);
