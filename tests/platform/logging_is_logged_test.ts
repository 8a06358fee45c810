/**
 * `isLogged()`: whether a record would reach a sink, so that callers skip building records
 * nobody prints — and say yes whenever logtape might deliver it after all.
 */
import { configureSync, resetSync } from "@logtape/logtape";
import { assertEquals } from "../assert.ts";
import {
  configure,
  isLogged,
  OBJECTS_CATEGORY,
  TRAFFIC_CATEGORY,
} from "../../src/platform/logging.ts";
import { createObjectLogger } from "../../src/handling/object_loggers.ts";

const BODY = {
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name: "kex1", namespace: "default", uid: "uid-1" },
};
const writer = () => {};

Deno.test("the levels of configure() decide what is logged, per category", () => {
  try {
    configure({ quiet: true, writer });
    assertEquals(isLogged(OBJECTS_CATEGORY, "info"), false);
    assertEquals(isLogged(OBJECTS_CATEGORY, "warning"), true);
    configure({ verbose: true, writer });
    assertEquals(isLogged(OBJECTS_CATEGORY, "debug"), true);
    assertEquals(isLogged(TRAFFIC_CATEGORY, "debug"), false); // traffic only with debug
    configure({ debug: true, writer });
    assertEquals(isLogged(TRAFFIC_CATEGORY, "debug"), true);
    configure({ writer });
    assertEquals(isLogged(["kopf", "reactor"], "debug"), false);
    assertEquals(isLogged(["kopf", "reactor"], "info"), true);
  } finally {
    resetSync();
  }
});

Deno.test("a category that is not frozen is answered by its contents, even when changed", () => {
  try {
    configure({ verbose: true, writer });
    const category = ["kopf", "objects"];
    assertEquals(isLogged(category, "debug"), true);
    category[1] = "traffic"; // only a frozen category's answer is kept by its identity
    assertEquals(isLogged(category, "debug"), false);
    assertEquals(isLogged(Object.freeze(["kopf", "traffic"]), "debug"), false);
  } finally {
    resetSync();
  }
});

Deno.test("when unsure, records count as logged", () => {
  try {
    resetSync();
    assertEquals(isLogged(OBJECTS_CATEGORY, "trace"), true); // not configured at all
    const sinks = { all: () => {}, app: () => {} };
    const meta = { category: ["logtape", "meta"], lowestLevel: "warning" as const };
    // Another category's sinks may get our records under a category prefix.
    configureSync({
      reset: true,
      sinks,
      loggers: [
        { category: [], sinks: ["all"], lowestLevel: "error" },
        { category: ["app"], sinks: ["app"], lowestLevel: "debug" },
        meta,
      ],
    });
    assertEquals(isLogged(OBJECTS_CATEGORY, "debug"), true);
    // A filter on the way decides by itself.
    configureSync({
      reset: true,
      sinks,
      filters: { any: () => true },
      loggers: [
        { category: ["kopf"], sinks: ["all"], filters: ["any"], lowestLevel: "error" },
        meta,
      ],
    });
    assertEquals(isLogged(OBJECTS_CATEGORY, "debug"), true);
    // Without sinks on the way, nothing is logged; a lower level below does not help.
    configureSync({
      reset: true,
      sinks,
      loggers: [
        { category: ["kopf", "objects"], lowestLevel: "trace", parentSinks: "override" },
        { category: [], sinks: ["all"], lowestLevel: "trace" },
        meta,
      ],
    });
    assertEquals(isLogged(OBJECTS_CATEGORY, "debug"), false);
    assertEquals(isLogged(["kopf", "other"], "debug"), true);
  } finally {
    resetSync();
  }
});

Deno.test("per-object lines below the level are skipped; those above still print", () => {
  const lines: string[] = [];
  try {
    configure({ quiet: true, writer: (line) => lines.push(line) });
    const logger = createObjectLogger(BODY, { local: true });
    logger.info("not shown");
    logger.warning("shown");
    assertEquals(lines.length, 1);
    assertEquals(lines[0].includes("shown") && !lines[0].includes("not shown"), true);
  } finally {
    resetSync();
  }
});
