/**
 * The reading of a response's head (`http1_parser.ts`): the one pass that finds its end also
 * tells whether its bytes are beyond ASCII and whether each is one a head may hold, so the
 * outcome must not depend on where the reads split the bytes -- at a CR whose LF comes in
 * the next read above all.
 */
import { assertEquals } from "../assert.ts";
import { ResponseReader } from "../../src/platform/http1_parser.ts";

/**
 * The response read from the bytes, in reads of `size` bytes (the last may be shorter), or
 * its error's message.
 */
async function readInPieces(
  bytes: Uint8Array,
  size: number,
): Promise<{ status: number; headers: [string, string][]; body: string } | string> {
  let at = 0;
  const reader = new ResponseReader((into) => {
    if (at >= bytes.length) return Promise.resolve(null);
    const count = Math.min(size, into.length, bytes.length - at);
    into.set(bytes.subarray(at, at + count));
    // Beyond what a read gave, the buffer holds what earlier reads left: here, LFs.
    into.fill(10, count);
    at += count;
    return Promise.resolve(count);
  }, { maxBodyBytes: 1024 });
  try {
    const { response } = await reader.response("PATCH");
    return { status: response.status, headers: [...response.headers], body: await response.text() };
  } catch (e) {
    return (e as Error).message;
  }
}

/** A response whose one header line is `field`, given as bytes (each character one byte). */
function responseWith(field: string): Uint8Array {
  const text = `HTTP/1.1 200 OK\r\n${field}\r\ncontent-length: 2\r\n\r\n{}`;
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/** The outcomes of reading the bytes in every read size up to their length. */
async function everySplit(bytes: Uint8Array): Promise<Set<string>> {
  const outcomes = new Set<string>();
  for (let size = 1; size <= bytes.length; size++) {
    outcomes.add(JSON.stringify(await readInPieces(bytes, size)));
  }
  return outcomes;
}

Deno.test("a head reads the same however the reads split it: tabs, CRLFs and Latin-1 bytes", async () => {
  const cases: [string, [string, string][]][] = [
    ["x-tab: a\tb", [["content-length", "2"], ["x-tab", "a\tb"]]],
    ["x-latin: caf\u00e9 \u00ff\u0080", [["content-length", "2"], [
      "x-latin",
      "caf\u00e9 \u00ff\u0080",
    ]]],
  ];
  for (const [field, headers] of cases) {
    assertEquals(
      [...await everySplit(responseWith(field))],
      [JSON.stringify({ status: 200, headers, body: "{}" })],
      field,
    );
  }
});

Deno.test("a head with a byte no head may hold fails, wherever the reads split it", async () => {
  const cases: [string, string][] = [
    ["x-bad: a\rb", 'malformed response header "x-bad: a\\rb"'],
    ["x-bad: a\r", 'malformed response header "x-bad: a\\r"'],
    ["x-bad: a\nb", 'malformed response header "x-bad: a\\nb"'],
    ["x-bad: a\u0000b", 'malformed response header "x-bad: a\\u0000b"'],
    ["x-bad: a\u001fb", 'malformed response header "x-bad: a\\u001fb"'],
    ["x-bad: a\u007fb", 'malformed response header "x-bad: a\u007fb"'],
    ["x-bad: a\u000bb", 'malformed response header "x-bad: a\\u000bb"'],
  ];
  for (const [field, message] of cases) {
    assertEquals([...await everySplit(responseWith(field))], [JSON.stringify(message)], field);
  }
  // A LF first, and a CR right before the blank line's CRLF: both outside any CRLF pair.
  const odd = [
    "\nHTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n",
    "HTTP/1.1 200 OK\r\ncontent-length: 0\r\r\n\r\n",
  ];
  for (const text of odd) {
    const outcomes = await everySplit(Uint8Array.from(text, (c) => c.charCodeAt(0)));
    assertEquals(outcomes.size, 1, text);
    const [outcome] = outcomes;
    assertEquals(JSON.parse(outcome).startsWith?.("malformed "), true, outcome);
  }
});

Deno.test("a response read whole has its status, reason and ok as a Response made with them", async () => {
  const heads: [number, string][] = [
    [200, "OK"],
    [201, ""],
    [299, "Fine"],
    [300, "Multiple Choices"],
    [404, "Not Found"],
    [503, "Service \u00e9 Unavailable"],
  ];
  for (const [status, reason] of heads) {
    const text = `HTTP/1.1 ${status} ${reason}\r\ncontent-length: 0\r\n\r\n`;
    const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
    const reader = new ResponseReader((into) => {
      into.set(bytes);
      return Promise.resolve(bytes.length);
    }, { maxBodyBytes: 1024 });
    const { response } = await reader.response("GET");
    const expected = new Response(null, { status, statusText: reason });
    assertEquals(
      [response.status, response.statusText, response.ok, response instanceof Response],
      [expected.status, expected.statusText, expected.ok, true],
    );
    // What a copy and the inspection of the response say too.
    assertEquals([response.clone().status, response.clone().ok], [status, expected.ok]);
    assertEquals(Deno.inspect(response).includes(`status: ${status}`), true);
  }
});
