/**
 * The incremental JSON-lines parser at every split point.
 */
import { assertEquals, assertRejects, assertThrows } from "../assert.ts";
import { JsonLineError, JsonLines, NO_LINE, parseJsonLine } from "../../src/client/json_lines.ts";

/** Each value of a byte stream's lines, as the watch takes them from its chunks. */
async function* parseJsonLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<unknown> {
  const lines = new JsonLines();
  for await (const chunk of chunks) {
    lines.push(chunk);
    for (let value = lines.next(); value !== NO_LINE; value = lines.next()) yield value;
  }
  lines.end();
  for (let value = lines.next(); value !== NO_LINE; value = lines.next()) yield value;
}

Deno.test("JSON lines split at every possible byte pair parse to the same values", async () => {
  const values = [{ a: "é日本🚀" }, { b: [1, 2, { c: "ü" }] }, { d: null }];
  const bytes = new TextEncoder().encode(values.map((v) => JSON.stringify(v)).join("\n") + "\n");
  for (let i = 1; i < bytes.length; i++) {
    for (let j = i; j < bytes.length; j += 3) {
      const chunks = [bytes.slice(0, i), bytes.slice(i, j), bytes.slice(j)];
      const parsed: unknown[] = [];
      for await (const value of parseJsonLines(toAsync(chunks))) parsed.push(value);
      assertEquals(parsed, values, `split at ${i} and ${j}`);
    }
  }
});

Deno.test("a last line without a newline is parsed; a garbage line is a JsonLineError", async () => {
  const enc = new TextEncoder();
  const parsed: unknown[] = [];
  for await (const v of parseJsonLines(toAsync([enc.encode('{"x":1}\n\n{"y":2}')]))) parsed.push(v);
  assertEquals(parsed, [{ x: 1 }, { y: 2 }]);
  await assertRejects(async () => {
    for await (const _ of parseJsonLines(toAsync([enc.encode("{oops}\n")]))) { /* drain */ }
  }, JsonLineError);
});

Deno.test("the synchronous splitter skips blank lines and keeps lines pushed before draining", () => {
  const enc = new TextEncoder();
  const lines = new JsonLines();
  const drain = () => {
    const values: unknown[] = [];
    for (let v = lines.next(); v !== NO_LINE; v = lines.next()) values.push(v);
    return values;
  };
  lines.push(enc.encode('\uFEFF{"a":1}\r\n \t\n\u00a0\n{"b"'));
  lines.push(enc.encode(':2}\n{"c":3}\n{"d"'));
  assertEquals(drain(), [{ a: 1 }, { b: 2 }, { c: 3 }]);
  assertEquals(drain(), []);
  lines.push(enc.encode(":4}"));
  assertEquals(drain(), []);
  lines.end();
  assertEquals(drain(), [{ d: 4 }]);
});

Deno.test("lines are taken unparsed as they came, blank ones skipped, and parsed when asked", () => {
  const enc = new TextEncoder();
  const lines = new JsonLines();
  lines.push(enc.encode('{"a": 1}\r\n\n  \n{oops}\n{"b"'));
  assertEquals(lines.nextLine(), '{"a": 1}\r');
  // A line that is not JSON is only an error when it is parsed.
  assertEquals(lines.nextLine(), "{oops}");
  assertEquals(lines.nextLine(), NO_LINE);
  lines.push(enc.encode(":2}\n"));
  const line = lines.nextLine();
  assertEquals(line, '{"b":2}');
  assertEquals(parseJsonLine(line as string), { b: 2 });
  assertThrows(() => parseJsonLine("{oops}"), JsonLineError, "{oops}");
  assertEquals(lines.nextLine(), NO_LINE);
});

Deno.test("a BOM is dropped at the stream's start only, even split, and kept inside a line", () => {
  const enc = new TextEncoder();
  const lines = new JsonLines();
  const bom = enc.encode("\uFEFF");
  lines.push(bom.slice(0, 2));
  lines.push(new Uint8Array([...bom.slice(2), ...enc.encode('{"a":"')]));
  lines.push(enc.encode('\uFEFFx"}\n'));
  assertEquals(lines.next(), { a: "\uFEFFx" });
  assertEquals(lines.next(), NO_LINE);
});

async function* toAsync(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) yield chunk;
}
