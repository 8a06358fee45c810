import { assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import {
  DEFECTS_IN_A_ROW,
  WatchDefectsError,
  WatchRestarts,
} from "../../src/structs/watch_restarts.ts";
import { ManualClock } from "../clocks.ts";
import { RecordingLogger } from "../reactor/recording_logger.ts";

function restarts() {
  const clock = new ManualClock();
  const logger = new RecordingLogger();
  const backoff = { initial: 1, factor: 3, cap: 5, jitter: 0 };
  return {
    clock,
    logger,
    restarts: new WatchRestarts("Watching pods", { backoff, clock, logger }),
  };
}

Deno.test("a watch's end is reported at ERROR, with how it came, and followed by a growing pause", async () => {
  const { clock, logger, restarts: r } = restarts();
  const signal = new AbortController().signal;
  let first: boolean | undefined;
  void r.after(signal, { error: new TypeError("a defect") }).then((go) => (first = go));
  await clock.advance(0.9);
  assertEquals(first, undefined, "not before its pause");
  await clock.advance(0.2);
  assertEquals(first, true);
  const [line] = logger.at("error");
  assertStringIncludes(line, "Watching pods failed; watching it anew in 1s: TypeError: a defect");
  let second: boolean | undefined;
  void r.after(signal).then((go) => (second = go));
  await clock.advance(2.9);
  assertEquals(second, undefined, "the pauses grow");
  await clock.advance(0.2);
  assertEquals(second, true);
  assertEquals(
    logger.at("error")[1],
    "error: Watching pods ended by itself; watching it anew in 3s.",
  );
});

Deno.test("a stop during the pause ends the wait: the watch is not begun anew", async () => {
  const { clock, restarts: r } = restarts();
  const controller = new AbortController();
  const after = r.after(controller.signal);
  await clock.advance(0.5);
  controller.abort();
  assertEquals(await after, false);
});

Deno.test("the fifth end in a row fails for good, with the last failure as its cause", async () => {
  const { clock, logger, restarts: r } = restarts();
  const signal = new AbortController().signal;
  for (let n = 1; n < DEFECTS_IN_A_ROW; n++) {
    const after = r.after(signal, { error: new TypeError(`defect ${n}`) });
    await clock.advance(5);
    assertEquals(await after, true);
  }
  const last = new TypeError("defect 5");
  const error = await assertRejects(() => r.after(signal, { error: last }), WatchDefectsError);
  assertEquals(
    error.message,
    "Watching pods failed 5 times in a row; stopping the operator, as watching it anew does " +
      "not help (a restart of the process begins afresh): TypeError: defect 5",
  );
  assertEquals(error.cause, last);
  assertEquals(logger.at("error").length, 5);
});

Deno.test("an end after a healthy period starts the count over", async () => {
  const { clock, restarts: r } = restarts();
  const signal = new AbortController().signal;
  for (let n = 1; n <= 2 * DEFECTS_IN_A_ROW; n++) {
    const after = r.after(signal);
    await clock.advance(n % 4 === 0 ? 125 : 5); // every fourth run lasts over two minutes
    assertEquals(await after, true);
  }
});
