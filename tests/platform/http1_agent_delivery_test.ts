/**
 * What the HTTP/1.1 agent tells of a failed write's delivery (`request_delivery.ts`): it
 * never sends a request twice on its own, and marks each failure with whether no byte of
 * the request left (`unsent`) and whether it failed on a kept connection before any answer
 * (`staleConnection`), so that the API client can decide about sending it again.
 */
import {
  assert,
  assertEquals,
  assertMatch,
  assertRejects,
  assertSettlesWithin,
} from "../assert.ts";
import { Http1Agent } from "../../src/platform/http1_agent.ts";
import { deliveryOf } from "../../src/platform/request_delivery.ts";
import { closeQuietly, ok, patch, withScriptedServer, withSilentServer } from "./http1_servers.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const MAYBE_SENT = { unsent: false, staleConnection: false };
const STALE = { unsent: false, staleConnection: true };
const UNSENT = { unsent: true, staleConnection: false };

Deno.test("a write on a kept connection lost before any answer is sent once, and marked stale", async () => {
  // The second request on each connection meets its end, as when a load balancer dropped the
  // idle connection unannounced: the server (or the proxy) may well have acted on it.
  const served = new Map<number, number>();
  await withScriptedServer((request) => {
    const count = (served.get(request.connection) ?? 0) + 1;
    served.set(request.connection, count);
    const fails = count > 1 || request.head.startsWith("POST /fail");
    return fails ? { bytes: "", close: true } : ok(`{"on":${request.connection}}`);
  }, async (url, received, connections) => {
    const agent = new Http1Agent();
    try {
      // Two connections kept: both idle since about the same time.
      await Promise.all([1, 2].map(async (i) => (await patch(agent, `${url}/${i}`)).text()));
      assertEquals([connections(), agent.kept], [2, 2]);
      const error = await assertRejects(
        () => patch(agent, `${url}/create`, "{}", undefined, "POST"),
        TypeError,
      );
      assertMatch(error.message, /the connection closed before the response/);
      assertEquals(deliveryOf(error), STALE);
      assertEquals(received.map((r) => r.head.split(" ").slice(0, 2).join(" ")).slice(2), [
        "POST /create",
      ], "the POST reached the server once, and was not sent again");
      assertEquals(agent.kept, 0, "the other connection kept as long was closed too");
      // A new connection lost so: maybe sent, and not a stale connection's doing.
      const fresh = await assertRejects(
        () => patch(agent, `${url}/fail`, "{}", undefined, "POST"),
        TypeError,
      );
      assertEquals(deliveryOf(fresh), MAYBE_SENT);
      assertEquals(received.length, 4);
      assertEquals(received[3].connection, 2, "a new connection");
    } finally {
      agent.close();
    }
  });
});

Deno.test("a large write reset part-way on a kept connection is maybe sent, and not sent again", async () => {
  // A raw server: it answers the first request of each connection; at the head of a second
  // one it closes with the body unread, which resets the connection under the write.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const heads: string[] = [];
  const serving: Promise<void>[] = [];
  const accepting = (async () => {
    for await (const conn of listener) serving.push(serveOnce(conn, heads));
  })();
  const agent = new Http1Agent();
  try {
    const url = `http://127.0.0.1:${listener.addr.port}`;
    assertEquals(await (await patch(agent, `${url}/small`)).text(), "{}");
    const large = JSON.stringify({ data: "x".repeat(32 * 1024 * 1024) });
    const error = await assertRejects(() => patch(agent, `${url}/large`, large), TypeError);
    assertEquals(deliveryOf(error), STALE);
    assertEquals(heads.map((h) => h.split(" ")[1]), ["/small", "/large"], "sent once");
  } finally {
    agent.close();
    listener.close();
    await accepting.catch(() => {});
    await Promise.allSettled(serving);
  }
});

/** Answer the first request of the connection; close at the head of the next. */
async function serveOnce(conn: Deno.Conn, heads: string[]): Promise<void> {
  let text = "";
  const chunk = new Uint8Array(65536);
  try {
    for (let answered = 0; answered < 2;) {
      const n = await conn.read(chunk).catch(() => null);
      if (n === null) return;
      text += decoder.decode(chunk.subarray(0, n));
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) continue;
      heads.push(text.slice(0, end));
      if (answered++ === 1) return; // the body stays unread
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? 0);
      if (text.length < end + 4 + length) continue; // (small bodies only: one read)
      text = text.slice(end + 4 + length);
      await conn.write(encoder.encode("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}"));
    }
  } finally {
    closeQuietly(conn);
  }
}

Deno.test("an abort after the request was written: maybe sent; a reason shared with an unsent one too", async () => {
  await withSilentServer(async (url, arrived) => {
    const agent = new Http1Agent();
    try {
      const waiting = new AbortController();
      const sent = patch(agent, `${url}/`, "{}", waiting.signal);
      await arrived;
      const reason = new Error("stop now");
      waiting.abort(reason);
      assertEquals(await sent.catch((e) => e), reason);
      assertEquals(deliveryOf(reason), MAYBE_SENT);
      // The same reason then ends a write never sent: it still may have been sent (the
      // first one), so it says so.
      const early = new AbortController();
      early.abort(reason);
      assertEquals(await patch(agent, `${url}/`, "{}", early.signal).catch((e) => e), reason);
      assertEquals(deliveryOf(reason), MAYBE_SENT);
      // A reason of its own, before sending: unsent.
      const own = new AbortController();
      own.abort(new Error("not now"));
      const error = await patch(agent, `${url}/`, "{}", own.signal).catch((e) => e);
      assert(error instanceof Error && error.message === "not now");
      assertEquals(deliveryOf(error), UNSENT);
      // A reason that is no object cannot be marked: nothing is known, maybe sent.
      const plain = new AbortController();
      plain.abort("just a string");
      assertEquals(
        await patch(agent, `${url}/`, "{}", plain.signal).catch((e) => e),
        "just a string",
      );
      assertEquals(deliveryOf("just a string"), MAYBE_SENT);
    } finally {
      agent.close();
    }
  });
});

Deno.test("a kept connection that stays silent after the request times out, marked stale", async () => {
  const never = Promise.withResolvers<void>();
  await withScriptedServer(
    (_request, index) => index === 0 ? ok("{}") : { ...ok("{}"), until: never.promise },
    async (url, received) => {
      const agent = new Http1Agent({ readTimeout: 0.3 });
      try {
        assertEquals(await (await patch(agent, `${url}/1`)).text(), "{}");
        const started = performance.now();
        const error = await assertSettlesWithin(
          assertRejects(() => patch(agent, `${url}/2`), TypeError),
          5,
          "the timeout",
        );
        const took = (performance.now() - started) / 1000;
        assertMatch(error.message, /no answer came for 0\.3 s \(readTimeout\)$/);
        assert(took >= 0.3 && took < 2, `timed out after ${took} s`);
        assertEquals(deliveryOf(error), STALE);
        assertEquals(received.length, 2);
      } finally {
        never.resolve();
        agent.close();
      }
    },
  );
});
