import { assertEquals } from "../assert.ts";
import { FailureStreak, formatSeconds } from "../../src/structs/failure_streaks.ts";
import type { Logger } from "../../src/structs/loggers.ts";
import { ManualClock } from "../clocks.ts";
import { patternOf, quote } from "../doc_quotes.ts";

function recorder(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => lines.push(`${level}: ${message}`);
  return {
    lines,
    debug: at("debug"),
    info: at("info"),
    warning: at("warning"),
    error: at("error"),
  };
}

Deno.test("a streak warns when it starts, escalates, and heals; attempts between are debug", async () => {
  const clock = new ManualClock();
  const logger = recorder();
  const streak = new FailureStreak({ logger, clock, what: "The API server https://k:6443" });
  streak.failed({ reason: "connection refused", kind: "refused", retryIn: 0.8 });
  for (let i = 0; i < 10; i++) {
    await clock.advance(5);
    streak.failed({ reason: "connection refused", kind: "refused", retryIn: 5 });
  }
  await clock.advance(15);
  streak.failed({ reason: "connection refused", kind: "refused", retryIn: 30 });
  streak.failed({ reason: "HTTP 503: starting", kind: "503", retryIn: 30 });
  streak.succeeded();
  streak.succeeded();
  const loud = logger.lines.filter((line) => !line.startsWith("debug"));
  assertEquals(loud, [
    "warning: The API server https://k:6443 failed: connection refused; retrying in 0.8s, " +
    "and keeps trying.",
    "warning: The API server https://k:6443 still fails after 1m 5s and 12 attempts: " +
    "connection refused; retrying in 30s.",
    "warning: The API server https://k:6443 still fails after 1m 5s and 13 attempts: " +
    "HTTP 503: starting; retrying in 30s.",
    "info: The API server https://k:6443 works again, after 13 failed attempts over 1m 5s.",
  ]);
  assertEquals(logger.lines.filter((line) => line.startsWith("debug")).length, 10);
  assertEquals(streak.failures, 0);
  // The end of the streak as docs/errors-and-retries.md quotes it.
  const healed = await quote("errors-and-retries.md", "… works again");
  assertEquals(patternOf(healed).test(loud[3]), true, `${healed}\n${loud[3]}`);
});

Deno.test("a long streak is reported at 1, 5, 15, 30 minutes and then hourly, no more", async () => {
  const clock = new ManualClock();
  const logger = recorder();
  const streak = new FailureStreak({ logger, clock, what: "X" });
  for (let minute = 0; minute <= 180; minute++) {
    streak.failed({ reason: "down" });
    await clock.advance(60);
  }
  const warnings = logger.lines.filter((line) => line.startsWith("warning"));
  assertEquals(warnings.map((line) => line.match(/after (\S+( \S+)?) and/)?.[1] ?? "start"), [
    "start",
    "1m",
    "5m",
    "15m",
    "30m",
    "1h",
    "2h",
    "3h",
  ]);
});

Deno.test("durations read as people read them", () => {
  assertEquals(
    [0.84, 9.96, 45, 125, 3600, 3780].map(formatSeconds),
    ["0.8s", "10s", "45s", "2m 5s", "1h", "1h 3m"],
  );
});
