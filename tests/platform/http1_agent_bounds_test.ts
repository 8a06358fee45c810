/**
 * How the HTTP/1.1 agent stays within bounds whatever a server sends: header bytes beyond
 * ASCII read as `fetch` reads them, status lines checked strictly, timeouts of its own
 * (without progress, and in all), caps on interim answers, heads, trailers and bodies, and
 * buffers that grow only with the bytes received.
 */
import {
  assert,
  assertEquals,
  assertMatch,
  assertRejects,
  assertSettlesWithin,
} from "../assert.ts";
import { Http1Agent } from "../../src/platform/http1_agent.ts";
import { describeNetworkError } from "../../src/platform/http_client.ts";
import { ok, paced, patch, withScriptedServer } from "./http1_servers.ts";

const encoder = new TextEncoder();

/** No parts: the server holds the connection until the promise settles (`then` called first). */
// deno-lint-ignore require-yield -- it has no parts: it only holds the connection
async function* until(promise: Promise<void>, then?: () => void): AsyncGenerator<string> {
  then?.();
  await promise;
}

/** The request's error, which must come within `seconds`. */
function failure(sent: Promise<Response>, seconds = 5): Promise<TypeError> {
  return assertSettlesWithin(
    assertRejects(() => sent, TypeError),
    seconds,
    "the failure of the request",
  );
}

Deno.test("header and status bytes beyond ASCII read as fetch reads them, each byte a character", async () => {
  const answer = new Uint8Array([
    ...encoder.encode("HTTP/1.1 503 Sérvice ✓ Unavailable\r\n"),
    ...encoder.encode('warning: 299 - "naïve ✓ 日本"\r\nretry-after: 3\r\n'),
    0x78,
    0x2d,
    0x6f,
    0x64,
    0x64,
    0x3a,
    0x20,
    0x80,
    0x9f,
    0xff,
    0x0d,
    0x0a, // "x-odd: " 80 9f ff
    ...encoder.encode("content-length: 2\r\n\r\n{}"),
  ]);
  await withScriptedServer(() => ({ bytes: answer }), async (url) => {
    const agent = new Http1Agent();
    try {
      const response = await patch(agent, `${url}/`);
      const expected = await fetch(`${url}/`, { method: "GET" });
      await expected.text();
      assertEquals(response.status, 503);
      assertEquals(response.headers.get("retry-after"), "3");
      // (fetch says the status's usual reason instead of the server's; the agent the server's.)
      assertEquals(response.statusText, "S\xc3\xa9rvice \xe2\x9c\x93 Unavailable");
      assertEquals([...response.headers], [...expected.headers]);
      assertEquals(response.headers.get("x-odd"), "\x80\x9f\xff");
      assertEquals(await response.text(), "{}");
    } finally {
      agent.close();
    }
  });
});

Deno.test("status lines: three digits within 100–599; below 100 is no interim answer", async () => {
  const answers = [
    "HTTP/1.1 099 Odd\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}",
    "HTTP/1.1 000 Zero\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}",
    "HTTP/1.1 600 Beyond\r\ncontent-length: 0\r\n\r\n",
    "HTTP/1.1 20 OK\r\ncontent-length: 0\r\n\r\n",
    "HTTP/1.1 2000 OK\r\ncontent-length: 0\r\n\r\n",
    "HTTP/1.1 200 O\x01K\r\ncontent-length: 0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nx-bad: a\x00b\r\ncontent-length: 0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nx-bad: a\nb\r\ncontent-length: 0\r\n\r\n",
  ];
  await withScriptedServer((_r, i) => ({ bytes: answers[i], close: true }), async (url) => {
    const agent = new Http1Agent();
    try {
      const messages = [];
      for (let i = 0; i < answers.length; i++) {
        const error = await failure(patch(agent, `${url}/${i}`));
        messages.push(error.message.replace(/^.*\): /, ""));
      }
      assertEquals(messages, [
        'malformed status line "HTTP/1.1 099 Odd": the status must be within 100–599',
        'malformed status line "HTTP/1.1 000 Zero": the status must be within 100–599',
        'malformed status line "HTTP/1.1 600 Beyond": the status must be within 100–599',
        'malformed status line "HTTP/1.1 20 OK"',
        'malformed status line "HTTP/1.1 2000 OK"',
        'malformed status line "HTTP/1.1 200 O\\u0001K"',
        'malformed response header "x-bad: a\\u0000b"',
        'malformed response header "x-bad: a\\nb"',
      ]);
    } finally {
      agent.close();
    }
  });
});

Deno.test("interim answers without end fail at their cap", async () => {
  const interim = "HTTP/1.1 100 Continue\r\n\r\n";
  await withScriptedServer(
    () => ({ bytes: interim, parts: paced(interim.repeat(10), 0, 10_000) }),
    async (url) => {
      const agent = new Http1Agent();
      try {
        const error = await failure(patch(agent, `${url}/`));
        assertMatch(error.message, /more than 10 interim \(1xx\) answers before the response$/);
      } finally {
        agent.close();
      }
    },
  );
});

Deno.test("trailers without end fail at their cap", async () => {
  await withScriptedServer(() => ({
    bytes: "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n",
    parts: paced("x-trailer: more\r\n".repeat(1000), 0, 10_000),
  }), async (url) => {
    const agent = new Http1Agent();
    try {
      const error = await failure(patch(agent, `${url}/`));
      assertMatch(error.message, /the trailers of the response are larger than 262144 bytes$/);
    } finally {
      agent.close();
    }
  });
});

Deno.test("a response that stops coming fails after the read timeout, as a timeout", async () => {
  const held = Promise.withResolvers<void>();
  await withScriptedServer(() => ({
    bytes: "HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{",
    parts: until(held.promise), // then silence
  }), async (url) => {
    const agent = new Http1Agent({ readTimeout: 0.3 });
    try {
      const started = performance.now();
      const error = await failure(patch(agent, `${url}/`));
      const took = (performance.now() - started) / 1000;
      assertMatch(error.message, /the response stopped coming for 0\.3 s \(readTimeout\)$/);
      assertEquals(describeNetworkError(error).kind, "timeout");
      assert(took >= 0.3 && took < 2, `timed out after ${took} s`);
    } finally {
      held.resolve();
      agent.close();
    }
  });
});

Deno.test("a server trickling its answer a byte at a time fails at the response timeout", async () => {
  // A byte every 50 ms: never silent for the read timeout, never done.
  await withScriptedServer(() => ({
    bytes: "HTTP/1.1 200 OK\r\ncontent-length: 1000\r\n\r\n",
    parts: paced(" ", 50, 1000),
  }), async (url) => {
    const agent = new Http1Agent({ readTimeout: 0.3, responseTimeout: 0.8 });
    try {
      const started = performance.now();
      const error = await failure(patch(agent, `${url}/`));
      const took = (performance.now() - started) / 1000;
      assertMatch(error.message, /the response did not end within 0\.8 s \(responseTimeout\)$/);
      assertEquals(describeNetworkError(error).kind, "timeout");
      assert(took >= 0.8 && took < 3, `timed out after ${took} s`);
    } finally {
      agent.close();
    }
  });
});

Deno.test("a huge declared length fails at once, with nothing allocated for it", async () => {
  const held = Promise.withResolvers<void>();
  await withScriptedServer(() => ({
    bytes: "HTTP/1.1 200 OK\r\ncontent-length: 4000000000\r\n\r\nsmall",
    parts: until(held.promise), // the connection stays open
  }), async (url) => {
    const agent = new Http1Agent();
    try {
      const before = Deno.memoryUsage().external;
      const error = await failure(patch(agent, `${url}/`));
      const grown = Deno.memoryUsage().external - before;
      assertMatch(
        error.message,
        /the response body declares 4000000000 bytes, more than the 67108864 bytes allowed \(the maxBodyBytes setting\)$/,
      );
      assert(grown < 16 * 1024 * 1024, `${grown} bytes allocated`);
    } finally {
      held.resolve();
      agent.close();
    }
  });
});

Deno.test("a body declared under the cap gets a buffer only as large as what came", async () => {
  const sent = Promise.withResolvers<void>();
  const end = Promise.withResolvers<void>();
  await withScriptedServer(() => ({
    bytes: "HTTP/1.1 200 OK\r\ncontent-length: 60000000\r\n\r\n12345",
    parts: until(end.promise, sent.resolve),
    close: true,
  }), async (url) => {
    const agent = new Http1Agent();
    try {
      const before = Deno.memoryUsage().external;
      const request = patch(agent, `${url}/`);
      await sent.promise;
      // No event tells that the agent has read what came: a moment for it to.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const grown = Deno.memoryUsage().external - before;
      end.resolve(); // the server closes the connection
      const error = await failure(request);
      assertMatch(error.message, /the connection closed in the response body$/);
      assert(grown < 8 * 1024 * 1024, `${grown} bytes allocated for 5 received`);
    } finally {
      end.resolve();
      agent.close();
    }
  });
});

Deno.test("bodies beyond the cap fail: by length, in chunks, until the connection ends", async () => {
  const large = "x".repeat(1024 * 1024 + 1);
  const answers = [
    { ...ok(large), close: true },
    {
      bytes:
        `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n80000\r\n${"x".repeat(0x80000)}` +
        `\r\n80000\r\n${"x".repeat(0x80000)}\r\n1\r\nx\r\n0\r\n\r\n`,
      close: true,
    },
    {
      bytes: "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nfffffffffff\r\nxx",
      close: true,
    },
    { bytes: `HTTP/1.0 200 OK\r\n\r\n${large}`, close: true },
  ];
  await withScriptedServer((_r, i) => answers[i] ?? ok("x".repeat(1024 * 1024)), async (url) => {
    const agent = new Http1Agent({ maxBodyBytes: 1024 * 1024 });
    try {
      const messages = [];
      for (let i = 0; i < answers.length; i++) {
        const error = await failure(patch(agent, `${url}/${i}`));
        messages.push(error.message.replace(/^.*\): /, ""));
      }
      const allowed = "the 1048576 bytes allowed (the maxBodyBytes setting)";
      assertEquals(messages, [
        `the response body declares 1048577 bytes, more than ${allowed}`,
        `the response body is larger than ${allowed}`,
        `the response body is larger than ${allowed}`,
        `the response body is larger than ${allowed}`,
      ]);
      // At the cap exactly: read.
      assertEquals((await (await patch(agent, `${url}/at-cap`)).text()).length, 1024 * 1024);
    } finally {
      agent.close();
    }
  });
});
