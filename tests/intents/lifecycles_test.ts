/**
 * Lifecycles: which due handlers each of Kopf's lifecycles picks per cycle, the checks of
 * what a lifecycle returns, and the process's default lifecycle.
 */
import { kopf } from "../../mod.ts";
import {
  getDefaultLifecycle,
  type LifeCycleFn,
  type LifeCycleState,
  planHandlers,
} from "../../src/intents/lifecycles.ts";
import { ConfigurationError } from "../../src/structs/errors.ts";
import { HandlerState } from "../../src/handling/handler_progress.ts";
import { State } from "../../src/handling/handler_states.ts";

/** What a lifecycle reads of one handler's progress. */
type HandlerProgress = NonNullable<ReturnType<LifeCycleState["get"]>>;
import { ManualClock } from "../clocks.ts";
import { assert, assertEquals, assertThrows } from "../assert.ts";

const A = { id: "a" };
const B = { id: "b" };
const C = { id: "c" };
const HANDLERS = [A, B, C];

/** A state in which each handler has been tried so many times. */
function stateWith(retries: Record<string, number>): LifeCycleState {
  const clock = new ManualClock();
  return new State(
    Object.entries(retries).map(([id, n]) => {
      const fresh = HandlerState.fromScratch(clock, "create");
      return [id, new HandlerState({ ...fresh, retries: n }, clock)];
    }),
    { clock },
  );
}

const NONE = stateWith({});

Deno.test("allAtOnce and oneByOne: all in order, or the first", () => {
  assertEquals(kopf.lifecycles.allAtOnce(HANDLERS, { state: NONE }), HANDLERS);
  assertEquals(kopf.lifecycles.oneByOne(HANDLERS, { state: NONE }), [A]);
  assertEquals(kopf.lifecycles.oneByOne([], { state: NONE }), []);
});

Deno.test("asap: the first of those retried the least", () => {
  const asap = kopf.lifecycles.asap;
  assertEquals(asap(HANDLERS, { state: NONE }), [A]);
  assertEquals(asap(HANDLERS, { state: stateWith({ a: 2, b: 1, c: 1 }) }), [B]);
  assertEquals(asap(HANDLERS, { state: stateWith({ a: 1, b: 1, c: 0 }) }), [C]);
  assertEquals(asap([], { state: NONE }), []);
});

Deno.test("randomized and shuffled: one at random, or all in a random order", () => {
  const picked = new Set<string>();
  const orders = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const one = kopf.lifecycles.randomized(HANDLERS, { state: NONE });
    assertEquals(one.length, 1);
    picked.add(one[0].id);
    const all = kopf.lifecycles.shuffled(HANDLERS, { state: NONE });
    assertEquals([...all].sort((x, y) => x.id.localeCompare(y.id)), HANDLERS);
    orders.add(all.map((h) => h.id).join(""));
  }
  assertEquals(picked.size, 3);
  assert(orders.size > 1, "shuffled must not always keep one order");
  assertEquals(kopf.lifecycles.randomized([], { state: NONE }), []);
  assertEquals(kopf.lifecycles.shuffled([], { state: NONE }), []);
});

Deno.test("a lifecycle sees each handler's progress", () => {
  let seen: HandlerProgress | undefined;
  const spy: LifeCycleFn = (handlers, { state }) => {
    seen = state.get("b");
    return handlers;
  };
  planHandlers(spy, HANDLERS, stateWith({ b: 4 }));
  assertEquals(seen?.retries, 4);
  assertEquals(seen?.purpose, "create");
  assertEquals(seen?.success, false);
  assertEquals(seen?.delay, 0);
});

Deno.test("the plan: what the lifecycle chose of the due ones, each once, in its order", () => {
  const reversed: LifeCycleFn = (handlers) => [...handlers].reverse();
  assertEquals(planHandlers(reversed, HANDLERS, NONE), [C, B, A]);
  const sloppy: LifeCycleFn = (handlers) => [handlers[1], handlers[1], { id: "x" } as never];
  assertEquals(planHandlers(sloppy, HANDLERS, NONE), [B]);
  assertEquals(planHandlers(() => [], [], NONE), []);
  assertThrows(
    () =>
      planHandlers(
        function lazy() {
          return [];
        },
        HANDLERS,
        NONE,
      ),
    ConfigurationError,
    "The lifecycle lazy chose none of the 3 handlers due (a, b, c)",
  );
  assertThrows(
    () => planHandlers((() => "all") as unknown as LifeCycleFn, HANDLERS, NONE),
    ConfigurationError,
    "returned string, not a list",
  );
});

Deno.test("the default lifecycle: asap, until set; null restores it", () => {
  assertEquals(getDefaultLifecycle(), kopf.lifecycles.asap);
  try {
    kopf.setDefaultLifecycle(kopf.lifecycles.allAtOnce);
    assertEquals(getDefaultLifecycle(), kopf.lifecycles.allAtOnce);
    kopf.setDefaultLifecycle(null);
    assertEquals(getDefaultLifecycle(), kopf.lifecycles.asap);
    assertThrows(
      () => kopf.setDefaultLifecycle("asap" as unknown as LifeCycleFn),
      ConfigurationError,
      "must be a lifecycle function such as kopf.lifecycles.asap, not string",
    );
  } finally {
    kopf.setDefaultLifecycle(undefined);
  }
});
