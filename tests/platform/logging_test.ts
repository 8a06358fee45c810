import { getLogger } from "@logtape/logtape";
import { assert, assertEquals, assertMatch, assertThrows } from "../assert.ts";
import {
  configure,
  ensureLoggingConfigured,
  type LoggingOptions,
  TRAFFIC_CATEGORY,
} from "../../src/platform/logging.ts";
import { createObjectLogger, runInObjectScope } from "../../src/handling/object_loggers.ts";
import { ConfigurationError } from "../../src/structs/errors.ts";

const BODY = {
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name: "kopf-example-1", namespace: "default", uid: "uid-1" },
};

/** Configure with a capturing writer; returns the captured lines. */
function capture(options: LoggingOptions = {}): string[] {
  const lines: string[] = [];
  configure({ ...options, writer: (line) => lines.push(line) });
  return lines;
}

function logEveryLevel(): void {
  const logger = getLogger(["kopf", "test"]);
  logger.debug("a debug line");
  logger.info("an info line");
  logger.warning("a warning line");
  logger.error("an error line");
}

Deno.test("by default, info and above are printed in the full layout", () => {
  const lines = capture();
  logEveryLevel();
  assertEquals(lines.length, 3);
  assertMatch(
    lines[0],
    /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] kopf\.test {12}\[INFO {4}\] an info line$/,
  );
});

Deno.test("verbose and debug show debug lines; quiet shows only warnings and errors", () => {
  let lines = capture({ verbose: true });
  logEveryLevel();
  assertEquals(lines.length, 4);
  lines = capture({ debug: true });
  logEveryLevel();
  assertEquals(lines.length, 4);
  lines = capture({ quiet: true });
  logEveryLevel();
  assertEquals(lines.map((l) => l.replace(/^.*\] /, "")), ["a warning line", "an error line"]);
});

Deno.test("the API traffic is shown with debug, but not with verbose", () => {
  const traffic = getLogger([...TRAFFIC_CATEGORY]);
  let lines = capture({ verbose: true, logFormat: "plain" });
  traffic.debug("GET /api/v1/pods");
  assertEquals(lines, []);
  lines = capture({ debug: true, logFormat: "plain" });
  traffic.debug("GET /api/v1/pods");
  assertEquals(lines, ["GET /api/v1/pods"]);
});

Deno.test("per-object loggers print the object's prefix, unless the prefix is off", () => {
  let lines = capture({ logFormat: "plain" });
  createObjectLogger(BODY).info("Created.");
  assertEquals(lines, ["[default/kopf-example-1] Created."]);
  lines = capture({ logFormat: "plain", logPrefix: false });
  createObjectLogger(BODY).info("Created.");
  assertEquals(lines, ["Created."]);
});

Deno.test("JSON logs carry the object under the refkey and have no prefix by default", () => {
  let lines = capture({ logFormat: "json" });
  createObjectLogger(BODY).info("Created.");
  let line = JSON.parse(lines[0]);
  assertEquals(line.message, "Created.");
  assertEquals(line.object, {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    name: "kopf-example-1",
    uid: "uid-1",
    namespace: "default",
  });
  lines = capture({ logFormat: "json", logRefkey: "k8s-obj", logPrefix: true });
  createObjectLogger(BODY).info("Created.");
  line = JSON.parse(lines[0]);
  assertEquals(line.message, "[default/kopf-example-1] Created.");
  assertEquals(line["k8s-obj"].name, "kopf-example-1");
});

Deno.test("any logger used while an object is handled knows the object", async () => {
  const lines = capture({ logFormat: "plain" });
  const framework = getLogger(["kopf", "handling"]);
  const logger = createObjectLogger(BODY);
  await runInObjectScope({ body: BODY, logger }, async () => {
    await Promise.resolve();
    framework.info("Handler 'create_fn' succeeded.");
  });
  framework.info("Outside of any object.");
  assertEquals(lines, [
    "[default/kopf-example-1] Handler 'create_fn' succeeded.",
    "Outside of any object.",
  ]);
});

Deno.test("messages with braces are printed as they are, not as templates", () => {
  const lines = capture({ logFormat: "plain" });
  createObjectLogger(BODY).info('spec is {"size": 1} and {name}');
  assertEquals(lines, ['[default/kopf-example-1] spec is {"size": 1} and {name}']);
});

Deno.test("bad logging options are rejected with a hint", () => {
  assertThrows(
    () => configure({ logFormat: "xml" as "json" }),
    ConfigurationError,
    "plain, full, json",
  );
  assertThrows(() => configure({ logRefkey: " " }), ConfigurationError, "refkey");
});

Deno.test("the default configuration does not replace one made before", () => {
  const lines = capture({ logFormat: "plain" });
  ensureLoggingConfigured();
  getLogger(["kopf"]).info("still captured");
  assertEquals(lines, ["still captured"]);
  assert(lines.length === 1);
});
