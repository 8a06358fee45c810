/**
 * Fuzzing the reading of HTTP/1.1 responses (`http1_parser.ts`) with random valid
 * responses and mutated ones (`http1_responses.ts`), split into reads at random places:
 * every valid one reads as built, and any bytes at all end in a response or one error
 * line — never a hang, never an error from inside `Response` or `Headers`, never a buffer
 * sized by what a server only declared.
 *
 *     KOPF_FUZZ_RUNS=20000 deno test -A tests/platform/http1_parser_fuzz_test.ts
 */
import fc from "fast-check";
import { assert, assertEquals } from "../assert.ts";
import {
  ConnectionLost,
  type ReadResponse,
  ResponseReader,
  type StreamedResponse,
} from "../../src/platform/http1_parser.ts";
import { fuzzSettings, partsOf, type ResponseCase, responseCases } from "./http1_responses.ts";

/** The body cap of the fuzzed reader: large enough for every valid case. */
const MAX_BODY = 64 * 1024;

/** Read the case's response from its parts, then the end of the stream. */
function readCase(c: ResponseCase): Promise<ReadResponse> {
  return readerOf(c).response("PATCH");
}

/** A reader of the case's parts, then of the end of the stream. */
function readerOf(c: ResponseCase): ResponseReader {
  const parts = partsOf(c);
  return new ResponseReader((into) => {
    const part = parts.shift();
    if (part === undefined) return Promise.resolve(null);
    const count = Math.min(part.length, into.length);
    into.set(part.subarray(0, count));
    if (count < part.length) parts.unshift(part.subarray(count));
    return Promise.resolve(count);
  }, { maxBodyBytes: MAX_BODY });
}

/**
 * Read the case's response as a watch's is read: a successful one's body in parts as they
 * come (each decoded before the next read, as they are lent), any other whole.
 */
async function streamCase(
  c: ResponseCase,
): Promise<{ status: number; statusText: string; headers: [string, string][]; text: string }> {
  const reader = readerOf(c);
  const answer: ReadResponse | StreamedResponse = await reader.streamed("GET");
  if ("response" in answer) {
    const { response } = answer;
    const { status, statusText } = response;
    return { status, statusText, headers: [...response.headers], text: await response.text() };
  }
  const { head, framing } = answer;
  const decoder = new TextDecoder();
  let text = "";
  for (let part = await reader.part(framing); part; part = await reader.part(framing)) {
    text += decoder.decode(part, { stream: true });
  }
  text += decoder.decode();
  const headers = [
    ...new Headers(Array.from({ length: head.fields.length / 2 }, (_, i) => {
      return [head.fields[2 * i], head.fields[2 * i + 1]] as [string, string];
    })),
  ];
  return { status: head.status, statusText: head.statusText, headers, text };
}

/** A case's failure: one line of the parser's own, never a hang, never for a valid case. */
function checkFailure(e: unknown, c: ResponseCase): void {
  assert(e instanceof Error, `not an error: ${e}`);
  assert(
    e.constructor === Error || e instanceof ConnectionLost,
    `an error of the parser's, not ${e.name}: ${e.message}`,
  );
  assert(!e.message.startsWith("no outcome"), "the reading hung");
  assert(!e.message.includes("\n"), `one line: ${e.message}`);
  assert(c.expected === undefined, `a valid response failed: ${e.message}`);
}

/** The promise's outcome, or a failure if it takes longer than `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no outcome within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("fuzz: responses read as built; any bytes end in a response or one error line", async () => {
  const settings = fuzzSettings(400);
  const memory = Deno.memoryUsage();
  let peakExternal = memory.external;
  let peakRss = memory.rss;
  const counts = { valid: 0, responses: 0, errors: 0 };
  const started = performance.now();
  await fc.assert(
    fc.asyncProperty(responseCases, async (c) => {
      const now = Deno.memoryUsage();
      peakExternal = Math.max(peakExternal, now.external);
      peakRss = Math.max(peakRss, now.rss);
      let read: ReadResponse;
      try {
        read = await within(readCase(c), 2000);
      } catch (e) {
        checkFailure(e, c);
        counts.errors++;
        return;
      }
      const response = read.response;
      const headers = [...response.headers]; // never throws
      const text = await response.text();
      assert(response.status >= 200 && response.status <= 599, `status ${response.status}`);
      counts.responses++;
      if (c.expected !== undefined) {
        counts.valid++;
        assertEquals({
          status: response.status,
          statusText: response.statusText,
          headers,
          text,
          keepAlive: read.keepAlive,
        }, c.expected);
      }
    }),
    settings,
  );
  const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
  const summary = `${settings.numRuns} cases (seed ${settings.seed}) in ` +
    `${Math.round(performance.now() - started)} ms: ${counts.responses} responses ` +
    `(${counts.valid} valid ones checked), ${counts.errors} errors; external memory ` +
    `+${mb(peakExternal - memory.external)} MB at most, RSS +${mb(peakRss - memory.rss)} MB`;
  if (Deno.env.get("KOPF_FUZZ_RUNS") !== undefined) console.log(summary);
  assert(peakExternal - memory.external < 64 * 1024 * 1024, summary);
  assert(peakRss - memory.rss < 512 * 1024 * 1024, summary);
});

Deno.test("fuzz: bodies read in parts as they come read as built; any bytes end in one error line", async () => {
  const settings = fuzzSettings(400);
  const counts = { valid: 0, errors: 0 };
  await fc.assert(
    fc.asyncProperty(responseCases, async (c) => {
      let read: Awaited<ReturnType<typeof streamCase>>;
      try {
        read = await within(streamCase(c), 2000);
      } catch (e) {
        checkFailure(e, c);
        counts.errors++;
        return;
      }
      if (c.expected === undefined) return;
      counts.valid++;
      const { keepAlive: _, ...expected } = c.expected;
      assertEquals(read, expected);
    }),
    settings,
  );
  assert(counts.valid > 0 && counts.errors > 0, JSON.stringify(counts));
});
