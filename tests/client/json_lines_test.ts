/**
 * The incremental JSON-lines parser at every split point.
 */
import { assertEquals, assertRejects } from "../assert.ts";
import { JsonLineError, parseJsonLines } from "../../src/client/json_lines.ts";

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

async function* toAsync(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) yield chunk;
}
