/**
 * Daemons: a long-running task per object, from its creation (or the operator's start)
 * until its deletion (or the operator's exit).
 *
 * - `backgroundPolling` fails its first three attempts (retried a second later each time,
 *   with a message in the status), then pings every 5 seconds until it is stopped or has
 *   run for 30 seconds; when it ends on its own, it is not started again for the object.
 * - `backgroundAbortable` (only for objects annotated `someannotation: somevalue`) also
 *   fails three times, then pings forever. It never looks at the stop-flag: it passes
 *   `stopped.signal` to what it waits on, so the stop aborts the wait. Had it ignored the
 *   signal too, it would be abandoned 1.5 seconds after the stop (the cancellation backoff
 *   plus the cancellation timeout), and the object released anyway.
 *
 *   kopf run examples/14-daemons/example.ts --verbose
 *   kubectl apply -f examples/obj.yaml
 *   kubectl delete -f examples/obj.yaml
 */
import { kopf } from "../../mod.ts";

/** Resolve after `seconds`, or reject as soon as the signal aborts. */
function sleep(seconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, seconds * 1000);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

kopf.daemon(
  "kopfexamples",
  { backoff: 3 },
  async function backgroundPolling({ spec, stopped, logger, retry, patch }) {
    if (retry < 3) {
      patch.status.message = `Failed ${retry + 1} times.`;
      throw new kopf.TemporaryError("Simulated failure.", { delay: 1 });
    }
    const started = Date.now();
    while (!stopped.isSet && Date.now() - started <= 30_000) {
      logger.info(
        `=> Ping from a polling daemon: field=${JSON.stringify(spec.field)}, retry=${retry}`,
      );
      await stopped.wait(5);
    }
    patch.status.message = "Accompanying is finished.";
  },
);

kopf.daemon(
  "kopfexamples",
  {
    backoff: 3,
    cancellationBackoff: 1,
    cancellationTimeout: 0.5,
    annotations: { someannotation: "somevalue" },
  },
  async function backgroundAbortable({ spec, stopped, logger, retry }) {
    if (retry < 3) throw new kopf.TemporaryError("Simulated failure.", { delay: 1 });
    try {
      for (;;) {
        logger.info(`=> Ping from an abortable daemon: field=${JSON.stringify(spec.field)}`);
        await sleep(5, stopped.signal);
      }
    } catch (error) {
      if (!stopped.isSet) throw error;
      logger.info(`The abortable daemon is stopped: ${stopped.reason}.`);
    }
  },
);
