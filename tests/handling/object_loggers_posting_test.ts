import { assertEquals, assertThrows } from "../assert.ts";
import { UsageError } from "../../src/structs/errors.ts";
import { configure } from "../../src/platform/logging.ts";
import {
  createActivityLogger,
  createObjectLogger,
  currentObjectScope,
  LocalObjectLogger,
  runInObjectScope,
} from "../../src/handling/object_loggers.ts";
import {
  EventQueue,
  type PostingTarget,
  runWithPostingTarget,
} from "../../src/handling/posting_queue.ts";
import { drain, postingTarget } from "./posting_targets.ts";
import { OperatorSettings } from "../../src/settings/operator_settings.ts";

const BODY = {
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name: "kopf-example-1", namespace: "default", uid: "uid-1" },
};
const REF = {
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  name: "kopf-example-1",
  uid: "uid-1",
  namespace: "default",
};

const lines: string[] = [];
configure({ logFormat: "plain", verbose: true, writer: (line) => lines.push(line) });

Deno.test("records at the posting level and above are queued as events of the matching type", () => {
  const posting = postingTarget();
  const logger = createObjectLogger(BODY, { posting });
  logger.debug("debugging");
  logger.info("informing");
  logger.warning("warning");
  logger.error("failing");
  assertEquals(drain(posting.queue), [
    { ref: REF, type: "Normal", reason: "Logging", message: "informing" },
    { ref: REF, type: "Warning", reason: "Logging", message: "warning" },
    { ref: REF, type: "Error", reason: "Logging", message: "failing" },
  ]);
});

Deno.test("a higher posting level (name or number) keeps lower records out of events", () => {
  for (const level of ["warning", 30] as const) {
    const posting = postingTarget({ level });
    const logger = createObjectLogger(BODY, { posting });
    logger.info("informing");
    logger.warning("warning");
    assertEquals(drain(posting.queue).map((e) => e.message), ["warning"]);
  }
});

Deno.test("a debug posting level posts debug records as Debug events", () => {
  const posting = postingTarget({ level: "debug" });
  createObjectLogger(BODY, { posting }).debug("details");
  assertEquals(drain(posting.queue).map((e) => e.type), ["Debug"]);
});

Deno.test("disabled posting queues nothing, but the records are still printed", () => {
  lines.length = 0;
  const posting = postingTarget({ enabled: false });
  createObjectLogger(BODY, { posting }).error("failing");
  assertEquals(drain(posting.queue), []);
  assertEquals(lines, ["[default/kopf-example-1] failing"]);
});

Deno.test("local loggers print but never post", () => {
  lines.length = 0;
  const posting = postingTarget();
  createObjectLogger(BODY, { posting, local: true }).error("event handler failed");
  assertEquals(drain(posting.queue), []);
  assertEquals(lines, ["[default/kopf-example-1] event handler failed"]);
});

Deno.test("records about an Event object never become events", () => {
  const posting = postingTarget();
  const eventBody = { apiVersion: "v1", kind: "Event", metadata: { name: "e1", namespace: "ns" } };
  createObjectLogger(eventBody, { posting }).error("about an event");
  assertEquals(drain(posting.queue), []);
});

Deno.test("exceptions are posted with the error's stack after the message", () => {
  const posting = postingTarget();
  const error = new TypeError("bad value");
  error.stack = "TypeError: bad value\n    at handler";
  createObjectLogger(BODY, { posting }).exception("Handler 'create_fn' failed.", error);
  assertEquals(drain(posting.queue), [{
    ref: REF,
    type: "Error",
    reason: "Logging",
    message: "Handler 'create_fn' failed.\nTypeError: bad value\n    at handler",
  }]);
});

Deno.test("the logger keeps the identity the object had when it was created", () => {
  const posting = postingTarget();
  const body = structuredClone(BODY);
  const logger = createObjectLogger(body, { posting });
  body.metadata.name = "renamed";
  logger.info("still the old name");
  assertEquals(drain(posting.queue)[0].ref.name, "kopf-example-1");
});

Deno.test("without an explicit target, the logger posts to the operator's target of the flow", async () => {
  const first = postingTarget();
  const second = postingTarget();
  const logger = createObjectLogger(BODY);
  await runWithPostingTarget(first, async () => {
    await Promise.resolve();
    logger.info("to the first");
  });
  runWithPostingTarget(second, () => logger.info("to the second"));
  logger.info("to nowhere, but printed");
  assertEquals(drain(first.queue).map((e) => e.message), ["to the first"]);
  assertEquals(drain(second.queue).map((e) => e.message), ["to the second"]);
});

Deno.test("OperatorSettings drive posting, and changes to them apply at once", () => {
  const settings = new OperatorSettings();
  const posting: PostingTarget = { settings, queue: new EventQueue() };
  const logger = createObjectLogger(BODY, { posting });
  logger.info("posted at the default level");
  settings.posting.level = "error";
  logger.warning("not posted any more");
  assertEquals(drain(posting.queue).map((e) => e.message), ["posted at the default level"]);
});

Deno.test("the object scope is visible to everything awaited inside it, and only there", async () => {
  const logger = createObjectLogger(BODY);
  assertEquals(currentObjectScope(), undefined);
  const seen = await runInObjectScope({ body: BODY, logger }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
    return currentObjectScope()?.body;
  });
  assertEquals(seen, BODY);
  assertEquals(currentObjectScope(), undefined);
});

Deno.test("the activity logger prints without a prefix and never posts", () => {
  lines.length = 0;
  const posting = postingTarget();
  runWithPostingTarget(posting, () => {
    const logger = createActivityLogger();
    logger.info("Startup handler succeeded.", { handler: "configure" });
    logger.exception("Login failed.", new Error("no credentials"));
  });
  assertEquals(drain(posting.queue), []);
  assertEquals(lines[0], "Startup handler succeeded.");
  assertEquals(lines[1].split("\n")[0], "Login failed.");
});

Deno.test("kopf.LocalObjectLogger prints about its object and never posts, inside an operator too", () => {
  lines.length = 0;
  const posting = postingTarget({ level: "debug" });
  const logger = new LocalObjectLogger({ body: BODY });
  runWithPostingTarget(posting, () => {
    logger.debug("details");
    logger.info("progress");
    logger.warning("odd");
    logger.error("failed");
    logger.exception("crashed", new RangeError("bad size"));
  });
  assertEquals(drain(posting.queue), []);
  assertEquals(lines.slice(0, 4), [
    "[default/kopf-example-1] details",
    "[default/kopf-example-1] progress",
    "[default/kopf-example-1] odd",
    "[default/kopf-example-1] failed",
  ]);
  assertEquals(lines[4].split("\n")[0], "[default/kopf-example-1] crashed");
  // The same object's regular logger, in the same flow, posts.
  runWithPostingTarget(posting, () => createObjectLogger(BODY).info("posted"));
  assertEquals(drain(posting.queue).map((e) => e.message), ["posted"]);
  assertThrows(
    () => new LocalObjectLogger(undefined as never),
    UsageError,
    "new kopf.LocalObjectLogger() takes { body }",
  );
});
