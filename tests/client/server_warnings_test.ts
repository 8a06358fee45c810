/**
 * The API server's `Warning` headers are said in the log, once per text: a field the server
 * dropped (an unknown field of a built-in kind) is otherwise never seen by the operator.
 */
import { configure, type LogRecord, reset } from "@logtape/logtape";
import { assertEquals } from "../assert.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { parseWarningHeader } from "../../src/client/server_warnings.ts";
import { json, ScriptedServer } from "./scripted_server.ts";

Deno.test("a Warning header's texts: one or several, escaped quotes, dates, and what does not parse", () => {
  assertEquals(parseWarningHeader('299 - "unknown field \\"status\\""'), [
    'unknown field "status"',
  ]);
  assertEquals(
    parseWarningHeader('299 - "unknown field \\"a\\"", 299 - "duplicate field \\"b\\""'),
    ['unknown field "a"', 'duplicate field "b"'],
  );
  assertEquals(
    parseWarningHeader('299 - "deprecated" "Sat, 06 Dec 2026 05:00:00 GMT", 299 k8s "x, y"'),
    ["deprecated", "x, y"],
  );
  assertEquals(parseWarningHeader("something else"), ["something else"]);
  assertEquals(parseWarningHeader(""), []);
});

Deno.test("the server's warnings are logged once per text, naming the request", async () => {
  const records: LogRecord[] = [];
  await configure({
    reset: true,
    sinks: { capture: (record: LogRecord) => records.push(record) },
    loggers: [
      { category: ["kopf"], lowestLevel: "warning", sinks: ["capture"] },
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: [] },
    ],
  });
  try {
    await using server = ScriptedServer.start((request) => {
      const name = request.path.split("/").pop();
      return json({ metadata: { name } }, 200, {
        warning: `299 - "unknown field \\"status\\"", 299 - "unknown field \\"spec.${name}\\""`,
      });
    });
    const vault = new Vault({ relogin: () => Promise.resolve({ test: server.info() }) });
    await using api = new ApiClient(vault, { networking: { errorBackoffs: [] } });
    const path = "/api/v1/namespaces/default/configmaps";
    for (const name of ["a", "b"]) {
      await api.request("PATCH", `${path}/${name}`, {
        body: { status: { done: true } },
        contentType: "application/merge-patch+json",
        query: { fieldManager: "kopf" },
      });
    }
    // A read goes through `fetch`, the writes through the framework's own HTTP/1.1 transport.
    await api.request("GET", `${path}/c`);
    const said = records.map((r) => r.message.join(""));
    assertEquals(said, [
      `The API server warns on PATCH ${path}/a: unknown field "status"`,
      `The API server warns on PATCH ${path}/a: unknown field "spec.a"`,
      `The API server warns on PATCH ${path}/b: unknown field "spec.b"`,
      `The API server warns on GET ${path}/c: unknown field "spec.c"`,
    ]);
  } finally {
    await reset();
  }
});
