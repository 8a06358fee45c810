/**
 * Where the framework's records go: printed by the framework itself when LogTape is not in the
 * process (which then never loads it), through LogTape when it is — to the user's own LogTape
 * configuration, or with the framework's configuration made in LogTape.
 */
import {
  configureSync,
  getLogger as getLogTapeLogger,
  type LogRecord,
  resetSync,
} from "@logtape/logtape";
import { assertEquals } from "../assert.ts";
import { configure } from "../../src/platform/logging.ts";
import { getLogger, logRoutingSettled, templateParts } from "../../src/platform/log_routing.ts";

const ROUTING = new URL("../../src/platform/log_routing.ts", import.meta.url).href;
const LOGGING = new URL("../../src/platform/logging.ts", import.meta.url).href;
const OBJECTS = new URL("../../src/handling/object_loggers.ts", import.meta.url).href;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

/** Run a script in a process of its own (the project's import map); its stdout lines. */
async function runScript(script: string): Promise<string[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--config", CONFIG, "--ext=ts", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(new TextDecoder().decode(output.stderr), "");
  return new TextDecoder().decode(output.stdout).trim().split("\n");
}

Deno.test("without LogTape in the process, the framework prints its lines itself and never loads it", async () => {
  const script = `
    import { getLogger } from ${JSON.stringify(ROUTING)};
    import { configure } from ${JSON.stringify(LOGGING)};
    import { createObjectLogger, runInObjectScope } from ${JSON.stringify(OBJECTS)};
    configure({ logFormat: "plain", writer: (line) => console.log(line) });
    const body = { kind: "KopfExample", metadata: { name: "kex1", namespace: "default" } };
    const logger = getLogger(["kopf", "test"]);
    logger.debug("hidden at info");
    await runInObjectScope({ body, logger: createObjectLogger(body) }, async () => {
      await Promise.resolve();
      logger.info("Retrying {method} {path} in {delay} s.", { method: "GET", path: "/api", delay: 1 });
    });
    logger.warn("{{literal}} braces and {missing}");
    console.log(Symbol.for("logtape.rootLogger") in globalThis);
  `;
  assertEquals(await runScript(script), [
    "[default/kex1] Retrying GET /api in 1 s.",
    "{literal} braces and undefined",
    "false",
  ]);
});

Deno.test("where the program loads LogTape, records made while the framework imports it are held and passed on in order", async () => {
  const script = `
    import { getLogger as getLogTapeLogger } from "@logtape/logtape";
    import { getLogger, isLogged, logRoutingSettled } from ${JSON.stringify(ROUTING)};
    import { configure } from ${JSON.stringify(LOGGING)};
    configure({ logFormat: "plain", quiet: true, writer: (line) => console.log(line) });
    const logger = getLogger(["kopf", "test"]);
    console.log("info logged: " + isLogged(logger.category, "info"));
    logger.warn("first");
    logger.error("second");
    console.log("logged");
    await logRoutingSettled();
    console.log("settled");
    getLogTapeLogger(["my-operator"]).warning("mine, in the framework's layout");
    logger.info("hidden in quiet mode");
  `;
  assertEquals(await runScript(script), [
    "info logged: false", // the framework's configuration answers meanwhile
    "logged", // the two records wait for LogTape…
    "first",
    "second",
    "settled",
    "mine, in the framework's layout", // …which has the framework's configuration since
  ]);
});

Deno.test("a user's own LogTape configuration gets the framework's records", async () => {
  const records: LogRecord[] = [];
  try {
    configureSync({
      reset: true,
      sinks: { mine: (record) => records.push(record) },
      loggers: [
        { category: "kopf", sinks: ["mine"], lowestLevel: "debug" },
        { category: ["logtape", "meta"], lowestLevel: "warning" },
      ],
    });
    getLogger(["kopf", "client", "api"]).debug("Sending {method} again.", { method: "GET" });
    await logRoutingSettled();
    assertEquals(records.map((r) => [r.category, r.message, r.properties]), [
      [["kopf", "client", "api"], ["Sending ", "GET", " again."], { method: "GET" }],
    ]);
  } finally {
    resetSync();
  }
});

Deno.test("with LogTape in the process, configure() makes its loggers print through the framework's layout", async () => {
  const lines: string[] = [];
  try {
    configure({ logFormat: "plain", writer: (line) => lines.push(line) });
    await logRoutingSettled();
    getLogTapeLogger(["my-operator"]).info("mine");
    getLogger(["kopf", "test"]).info("the framework's");
    assertEquals(lines, ["mine", "the framework's"]);
  } finally {
    resetSync();
  }
});

Deno.test("message templates: properties by name, doubled braces as braces, the rest as it is", () => {
  assertEquals(templateParts("a {x} b { y } c", { x: 1, y: "two" }), ["a ", 1, " b ", "two", " c"]);
  assertEquals(templateParts("{{x}} {", { x: 1 }), ["{x} {"]);
  assertEquals(templateParts("", {}), [""]);
});
