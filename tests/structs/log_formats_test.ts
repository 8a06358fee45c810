import { assertEquals, assertThrows } from "../assert.ts";
import {
  formatLogRecord,
  type FormattableRecord,
  type LogLayout,
  objectPrefix,
  severityRank,
} from "../../src/structs/log_formats.ts";

// Built from local time components so the expected text holds in any time zone.
const LOCAL_TIME = new Date(2019, 10, 4, 17, 49, 25, 365).getTime();
const UTC_TIME = Date.UTC(2020, 11, 31, 23, 59, 59, 123);
const REF = {
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  name: "kopf-example-1",
  uid: "uid-1",
  namespace: "default",
};

function record(over: Partial<FormattableRecord> = {}): FormattableRecord {
  return {
    category: ["kopf", "objects"],
    level: "debug",
    message: ["Resuming is in progress."],
    timestamp: LOCAL_TIME,
    properties: { k8sRef: REF },
    ...over,
  };
}

const full: LogLayout = { format: "full", prefix: true, refkey: "object" };
const plain: LogLayout = { format: "plain", prefix: true, refkey: "object" };
const json: LogLayout = { format: "json", prefix: false, refkey: "object" };

Deno.test("the full layout shows local time, a padded logger name, a padded level and the prefix", () => {
  assertEquals(
    formatLogRecord(record(), full),
    "[2019-11-04 17:49:25,365] kopf.objects         [DEBUG   ] " +
      "[default/kopf-example-1] Resuming is in progress.",
  );
});

Deno.test("the full layout cuts logger names longer than 20 characters", () => {
  const line = formatLogRecord(
    record({ category: ["kopf", "activities", "authentication"], level: "info", properties: {} }),
    full,
  );
  assertEquals(
    line,
    "[2019-11-04 17:49:25,365] kopf.activities.auth [INFO    ] Resuming is in progress.",
  );
});

Deno.test("the full layout names the fatal level CRITICAL, like Python's logging", () => {
  const line = formatLogRecord(record({ level: "fatal", properties: {} }), full);
  assertEquals(line.slice(47, 57), "[CRITICAL]");
});

Deno.test("the plain layout shows only the message, prefixed for objects", () => {
  assertEquals(
    formatLogRecord(record(), plain),
    "[default/kopf-example-1] Resuming is in progress.",
  );
  assertEquals(formatLogRecord(record({ properties: {} }), plain), "Resuming is in progress.");
});

Deno.test("without the prefix, messages about objects are flat", () => {
  assertEquals(formatLogRecord(record(), { ...plain, prefix: false }), "Resuming is in progress.");
});

Deno.test("cluster-scoped objects are prefixed with their name alone", () => {
  assertEquals(objectPrefix({ name: "node-1" }), "[node-1]");
  assertEquals(objectPrefix({ name: "x", namespace: "ns" }), "[ns/x]");
});

Deno.test("the JSON layout has the message, the reference under the refkey, severity, UTC time", () => {
  assertEquals(
    formatLogRecord(record({ timestamp: UTC_TIME }), json),
    '{"message":"Resuming is in progress.","object":{"apiVersion":"kopf.dev/v1",' +
      '"kind":"KopfExample","name":"kopf-example-1","uid":"uid-1","namespace":"default"},' +
      '"severity":"debug","timestamp":"2020-12-31T23:59:59.123Z"}',
  );
});

Deno.test("the JSON layout puts the reference under a configured refkey", () => {
  const line = JSON.parse(formatLogRecord(record(), { ...json, refkey: "k8s-obj" }));
  assertEquals(line["k8s-obj"], REF);
  assertEquals("object" in line, false);
});

Deno.test("the JSON layout has no reference for records not about an object", () => {
  const line = formatLogRecord(
    record({ level: "info", properties: {}, timestamp: UTC_TIME, message: ["Started."] }),
    json,
  );
  assertEquals(
    line,
    '{"message":"Started.","severity":"info","timestamp":"2020-12-31T23:59:59.123Z"}',
  );
});

Deno.test("the JSON layout prefixes messages only when asked to", () => {
  const line = JSON.parse(formatLogRecord(record(), { ...json, prefix: true }));
  assertEquals(line.message, "[default/kopf-example-1] Resuming is in progress.");
});

Deno.test("JSON severities follow the common log parsers' names", () => {
  const severities = (["debug", "info", "warning", "error", "fatal"] as const).map((level) =>
    JSON.parse(formatLogRecord(record({ level }), json)).severity
  );
  assertEquals(severities, ["debug", "info", "warn", "error", "fatal"]);
});

Deno.test("JSON lines carry extra properties, and keep unencodable ones readable", () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const line = JSON.parse(
    formatLogRecord(
      record({ properties: { k8sRef: REF, handler: "create_fn", bad: cyclic } }),
      json,
    ),
  );
  assertEquals(line.handler, "create_fn");
  assertEquals(line.bad, "[object Object]");
});

Deno.test("errors are printed with their stack: below the line in text, as exc_info in JSON", () => {
  const error = new Error("boom");
  error.stack = "Error: boom\n    at somewhere";
  const props = { k8sRef: REF, error };
  assertEquals(
    formatLogRecord(record({ properties: props, message: ["Handler failed."] }), plain),
    "[default/kopf-example-1] Handler failed.\nError: boom\n    at somewhere",
  );
  const line = JSON.parse(formatLogRecord(record({ properties: props }), json));
  assertEquals(line.exc_info, "Error: boom\n    at somewhere");
});

Deno.test("substituted values in messages are rendered readably", () => {
  const line = formatLogRecord(
    record({ message: ["Got ", { a: 1 }, " and ", "text", "."], properties: {} }),
    plain,
  );
  assertEquals(line, 'Got {"a":1} and text.');
});

Deno.test("log levels compare by name or by Python's numbers, and bad ones are rejected", () => {
  assertEquals(severityRank("info"), 20);
  assertEquals(severityRank("WARNING" as "warning"), 30);
  assertEquals(severityRank("critical"), 50);
  assertEquals(severityRank(25), 25);
  assertThrows(() => severityRank("loud" as "info"), RangeError, '"debug", "info"');
});
