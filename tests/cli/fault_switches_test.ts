/**
 * `--faults`: the switches in camelCase or kebab-case, `none`/`all`, weights, applied over
 * the scenario's own faults in the order given; a wrong switch is refused naming it.
 */
import { assertEquals, assertThrows } from "../assert.ts";
import {
  faultNamesText,
  parseFaultNames,
  parseFaultSwitches,
  switchedFaults,
} from "../../src/cli/fault_switches.ts";
import { FAULT_NAMES } from "../../src/testing/simulation/simulation_faults.ts";

function all(weight: number): Record<string, number> {
  return Object.fromEntries(FAULT_NAMES.map((name) => [name, weight]));
}

Deno.test("switches turn faults off, on, or weigh them, over the scenario's own", () => {
  assertEquals(
    switchedFaults(undefined, parseFaultSwitches("crashes=off, watch-timeouts=2,conflicts")),
    { ...all(1), crashes: 0, watchTimeouts: 2 },
  );
  assertEquals(
    switchedFaults({ crashes: false, latency: 3 }, parseFaultSwitches("restarts=false")),
    { ...all(1), crashes: 0, restarts: 0, latency: 3 },
  );
  assertEquals(switchedFaults(undefined, parseFaultSwitches("none,latency")), {
    ...all(0),
    latency: 1,
  });
  assertEquals(switchedFaults(false, parseFaultSwitches("all,lostReplies=0.5")), {
    ...all(1),
    lostReplies: 0.5,
  });
  // Without switches, the scenario's faults as they are; --no-faults: none.
  assertEquals(switchedFaults({ crashes: false }, undefined), { crashes: false });
  assertEquals(switchedFaults({ crashes: 2 }, false), false);
  assertEquals(parseFaultSwitches("crashes=off").text, "crashes=off");
});

Deno.test("a wrong switch is refused naming it and what to use", () => {
  assertThrows(
    () => parseFaultSwitches("crash=off"),
    Error,
    'unknown fault "crash": use none, all, or crashes, restarts, ',
  );
  assertThrows(() => parseFaultSwitches("crashes=-1"), Error, "crashes needs on, off or a weight");
  assertThrows(() => parseFaultSwitches("crashes=often"), Error, '"crashes=often"');
  assertThrows(() => parseFaultSwitches("crashes="), Error, '"crashes="');
  assertThrows(() => parseFaultSwitches("crashes=1=2"), Error, '"crashes=1=2"');
  assertThrows(() => parseFaultSwitches(""), Error, 'unknown fault ""');
});

Deno.test("--suppress names faults in either case, and replay commands write them in kebab-case", () => {
  assertEquals(parseFaultNames("crashes, watchDrops,lost-replies"), [
    "crashes",
    "watchDrops",
    "lostReplies",
  ]);
  assertEquals(faultNamesText(["watchTimeouts", "crashes"]), "watch-timeouts,crashes");
  assertThrows(() => parseFaultNames("crashes,lag"), Error, 'unknown fault "lag": use crashes,');
});
