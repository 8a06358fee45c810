/**
 * Errors and retries: four create handlers that fail in the four ways a handler can.
 *
 * - `instantFailureWithOnlyAMessage`: a permanent error — never retried.
 * - `eventualSuccessWithFewMessages`: temporary errors with a 1-second delay, then success
 *   on the fourth attempt.
 * - `eventualFailureWithTracebacks`: an arbitrary error, retried with a 1-second backoff
 *   until its 3 retries are used up.
 * - `instantFailureWithTraceback`: an arbitrary error in the permanent errors mode — one
 *   attempt only.
 *
 *   kopf run examples/03-exceptions/example.ts --verbose
 */
import { kopf } from "../../mod.ts";

/** An error of the operator's own, neither temporary nor permanent. */
class MyError extends Error {
  override name = "MyError";
}

kopf.on.create("kopfexamples", function instantFailureWithOnlyAMessage() {
  throw new kopf.PermanentError("Fail once and for all.");
});

kopf.on.create("kopfexamples", function eventualSuccessWithFewMessages({ retry }) {
  if (retry < 3) {
    throw new kopf.TemporaryError("Expected recoverable error.", { delay: 1 });
  }
});

kopf.on.create(
  "kopfexamples",
  { retries: 3, backoff: 1 },
  function eventualFailureWithTracebacks() {
    throw new MyError("An error that is supposed to be recoverable.");
  },
);

kopf.on.create(
  "kopfexamples",
  { errors: kopf.ErrorsMode.PERMANENT, backoff: 1 },
  function instantFailureWithTraceback() {
    throw new MyError("An error that is supposed to be recoverable.");
  },
);
