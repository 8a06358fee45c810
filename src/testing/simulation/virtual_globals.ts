/**
 * The process's own sources of time and chance, replaced for the length of a simulated
 * run: `setTimeout` and its kin run on virtual time, `Date` and `performance.now()` read
 * it, and `Math.random()`, `crypto.randomUUID()` and `crypto.getRandomValues()` draw from
 * the seed. This reaches what no clock parameter can: the handlers' own code, libraries,
 * and the few timers of the framework that are not on its `Clock`. One run at a time.
 *
 * @module
 */
import { UsageError } from "../../structs/errors.ts";
import type { SeededRandom } from "./seeded_random.ts";
import type { VirtualTime } from "./virtual_time.ts";

type Callback = (...args: unknown[]) => void;

let installed = false;

/**
 * Replace the globals (see the module) with virtual ones; returns the function that puts
 * the real ones back.
 */
export function installVirtualGlobals(time: VirtualTime, random: SeededRandom): () => void {
  if (installed) {
    throw new UsageError(
      "A simulation is already running in this process: simulations run one at a time.",
    );
  }
  installed = true;
  const g = globalThis as unknown as Record<string, unknown>;
  const saved = {
    setTimeout: g.setTimeout,
    clearTimeout: g.clearTimeout,
    setInterval: g.setInterval,
    clearInterval: g.clearInterval,
    Date: g.Date,
    random: Math.random,
    now: Object.getOwnPropertyDescriptor(performance, "now"),
    randomUUID: Object.getOwnPropertyDescriptor(crypto, "randomUUID"),
    getRandomValues: Object.getOwnPropertyDescriptor(crypto, "getRandomValues"),
    timeout: Object.getOwnPropertyDescriptor(AbortSignal, "timeout"),
  };
  const timer = (every: boolean) => (callback: unknown, ms?: unknown, ...args: unknown[]) => {
    const seconds = (Number(ms) || 0) / 1000;
    const call = typeof callback === "function" ? () => (callback as Callback)(...args) : () => {};
    return time.add(seconds, call, every ? seconds : undefined);
  };
  const clear = (id: unknown) => {
    if (typeof id === "number") time.cancel(id);
  };
  g.setTimeout = timer(false);
  g.setInterval = timer(true);
  g.clearTimeout = clear;
  g.clearInterval = clear;
  g.Date = virtualDate(saved.Date as DateConstructor, time);
  Math.random = () => random.next();
  const define = (target: object, name: string, value: unknown) =>
    Object.defineProperty(target, name, { value, configurable: true, writable: true });
  define(performance, "now", () => time.now() * 1000);
  define(crypto, "randomUUID", () => random.uuid());
  define(crypto, "getRandomValues", <T extends ArrayBufferView>(array: T) => random.fill(array));
  define(AbortSignal, "timeout", (ms: number) => {
    const controller = new AbortController();
    time.add(
      ms / 1000,
      () => controller.abort(new DOMException("Signal timed out.", "TimeoutError")),
      undefined,
    );
    return controller.signal;
  });
  return () => {
    g.setTimeout = saved.setTimeout;
    g.clearTimeout = saved.clearTimeout;
    g.setInterval = saved.setInterval;
    g.clearInterval = saved.clearInterval;
    g.Date = saved.Date;
    Math.random = saved.random;
    restore(performance, "now", saved.now);
    restore(crypto, "randomUUID", saved.randomUUID);
    restore(crypto, "getRandomValues", saved.getRandomValues);
    restore(AbortSignal, "timeout", saved.timeout);
    installed = false;
  };
}

/** Put a property back as it was: an own property restored, an inherited one uncovered. */
function restore(target: object, name: string, descriptor: PropertyDescriptor | undefined): void {
  if (descriptor === undefined) delete (target as Record<string, unknown>)[name];
  else Object.defineProperty(target, name, descriptor);
}

/** A `Date` whose "now" (no arguments, `Date.now()`) is the virtual wall time. */
function virtualDate(Real: DateConstructor, time: VirtualTime): DateConstructor {
  class VirtualDate extends Real {
    constructor(...args: unknown[]) {
      super(...((args.length === 0 ? [time.wall()] : args) as [string | number | Date]));
    }

    static override now(): number {
      return Math.floor(time.wall());
    }
  }
  return VirtualDate as unknown as DateConstructor;
}
