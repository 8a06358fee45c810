/**
 * One handler run once: outcomes for returns and every kind of error, per errors mode,
 * and the timeout and retries limits — without any API.
 */
import { assert, assertEquals } from "../assert.ts";
import {
  HandlerRetriesError,
  HandlerTimeoutError,
  PermanentError,
  TemporaryError,
} from "../../src/structs/errors.ts";
import type { ObjectLogger } from "../../src/structs/loggers.ts";
import type { ErrorsMode } from "../../src/structs/errors.ts";
import { executeHandlerOnce, HandlerChildrenRetry } from "../../src/handling/execution.ts";
import { HandlerState } from "../../src/handling/handler_progress.ts";
import { wallClockAt } from "../clocks.ts";

function recorder(): ObjectLogger & { lines: string[] } {
  const lines: string[] = [];
  const put = (level: string) => (message: string) => lines.push(`${level}: ${message}`);
  return {
    lines,
    debug: put("debug"),
    info: put("info"),
    warning: put("warning"),
    error: put("error"),
    exception: (message) => lines.push(`exception: ${message}`),
  };
}

function handler(
  overrides: Partial<{ errors: ErrorsMode; timeout: number; retries: number }> = {},
) {
  return {
    id: "fn",
    errors: overrides.errors ?? "temporary",
    timeout: overrides.timeout ?? null,
    retries: overrides.retries ?? null,
    backoff: 7,
  } as const;
}

const T0 = 1_600_000_000_000;
const fresh = () => HandlerState.fromScratch(wallClockAt(T0));

Deno.test("a return is a final success with the result", async () => {
  const logger = recorder();
  const outcome = await executeHandlerOnce(handler(), fresh(), logger, () => 42);
  assertEquals(outcome, { final: true, result: 42, subrefs: [] });
  assertEquals(logger.lines, ["debug: Handler 'fn' is invoked.", "info: Handler 'fn' succeeded."]);
});

Deno.test("errors become outcomes by their kind and the errors mode", async () => {
  const run = async (error: unknown, errors: ErrorsMode = "temporary") => {
    const logger = recorder();
    const outcome = await executeHandlerOnce(handler({ errors }), fresh(), logger, () => {
      throw error;
    });
    return { ...outcome, log: logger.lines.at(-1) };
  };
  const temporary = await run(new TemporaryError("soon", { delay: 3 }));
  assertEquals([temporary.final, temporary.delay], [false, 3]);
  assertEquals(temporary.log, "error: Handler 'fn' failed temporarily: soon. Will retry in 3s.");
  const sentence = await run(new TemporaryError("Not ready yet.", { delay: 150 }));
  assertEquals(
    sentence.log,
    "error: Handler 'fn' failed temporarily: Not ready yet. Will retry in 2m 30s.",
  );
  const atOnce = await run(new TemporaryError("again", { delay: null }));
  assertEquals(atOnce.log, "error: Handler 'fn' failed temporarily: again. Will retry now.");
  const permanent = await run(new PermanentError("never"));
  assertEquals([permanent.final, permanent.delay], [true, undefined]);
  assertEquals(permanent.log, "error: Handler 'fn' failed permanently: never");
  const backoff = await run(new Error("oops"));
  assertEquals([backoff.final, backoff.delay], [false, 7]);
  assertEquals(backoff.log, "exception: Handler 'fn' failed with an exception. Will retry in 7s.");
  const stopped = await run(new Error("oops"), "permanent");
  assertEquals([stopped.final, stopped.error instanceof Error], [true, true]);
  const ignored = await run(new Error("oops"), "ignored");
  assertEquals([ignored.final, ignored.error], [true, undefined]);
  assertEquals(ignored.log, "exception: Handler 'fn' failed with an exception. Will ignore.");
  const children = await run(new HandlerChildrenRetry(2));
  assertEquals([children.final, children.delay], [false, 2]);
  assertEquals(children.log, "debug: Handler 'fn' has unfinished sub-handlers. Will retry in 2s.");
  const nothing = await run(undefined, "permanent");
  assert(nothing.error instanceof Error, "a thrown undefined still fails the handler");
});

Deno.test("timeout and retries fail for good before calling the handler", async () => {
  let called = 0;
  const invoke = () => called++;
  const started = HandlerState.fromScratch(wallClockAt(T0));
  const later = new HandlerState({ ...started, retries: 3 }, wallClockAt(T0 + 10_000));
  const timedOut = await executeHandlerOnce(handler({ timeout: 5 }), later, recorder(), invoke);
  assert(timedOut.final && timedOut.error instanceof HandlerTimeoutError);
  const exhausted = await executeHandlerOnce(handler({ retries: 3 }), later, recorder(), invoke);
  assert(exhausted.final && exhausted.error instanceof HandlerRetriesError);
  assertEquals((exhausted.error as Error).message, "Handler 'fn' has exceeded 3 retries.");
  assertEquals(called, 0);
  const allowed = await executeHandlerOnce(
    handler({ retries: 4, timeout: 60 }),
    later,
    recorder(),
    invoke,
  );
  assertEquals([allowed.final, called], [true, 1]);
});
