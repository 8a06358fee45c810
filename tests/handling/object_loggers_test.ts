/**
 * What the handling asks of object loggers to skip work nobody uses: whether a record of a
 * level is printed or posted at all, and one reference per object state.
 */
import { resetSync } from "@logtape/logtape";
import { assert, assertEquals } from "../assert.ts";
import { configure } from "../../src/platform/logging.ts";
import type { ObjectLogger } from "../../src/structs/loggers.ts";
import {
  createActivityLogger,
  createObjectLogger,
  createObjectScope,
  currentObjectScope,
  isLoggedAt,
  runInObjectScope,
} from "../../src/handling/object_loggers.ts";
import { isPosted } from "../../src/handling/posting_queue.ts";
import { drain, postingTarget } from "./posting_targets.ts";

const BODY = {
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name: "kex1", namespace: "default", uid: "uid-1" },
};
const writer = () => {};

Deno.test("a level is used when its records are printed or posted", () => {
  try {
    configure({ writer }); // info and above are printed
    const info = postingTarget();
    const debug = postingTarget({ level: "debug" });
    assert(!isLoggedAt(createObjectLogger(BODY, { posting: info }), "debug"));
    assert(isLoggedAt(createObjectLogger(BODY, { posting: info }), "info"));
    assert(isLoggedAt(createObjectLogger(BODY, { posting: debug }), "debug"), "posted");
    assert(!isLoggedAt(createObjectLogger(BODY, { posting: debug, local: true }), "debug"));
    assert(
      !isLoggedAt(
        createObjectLogger(BODY, { posting: postingTarget({ enabled: false }) }),
        "debug",
      ),
    );
    assert(!isLoggedAt(createActivityLogger(), "debug"), "activity loggers never post");
    configure({ verbose: true, writer });
    assert(isLoggedAt(createObjectLogger(BODY, { posting: info }), "debug"), "printed");
    const foreign: ObjectLogger = { ...console, warning: console.warn, exception: console.error };
    assert(isLoggedAt(foreign, "debug"), "other loggers: assumed to use everything");
  } finally {
    resetSync();
  }
});

Deno.test("the posting level and switch decide what is posted", () => {
  assert(isPosted(postingTarget(), "info") && isPosted(postingTarget(), "error"));
  assert(!isPosted(postingTarget(), "debug"));
  assert(isPosted(postingTarget({ level: "debug" }), "debug"));
  assert(!isPosted(postingTarget({ enabled: false }), "error"));
  assert(isPosted(postingTarget()), "no severity: only the switch");
});

Deno.test("records below the posting level are not queued; others are, as before", () => {
  const posting = postingTarget();
  const logger = createObjectLogger(BODY, { posting });
  logger.debug("details");
  logger.info("informing");
  assertEquals(drain(posting.queue).map((e) => e.message), ["informing"]);
});

Deno.test("an object scope's logger and its runs share one reference", async () => {
  const scope = createObjectScope(BODY, { posting: postingTarget() });
  assertEquals(scope.ref, {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    name: "kex1",
    uid: "uid-1",
    namespace: "default",
  });
  const local = createObjectScope(BODY, { local: true }, scope.ref);
  assert(local.ref === scope.ref && local.logger !== scope.logger);
  const seen = await runInObjectScope(scope, async () => {
    await Promise.resolve();
    return currentObjectScope();
  });
  assert(seen === scope);
});
