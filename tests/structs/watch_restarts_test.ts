import { assertEquals, assertStringIncludes } from "../assert.ts";
import { WatchRestarts } from "../../src/structs/watch_restarts.ts";
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
