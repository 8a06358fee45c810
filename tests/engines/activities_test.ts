/**
 * The activities engine: startup/cleanup/login/probe handlers with retries, results,
 * failures, and the default login.
 */
import { assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import { LoginError, PermanentError, TemporaryError } from "../../src/structs/errors.ts";
import { OperatorSettings } from "../../src/settings/operator_settings.ts";
import { OperatorRegistry } from "../../src/intents/registry.ts";
import { on } from "../../src/intents/registration.ts";
import {
  type ActivityContext,
  ActivityError,
  runActivity,
  runLogin,
  runProbes,
} from "../../src/engines/activities.ts";
import type { Clock } from "../../src/structs/clock.ts";

function setup(): ActivityContext & { registry: OperatorRegistry; slept: number[] } {
  const slept: number[] = [];
  let now = 1_600_000_000_000;
  // Every wait passes at once, moving the time on by as much as was asked for.
  const clock: Clock = {
    now: () => now / 1000,
    wall: () => now,
    schedule: (seconds, callback) => {
      slept.push(seconds);
      now += seconds * 1000;
      const timer = setTimeout(callback, 0);
      return () => clearTimeout(timer);
    },
  };
  return {
    clock,
    registry: new OperatorRegistry({ onWarning: () => {} }),
    settings: new OperatorSettings(),
    memo: { shared: true },
    slept,
  };
}

Deno.test("activity handlers are retried until done; results by id", async () => {
  const options = setup();
  const retries: number[] = [];
  on.startup({ registry: options.registry }, function warmup({ retry, memo, settings }) {
    retries.push(retry);
    if (retry < 2) throw new TemporaryError("not ready", { delay: 5 });
    settings.batching.workerLimit = 3;
    return memo.shared;
  });
  on.startup({ registry: options.registry }, function quiet() {});
  const results = await runActivity("startup", options);
  assertEquals(retries, [0, 1, 2]);
  assertEquals(options.slept, [5, 5]);
  assertEquals([...results], [["warmup", true]]);
  assertEquals(options.settings.batching.workerLimit, 3);
});

Deno.test("an activity fails when a handler fails for good; others still finish", async () => {
  const options = setup();
  let others = 0;
  on.startup({ registry: options.registry }, function broken() {
    throw new PermanentError("bad config");
  });
  on.startup({ registry: options.registry }, function fine() {
    others++;
  });
  on.startup({ registry: options.registry, errors: "ignored" }, function careless() {
    throw new Error("ignored");
  });
  const error = await assertRejects(() => runActivity("startup", options), ActivityError);
  assertStringIncludes(error.message, "startup handler(s) broken failed for good: bad config");
  assertEquals(others, 1);
  assertEquals(error.outcomes.size, 3);
});

Deno.test("login: handlers' credentials, the default login, or a clear error", async () => {
  const options = setup();
  await assertRejects(() => runLogin(options), LoginError, "No login handlers are registered");
  const viaDefault = await runLogin({
    ...options,
    defaultLogin: () => Promise.resolve({ server: "https://default" }),
  });
  assertEquals([...viaDefault], [["default", { server: "https://default" }]]);
  on.login({ registry: options.registry }, function mine() {
    return { server: "https://mine", token: "t" };
  });
  on.login({ registry: options.registry }, function nothing() {
    return null;
  });
  const credentials = await runLogin(options);
  assertEquals([...credentials], [["mine", { server: "https://mine", token: "t" }]]);
});

Deno.test("probes report their results by id", async () => {
  const options = setup();
  on.probe({ registry: options.registry }, function ready() {
    return { ok: true };
  });
  on.probe({ registry: options.registry, id: "count" }, () => 3);
  assertEquals(await runProbes(options), { ready: { ok: true }, count: 3 });
});
