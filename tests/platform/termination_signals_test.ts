/**
 * Termination signals: the same signal delivered twice at once (the terminal's Ctrl+C to
 * the process group, forwarded again by a parent such as npx) is handled once, while a
 * second Ctrl+C after the window, or another signal, is handled again. (The stop of an
 * operator run through npx, with Ctrl+C to its process group, is in
 * tests/cli/init_commands_test.ts.)
 */
import { assertEquals } from "../assert.ts";
import {
  collapsingRepeats,
  REPEAT_WINDOW_MS,
  type TerminationSignal,
} from "../../src/platform/termination_signals.ts";

Deno.test("a signal repeated within the window is handled once; later or another, again", () => {
  let now = 1000;
  const seen: [TerminationSignal, number][] = [];
  const handle = collapsingRepeats((signal) => seen.push([signal, now]), () => now);
  handle("SIGINT");
  now += 3;
  handle("SIGINT"); // forwarded by the parent: the same Ctrl+C
  now += 1;
  handle("SIGTERM");
  now += REPEAT_WINDOW_MS;
  handle("SIGTERM"); // a second request, after the window
  now += REPEAT_WINDOW_MS - 1;
  handle("SIGTERM");
  assertEquals(seen, [["SIGINT", 1000], ["SIGTERM", 1004], ["SIGTERM", 1504]]);
});
