/**
 * How a watch recovers: one backoff and one streak for a watch's failures, sources kept
 * going until the signal aborts, and persistent watches of the fake cluster that go on
 * through refusals and report them once.
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import { keepWatching, WatchHealth } from "../../src/client/watch_recovery.ts";
import { watchObjects } from "../../src/client/watch.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { APIForbiddenError } from "../../src/client/api_errors.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import type { Logger } from "../../src/structs/loggers.ts";
import { ManualClock, settle } from "../clocks.ts";
import { configmaps as CONFIGMAPS } from "../fixtures/discovered.ts";

/** A logger that keeps its lines as `level: message`. */
function recording(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => void lines.push(`${level}: ${message}`);
  return {
    lines,
    debug: at("debug"),
    info: at("info"),
    warning: at("warning"),
    error: at("error"),
  } as unknown as Logger & { lines: string[] };
}

const BACKOFF = { initial: 1, factor: 2, cap: 8, jitter: 0 };

Deno.test("a failure after a source that lasted longer than the pause before it starts the pauses over", () => {
  const clock = new ManualClock();
  const health = new WatchHealth("The watch of x", {
    logger: recording(),
    backoff: BACKOFF,
    clock,
  });
  const pauses: number[] = [];
  for (let i = 0; i < 4; i++) health.pausing(pauses[pauses.push(health.failed("down", 0)) - 1]);
  assertEquals(pauses, [1, 2, 4, 8], "capped");
  assertEquals(health.failed("down", 7.9), 8, "shorter than the last pause: no proof of health");
  health.pausing(8);
  assertEquals(health.failed("down", 8), 1, "as long as the last pause: of use");
  assertEquals(health.failed("down", 0, 3), 3, "never below the floor");
});

Deno.test("sources are opened one after another, with pauses, until the signal aborts", async () => {
  const clock = new ManualClock();
  const logger = recording();
  const health = new WatchHealth("The watch of x", { logger, backoff: BACKOFF, clock });
  const controller = new AbortController();
  let opened = 0;
  const items: number[] = [];
  const watching = (async () => {
    const source = async function* () {
      const n = ++opened;
      yield n;
      if (n === 1) throw new Error("broken");
      // the second one ends by itself
    };
    for await (const item of keepWatching(source, health, { signal: controller.signal })) {
      items.push(item);
    }
  })();
  await settle();
  assertEquals([opened, items], [1, [1]]);
  assertStringIncludes(logger.lines.join("\n"), "The watch of x failed: broken; retrying in 1s");
  await clock.advance(1);
  assertEquals([opened, items], [2, [1, 2]]);
  assertStringIncludes(
    logger.lines.join("\n"),
    "still fails after 1s and 2 attempts: the watch ended; retrying in 2s",
  );
  controller.abort();
  await watching;
});

Deno.test("onFailure hears of every failure, and ends the watching by returning true", async () => {
  const clock = new ManualClock();
  const health = new WatchHealth("The watch of x", {
    logger: recording(),
    backoff: BACKOFF,
    clock,
  });
  const heard: string[] = [];
  // deno-lint-ignore require-yield
  const source = async function* (): AsyncGenerator<number> {
    await Promise.resolve();
    throw new Error(heard.length === 0 ? "first" : "fatal");
  };
  const items = keepWatching(source, health, {
    onFailure: (error) => {
      heard.push((error as Error).message);
      return (error as Error).message === "fatal";
    },
  });
  const done = assertRejects(
    async () => {
      for await (const _ of items) { /* nothing comes */ }
    },
    Error,
    "fatal",
  );
  await settle();
  await clock.advance(1);
  await done;
  assertEquals(heard, ["first", "fatal"]);
});

function clientOf(cluster: FakeCluster): ApiClient {
  const vault = new Vault({ relogin: () => Promise.resolve({ fake: cluster.connectionInfo }) });
  return new ApiClient(vault, {
    networking: { errorBackoffs: [] },
    watching: { reconnectBackoff: 0.01 },
  });
}

Deno.test("a persistent watch goes on through a refusal, says it once as the caller words it, and lists when allowed", async () => {
  await using cluster = await FakeCluster.start();
  cluster.faults.failRequests({ share: 1, status: 403, verbs: ["list", "watch"] });
  await using api = clientOf(cluster);
  const logger = recording();
  const controller = new AbortController();
  const failures: unknown[] = [];
  const items = watchObjects(api, CONFIGMAPS, {
    namespace: "default",
    signal: controller.signal,
    persistent: true,
    logger,
    backoff: { initial: 0.05, cap: 0.1, jitter: 0 },
    describeFailure: (error) => `refused (${(error as Error).name})`,
    onFailure: (error) => void failures.push(error),
  });
  const first = items.next();
  while (failures.length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
  assert(failures.every((e) => e instanceof APIForbiddenError));
  const warnings = logger.lines.filter((l) => l.startsWith("warning"));
  assertEquals(warnings.length, 1, warnings.join("\n"));
  assertStringIncludes(warnings[0], "failed: refused (APIForbiddenError)");
  cluster.faults.clear();
  const listed = await first;
  assertEquals(listed.value?.type, "LISTED");
  assertStringIncludes(logger.lines.join("\n"), "works again");
  controller.abort();
  await items.return(undefined);
});

Deno.test("a watch that is not persistent ends with the refusal", async () => {
  await using cluster = await FakeCluster.start();
  cluster.faults.failRequests({ share: 1, status: 403, verbs: ["list", "watch"] });
  await using api = clientOf(cluster);
  await assertRejects(async () => {
    for await (const _ of watchObjects(api, CONFIGMAPS, { namespace: "default" })) {
      // nothing comes
    }
  }, APIForbiddenError);
});
