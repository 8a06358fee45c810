/**
 * Fuzzing the HTTP/1.1 agent end to end over loopback: a server answers each write with a
 * random valid or mutated response (`http1_responses.ts`), written in parts at random
 * places, then closes the connection or holds it open. Every valid response reads as built
 * (on connections kept from one to the next); any answer at all ends, within the agent's
 * own timeouts, in a response or a network error saying what went wrong — never a hang,
 * never a crash, never memory sized by what a server declared.
 *
 *     KOPF_FUZZ_RUNS=20000 deno test -A tests/platform/http1_agent_fuzz_test.ts  # 2,000 here
 */
import fc from "fast-check";
import { assert, assertEquals } from "../assert.ts";
import { Http1Agent } from "../../src/platform/http1_agent.ts";
import { fuzzSettings, partsOf, type ResponseCase, responseCases } from "./http1_responses.ts";
import { closeQuietly } from "./http1_servers.ts";

const decoder = new TextDecoder();
/** The agent's bounds here: short timeouts, so that held answers end soon. */
const OPTIONS = { readTimeout: 0.05, responseTimeout: 0.5, maxBodyBytes: 64 * 1024 };

/** A server answering `POST /case/<n>` with case n; `done(n)` once it wrote all it would. */
function caseServer(cases: Map<number, { c: ResponseCase; close: boolean }>) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const endings = new Map<number, PromiseWithResolvers<void>>();
  const ending = (n: number) => {
    let known = endings.get(n);
    if (known === undefined) endings.set(n, known = Promise.withResolvers<void>());
    return known;
  };
  const open = new Set<Deno.Conn>();
  const serving: Promise<void>[] = [];
  const accepting = (async () => {
    for await (const conn of listener) {
      open.add(conn);
      serving.push(serve(conn).finally(() => open.delete(conn)));
    }
  })();
  async function serve(conn: Deno.Conn): Promise<void> {
    const chunk = new Uint8Array(4096);
    let text = "";
    try {
      for (;;) {
        const end = text.indexOf("\r\n\r\n");
        if (end < 0) {
          const n = await conn.read(chunk).catch(() => null);
          if (n === null) return;
          text += decoder.decode(chunk.subarray(0, n));
          continue;
        }
        const length = Number(/content-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
        if (text.length < end + 4 + length) {
          const n = await conn.read(chunk).catch(() => null);
          if (n === null) return;
          text += decoder.decode(chunk.subarray(0, n));
          continue;
        }
        const n = Number(/^POST \/case\/(\d+) /.exec(text)?.[1]);
        text = text.slice(end + 4 + length);
        const { c, close } = cases.get(n)!;
        try {
          for (const [i, part] of partsOf(c).entries()) {
            // Apart, so that they come in separate reads.
            if (i > 0) await new Promise((resolve) => setTimeout(resolve, 0));
            for (let at = 0; at < part.length;) at += await conn.write(part.subarray(at));
          }
        } catch {
          return; // the client went
        } finally {
          ending(n).resolve();
        }
        if (close) return;
      }
    } finally {
      closeQuietly(conn);
    }
  }
  return {
    url: `http://127.0.0.1:${listener.addr.port}`,
    done: (n: number) => ending(n).promise,
    async close() {
      listener.close();
      for (const conn of open) closeQuietly(conn);
      await accepting.catch(() => {});
      await Promise.allSettled(serving);
    },
  };
}

Deno.test("fuzz: the agent reads valid answers as built, and ends every other one", async () => {
  const settings = fuzzSettings(400);
  const numRuns = Math.max(20, Math.ceil(settings.numRuns / 10));
  const cases = new Map<number, { c: ResponseCase; close: boolean }>();
  const server = caseServer(cases);
  // Valid answers share one agent and its kept connections; each mutated one gets an agent
  // of its own, so that what it leaves on a connection never meets another case.
  const shared = new Http1Agent(OPTIONS);
  const memory = Deno.memoryUsage();
  let peakExternal = memory.external;
  let peakRss = memory.rss;
  const counts = { valid: 0, responses: 0, errors: 0, timeouts: 0 };
  const started = performance.now();
  let next = 0;
  try {
    await fc.assert(
      fc.asyncProperty(responseCases, async (c) => {
        const n = next++;
        const valid = c.expected !== undefined;
        // A valid answer that keeps its connection is held: the next one may reuse it.
        cases.set(n, { c, close: valid ? !c.expected!.keepAlive : c.close });
        const agent = valid ? shared : new Http1Agent(OPTIONS);
        let timer: ReturnType<typeof setTimeout> | undefined;
        try {
          const sent = agent.fetch(`${server.url}/case/${n}`, { method: "POST", body: "{}" })!;
          const outcome = await Promise.race([
            sent.then(async (response) => ({ response, text: await response.text() })),
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => reject(new Error("no outcome within 5 s")), 5000);
            }),
          ]).catch((e) => e);
          if (outcome instanceof Error) {
            assert(outcome instanceof TypeError, `a network error, not ${outcome}`);
            const cause = outcome.cause;
            assert(
              cause instanceof Error && !(cause instanceof TypeError) &&
                !(cause instanceof RangeError),
              `a cause of the agent's, not ${cause}`,
            );
            assert(!outcome.message.includes("\n"), `one line: ${outcome.message}`);
            assert(!valid, `a valid answer failed: ${outcome.message}`);
            counts.errors++;
            if (cause.name === "ReadTimeoutError") counts.timeouts++;
          } else {
            counts.responses++;
            const { response, text } = outcome as { response: Response; text: string };
            const headers = [...response.headers];
            if (valid) {
              counts.valid++;
              const { keepAlive: _, ...expected } = c.expected!;
              assertEquals({
                status: response.status,
                statusText: response.statusText,
                headers,
                text,
              }, expected);
            }
          }
        } finally {
          clearTimeout(timer);
          if (agent !== shared) agent.close();
          if (cases.get(n)!.close || agent !== shared) await server.done(n);
          cases.delete(n);
          const now = Deno.memoryUsage();
          peakExternal = Math.max(peakExternal, now.external);
          peakRss = Math.max(peakRss, now.rss);
        }
      }),
      { numRuns, seed: settings.seed },
    );
  } finally {
    shared.close();
    await server.close();
  }
  const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
  const summary = `${numRuns} cases over loopback (seed ${settings.seed}) in ` +
    `${Math.round(performance.now() - started)} ms: ${counts.responses} responses ` +
    `(${counts.valid} valid ones checked), ${counts.errors} errors ` +
    `(${counts.timeouts} timeouts); external memory +${mb(peakExternal - memory.external)} MB ` +
    `at most, RSS +${mb(peakRss - memory.rss)} MB`;
  if (Deno.env.get("KOPF_FUZZ_RUNS") !== undefined) console.log(summary);
  assert(peakExternal - memory.external < 64 * 1024 * 1024, summary);
  assert(peakRss - memory.rss < 512 * 1024 * 1024, summary);
});
