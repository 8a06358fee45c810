/**
 * The places among the processings: taken at once when free, else waited for as records in
 * the queues and told to the seeker when they come; a wait abandoned gives back what it held.
 */
import { assert, assertEquals } from "../../assert.ts";
import { AWAITED, type Place, Places, type Seeker } from "../../../src/reactor/queueing/places.ts";
import { type Lane, LISTINGS, LIVE } from "../../../src/reactor/queueing/lanes.ts";
import { ManualClock } from "../../clocks.ts";

function places(workerLimit: number | null, startLimit: number): Places {
  return new Places({
    workerLimit: () => workerLimit,
    startLimit,
    startHold: 1,
    handicaps: [0, 0, 0],
    clock: new ManualClock(),
  });
}

function seeker(name: string, told: string[], lane: Lane = LIVE): Seeker & { place?: Place } {
  const s: Seeker & { place?: Place } = {
    lane,
    tenant: "",
    wait: undefined,
    placed: (place) => {
      told.push(`${name} ${place === undefined ? "none" : "placed"}`);
      s.place = place;
    },
  };
  return s;
}

Deno.test("a free place comes at once; a full one is awaited and told when given back", () => {
  const told: string[] = [];
  const all = places(null, 1);
  const first = all.take(new AbortController().signal, seeker("a", told));
  assert(first !== undefined && first !== AWAITED);
  const b = seeker("b", told);
  assertEquals(all.take(new AbortController().signal, b), AWAITED);
  assertEquals(told, []);
  all.give(first);
  assertEquals(told, ["b placed"]);
  all.give(b.place!);
});

Deno.test("a live seeker moved up goes before listings that waited longer", () => {
  const told: string[] = [];
  const all = places(1, 1);
  const held = all.take(new AbortController().signal, seeker("held", told)) as Place;
  const listing = seeker("listing", told, LISTINGS);
  const later = seeker("later", told, LISTINGS);
  assertEquals(all.take(new AbortController().signal, listing), AWAITED);
  assertEquals(all.take(new AbortController().signal, later), AWAITED);
  all.promote(later, LIVE);
  all.give(held);
  assertEquals(told, ["later placed"]);
  all.give(later.place!);
  assertEquals(told, ["later placed", "listing placed"]);
});

Deno.test("an abandoned wait is told so, and gives back the worker place it held", () => {
  const told: string[] = [];
  let workerLimit = 2;
  const all = new Places({
    workerLimit: () => workerLimit,
    startLimit: 1,
    startHold: 1,
    handicaps: [0, 0, 0],
    clock: new ManualClock(),
  });
  const held = all.take(new AbortController().signal, seeker("held", told)) as Place;
  const stop = new AbortController();
  // The second worker place is free: it is held while the start place is waited for.
  assertEquals(all.take(stop.signal, seeker("abandoned", told)), AWAITED);
  stop.abort();
  assertEquals(told, ["abandoned none"]);
  all.give(held);
  // No worker place is held now: with a limit of one, a place comes at once.
  workerLimit = 1;
  const next = all.take(new AbortController().signal, seeker("next", told));
  assert(next !== undefined && next !== AWAITED);
  all.give(next);
  assertEquals(all.take(stop.signal, seeker("late", told)), undefined);
});
