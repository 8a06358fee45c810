/**
 * The HTTP/1.1 transport of writes: what it sends and how it reads every shape of response
 * (lengths, chunks, interim answers, bodies ending with the connection), how it keeps,
 * reuses and drops connections, and how it fails (aborts, timeouts, certificates, refusals,
 * malformed answers) — in the same errors as `fetch`, so the API client's retry decisions
 * do not change. Requests it does not take are left to `fetch`, and so is everything when
 * a proxy is configured.
 */
import {
  assert,
  assertEquals,
  assertEventually,
  assertMatch,
  assertRejects,
  assertSettlesWithin,
} from "../assert.ts";
import { Http1Agent } from "../../src/platform/http1_agent.ts";
import { chunkReaderOf } from "../../src/platform/chunk_readers.ts";
import { PROXY_ENV_VARIABLES } from "../../src/platform/proxy_environment.ts";
import { runDeno } from "./commands.ts";
import { ok, patch, withScriptedServer, withSilentServer } from "./http1_servers.ts";
import { ConnectTimeoutError } from "../../src/platform/connect_timeout.ts";
import { createHttpClient, describeNetworkError } from "../../src/platform/http_client.ts";
import { deliveryOf } from "../../src/platform/request_delivery.ts";
import {
  generateCertificateAuthority,
  issueServerCertificate,
} from "../../src/platform/certificates.ts";

const encoder = new TextEncoder();

/** What a write whose connection was never made reports: not sent at all. */
const UNSENT = { unsent: true, staleConnection: false };

Deno.test("writes go over one kept connection, and read as fetch would read them", async () => {
  const ports = new Set<number>();
  const seen: { method: string; type: string | null; host: string | null; body: string }[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request, info) => {
      ports.add(info.remoteAddr.port);
      seen.push({
        method: request.method,
        type: request.headers.get("content-type"),
        host: request.headers.get("host"),
        body: await request.text(),
      });
      return new Response(JSON.stringify({ said: "héllo ✓" }), {
        status: 201,
        statusText: "Created",
        headers: { "content-type": "application/json", "x-kopf": "one", "retry-after": "3" },
      });
    },
  );
  const agent = new Http1Agent();
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    for (let i = 0; i < 5; i++) {
      const response = await patch(
        agent,
        `${base}/apis/x/v1/things/t${i}?fieldManager=kopf`,
        `{"n":"ü${i}"}`,
      );
      assertEquals(response.status, 201);
      assertEquals(response.statusText, "Created");
      assert(response.ok);
      assertEquals(response.headers.get("x-kopf"), "one");
      assertEquals(response.headers.get("retry-after"), "3");
      assertEquals(await response.json(), { said: "héllo ✓" });
    }
    assertEquals(ports.size, 1, "sequential requests should share one connection");
    assertEquals(seen[4], {
      method: "PATCH",
      type: "application/merge-patch+json",
      host: `127.0.0.1:${server.addr.port}`,
      body: '{"n":"ü4"}',
    });
    // Reads, streams and what fetch must encode are fetch's.
    assertEquals(agent.fetch(`${base}/x`, { method: "HEAD" }), undefined);
    assertEquals(agent.fetch(`${base}/x`, { method: "GET", body: "{}" }), undefined);
    assertEquals(agent.fetch(`${base}/x`, { method: "PATCH", headers: new Headers() }), undefined);
    assertEquals(agent.fetch(`${base}/x`, { method: "PATCH", headers: { a: "é" } }), undefined);
    assertEquals(agent.fetch(`${base}/x y`, { method: "PATCH" }), undefined);
    assertEquals(agent.fetch(`${base}/x#y`, { method: "PATCH" }), undefined);
    assertEquals(agent.fetch(`${base}/x/../y`, { method: "PATCH" }), undefined);
    assertEquals(agent.fetch(`${base}/x|y`, { method: "PATCH" }), undefined);
    assertEquals(agent.fetch(`${base}/x`, { method: "PATCH", body: new Uint8Array(1) }), undefined);
    assertEquals(agent.fetch(`ftp://127.0.0.1/x`, { method: "PATCH" }), undefined);
    assertEquals(agent.fetch(`http://u:p@127.0.0.1/x`, { method: "PATCH" }), undefined);
  } finally {
    agent.close();
    await server.shutdown();
  }
});

Deno.test("a write's answer is read once, as a Response's body is: text, json, bytes, stream, clone", async () => {
  const text = JSON.stringify({ said: "héllo ✓" });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(text, { headers: { "content-type": "application/json" } }),
  );
  const agent = new Http1Agent();
  try {
    const url = `http://127.0.0.1:${server.addr.port}/apis/x/v1/things/t`;
    const first = await patch(agent, url, "{}");
    assert(!first.bodyUsed);
    const copy = first.clone();
    assertEquals(await first.text(), text);
    assert(first.bodyUsed);
    await assertRejects(() => first.text(), TypeError);
    await assertRejects(() => first.arrayBuffer(), TypeError);
    assertEquals(await copy.json(), { said: "héllo ✓" });
    const bytes = await (await patch(agent, url, "{}")).bytes();
    assertEquals(new TextDecoder().decode(bytes), text);
    const streamed = await patch(agent, url, "{}");
    assertEquals(await new Response(streamed.body).text(), text);
    assert(streamed.body === streamed.body, "one stream, as Deno's own responses have");
    // A request without a body (DELETE) is answered the same way.
    const deleted = await agent.fetch(url, { method: "DELETE" })!;
    assertEquals(await deleted.text(), text);
  } finally {
    agent.close();
    await server.shutdown();
  }
});

Deno.test("concurrent writes open connections as needed and reuse them after", async () => {
  const ports = new Set<number>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request, info) => {
      ports.add(info.remoteAddr.port);
      return new Response(await request.text());
    },
  );
  const agent = new Http1Agent();
  try {
    const url = `http://127.0.0.1:${server.addr.port}/`;
    for (let round = 0; round < 3; round++) {
      const texts = await Promise.all(
        Array.from({ length: 8 }, (_, i) => patch(agent, url, `{"i":${i}}`).then((r) => r.text())),
      );
      assertEquals(texts, Array.from({ length: 8 }, (_, i) => `{"i":${i}}`));
    }
    assert(ports.size <= 8, `8 at a time need at most 8 connections, used ${ports.size}`);
  } finally {
    agent.close();
    await server.shutdown();
  }
});

Deno.test("chunked bodies, interim answers, trailers and multi-byte text split across chunks", async () => {
  const text = JSON.stringify({ name: "ünïcødé ✓ ".repeat(50) });
  const bytes = encoder.encode(text);
  const cut = bytes.indexOf(0xc3) + 1; // inside a two-byte character
  const hex = (n: number) => n.toString(16);
  const chunked = new Uint8Array([
    ...encoder.encode(
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n",
    ),
    ...encoder.encode(`HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${hex(cut)};ext=1\r\n`),
    ...bytes.subarray(0, cut),
    ...encoder.encode(`\r\n${hex(bytes.length - cut).toUpperCase()}\r\n`),
    ...bytes.subarray(cut),
    ...encoder.encode("\r\n0\r\nx-trailer: yes\r\n\r\n"),
  ]);
  await withScriptedServer(() => ({ bytes: chunked }), async (url, received, connections) => {
    const agent = new Http1Agent();
    try {
      assertEquals(await (await patch(agent, `${url}/a`)).text(), text);
      assertEquals(await (await patch(agent, `${url}/b`)).text(), text);
      assertEquals(received.length, 2);
      assertEquals(connections(), 1, "a chunked response keeps the connection");
      assertMatch(received[0].head, /^PATCH \/a HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\n/);
      assertMatch(received[0].head, /\r\ncontent-length: 2$/);
    } finally {
      agent.close();
    }
  });
});

Deno.test("bodies that end with the connection, closing answers, large bodies", async () => {
  const large = "x".repeat(3 * 1024 * 1024 + 7);
  await withScriptedServer((request) => {
    if (request.head.startsWith("PATCH /until-closed")) {
      return { bytes: "HTTP/1.0 200 OK\r\n\r\nthe rest", close: true };
    }
    if (request.head.startsWith("PATCH /closing")) {
      return { ...ok("{}", "connection: close\r\n"), close: true };
    }
    return ok(large);
  }, async (url, _received, connections) => {
    const agent = new Http1Agent();
    try {
      assertEquals(await (await patch(agent, `${url}/until-closed`)).text(), "the rest");
      assertEquals(await (await patch(agent, `${url}/closing`)).text(), "{}");
      assertEquals((await (await patch(agent, `${url}/large`)).text()).length, large.length);
      assertEquals((await (await patch(agent, `${url}/large`)).text()).length, large.length);
      assertEquals(connections(), 3, "closed after the first two; the last two share one");
    } finally {
      agent.close();
    }
  });
});

Deno.test("a kept connection the server lets go is dropped, and the next write opens another", async () => {
  await withScriptedServer(
    (_request) => ({ ...ok("{}"), close: true }), // closes without saying so
    async (url, received, connections, ended) => {
      const agent = new Http1Agent();
      try {
        assertEquals(await (await patch(agent, `${url}/1`)).text(), "{}");
        // The server's end reaches the idle connection, which leaves the pool.
        await assertSettlesWithin(ended(0), 5, "the server's close");
        await assertEventually("the connection left the pool", () => agent.kept === 0, 5);
        assertEquals(await (await patch(agent, `${url}/2`)).text(), "{}");
        assertEquals(received.map((r) => r.connection), [0, 1]);
        assertEquals(connections(), 2);
      } finally {
        agent.close();
      }
    },
  );
});

Deno.test("a connection unused for the idle timeout is closed; the next write opens another", async () => {
  await withScriptedServer(() => ok("{}"), async (url, received, connections, ended) => {
    const agent = new Http1Agent({ idleTimeout: 0.15 });
    try {
      await (await patch(agent, `${url}/1`)).text();
      await (await patch(agent, `${url}/2`)).text();
      assertEquals(connections(), 1, "kept while in use");
      assertEquals(agent.kept, 1);
      // Swept between one and four thirds of the timeout after its last use.
      await assertSettlesWithin(ended(0), 5, "the close of the idle connection");
      await (await patch(agent, `${url}/3`)).text();
      assertEquals(received.map((r) => r.connection), [0, 0, 1]);
    } finally {
      agent.close();
    }
  });
});

Deno.test("malformed answers fail the request like a network error, and the connection closes", async () => {
  const answers = [
    "HTTP/1.1 2OO OK\r\n\r\n",
    "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
    "HTTP/1.1 200 OK\r\ncontent-length: 5, 6\r\n\r\nhello",
    "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
    "HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nshort",
    "HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
    "HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: 0\r\n\r\n",
  ];
  await withScriptedServer((_r, i) => ({ bytes: answers[i], close: true }), async (url) => {
    const agent = new Http1Agent();
    try {
      const messages = [];
      for (let i = 0; i < answers.length; i++) {
        const error = await assertRejects(() => patch(agent, `${url}/${i}`), TypeError);
        assertEquals(describeNetworkError(error).kind, "network");
        messages.push(error.message.replace(/^.*\): /, ""));
      }
      assertEquals(messages, [
        'malformed status line "HTTP/1.1 2OO OK"',
        'malformed response header "no colon here"',
        'malformed Content-Length "5, 6"',
        'malformed chunk size "zz"',
        "the connection closed in the response body",
        'unexpected Transfer-Encoding "gzip, chunked" in the response',
        'unexpected Content-Encoding "gzip" in the response',
      ]);
    } finally {
      agent.close();
    }
  });
});

Deno.test("an abort ends a write waiting for its answer, with the signal's reason", async () => {
  await withSilentServer(async (url, arrived) => {
    const agent = new Http1Agent();
    try {
      const controller = new AbortController();
      const sent = patch(agent, `${url}/`, "{}", controller.signal);
      await arrived;
      const reason = new Error("stop now");
      controller.abort(reason);
      assertEquals(await sent.catch((e) => e), reason);
      // Aborted before sending: at once, without a connection.
      assertEquals(await patch(agent, `${url}/`, "{}", controller.signal).catch((e) => e), reason);
    } finally {
      agent.close();
    }
  });
});

Deno.test("refused connections are network errors; a silent TLS server times out the connect; neither sent the write", async () => {
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = closed.addr.port;
  closed.close();
  const agent = new Http1Agent({ connectTimeout: 0.2 });
  const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of silent) accepted.push(conn); // never answers the handshake
  })();
  try {
    const refused = await assertRejects(() => patch(agent, `http://127.0.0.1:${port}/`), TypeError);
    assertEquals(describeNetworkError(refused).kind, "network");
    assertMatch(refused.message, /refused/i);
    assertEquals(deliveryOf(refused), UNSENT);
    const timedOut = await assertRejects(
      () => patch(agent, `https://127.0.0.1:${silent.addr.port}/`),
      ConnectTimeoutError,
    );
    assertEquals(describeNetworkError(timedOut).kind, "timeout");
    assertEquals(deliveryOf(timedOut), UNSENT);
    // An abort ends the wait for the connection before its timeout, with the reason.
    const controller = new AbortController();
    const reason = new Error("stop connecting");
    const connecting = patch(
      agent,
      `https://127.0.0.1:${silent.addr.port}/`,
      "{}",
      controller.signal,
    );
    controller.abort(reason);
    assertEquals(await connecting.catch((e) => e), reason);
    assertEquals(deliveryOf(reason), UNSENT);
  } finally {
    agent.close();
    silent.close();
    await accepting.catch(() => {});
    for (const conn of accepted) conn.close();
  }
});

Deno.test("TLS: a trusted CA is used; an unknown one is a certificate error", async () => {
  const ca = await generateCertificateAuthority();
  const other = await generateCertificateAuthority();
  const { certPem, keyPem } = await issueServerCertificate(ca, { hostnames: ["127.0.0.1"] });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: certPem, key: keyPem, onListen: () => {} },
    async (request) => new Response(`secure ${await request.text()}`),
  );
  const url = `https://127.0.0.1:${server.addr.port}/`;
  const trusting = new Http1Agent({ caCertificates: [ca.certPem] });
  const doubting = new Http1Agent({ caCertificates: [other.certPem] });
  try {
    assertEquals(await (await patch(trusting, url, "{}")).text(), "secure {}");
    assertEquals(await (await patch(trusting, url, "[]")).text(), "secure []");
    const error = await assertRejects(() => patch(doubting, url), TypeError);
    assertEquals(describeNetworkError(error).kind, "certificate", error.message);
  } finally {
    trusting.close();
    doubting.close();
    await server.shutdown();
  }
});

Deno.test("the HTTP client sends writes and reads itself, and leaves lists' pages to fetch", async () => {
  const agents = new Set<string | null>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    // fetch asks for compression; the agent does not.
    agents.add(`${request.method} ${request.headers.get("accept-encoding")}`);
    return new Response("{}");
  });
  const client = await createHttpClient({ connectTimeout: 5 });
  try {
    const url = `http://127.0.0.1:${server.addr.port}/`;
    await (await client.fetch(url, { method: "PATCH", headers: {}, body: "{}" })).text();
    await (await client.fetch(url, { method: "GET", headers: {} })).text();
    await (await client.fetch(url, { method: "GET", headers: {}, compressed: true })).text();
    // Unless this process has a proxy set: then everything stays with fetch.
    const expected = PROXY_ENV_VARIABLES.some((name) => Deno.env.get(name))
      ? ["PATCH gzip,br", "GET gzip,br"]
      : ["PATCH null", "GET null", "GET gzip,br"];
    assertEquals([...agents], expected);
  } finally {
    await client.close();
    await server.shutdown();
  }
});

/** Run a script in a child Deno with the environment given; its standard output. */
async function runScript(script: string, env: Record<string, string>): Promise<string> {
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    await Deno.writeTextFile(file, script);
    // A program kept running by a connection is killed, and fails the test.
    const { code, stdout, stderr } = await runDeno(["run", "-A", "--no-config", file], {
      env,
      timeout: 20,
    });
    assertEquals(code, 0, `the script failed: ${stderr}`);
    return stdout;
  } finally {
    await Deno.remove(file);
  }
}

const CLIENT_MODULE = new URL("../../src/platform/http_client.ts", import.meta.url).href;

Deno.test("with a proxy configured, writes stay with fetch, which sends them through it", async () => {
  await withScriptedServer(
    () => ({ ...ok('{"via":"proxy"}'), close: true }),
    async (url, received) => {
      const script = `
      import { createHttpClient } from ${JSON.stringify(CLIENT_MODULE)};
      const client = await createHttpClient({});
      const response = await client.fetch("http://api.example.invalid/x", { method: "PATCH", headers: {}, body: "{}" });
      console.log(await response.text());
      await client.close();
    `;
      const output = await runScript(script, { HTTP_PROXY: url, NO_PROXY: "" });
      assertEquals(output.trim(), '{"via":"proxy"}');
      assertMatch(received[0].head, /^PATCH http:\/\/api\.example\.invalid\/x HTTP\/1\.1/);
    },
  );
});

Deno.test("kept connections do not keep a program running", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("{}"),
  );
  try {
    const script = `
      import { createHttpClient } from ${JSON.stringify(CLIENT_MODULE)};
      const client = await createHttpClient({});
      const response = await client.fetch("http://127.0.0.1:${server.addr.port}/", { method: "PATCH", headers: {}, body: "{}" });
      console.log(await response.text());
    `;
    assertEquals((await runScript(script, {})).trim(), "{}");
  } finally {
    await server.shutdown();
  }
});

Deno.test("closing the agent closes its connections and ends writes under way", async () => {
  await withSilentServer(async (url, arrived) => {
    const agent = new Http1Agent();
    const sent = patch(agent, `${url}/`);
    await arrived;
    agent.close();
    assert((await sent.catch((e) => e)) instanceof TypeError, "the write should fail");
    assertEquals(agent.fetch(`${url}/`, { method: "PATCH" }), undefined);
  });
});

Deno.test("a stream broken mid-chunk: its parts, then a failure that every later read repeats", async () => {
  // A watch's chunked answer whose connection ends inside its second chunk.
  const event = '{"type":"ADDED","object":{}}\n';
  const bytes = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n" +
    `transfer-encoding: chunked\r\n\r\n${event.length.toString(16)}\r\n${event}\r\n40\r\n{"ty`;
  await withScriptedServer(() => ({ bytes, close: true }), async (url) => {
    const agent = new Http1Agent();
    try {
      const response = await agent.stream(`${url}/watch`, { method: "GET" })!;
      assertEquals(response.status, 200);
      const reader = chunkReaderOf(response.body!);
      let text = "";
      const decoder = new TextDecoder();
      let failure: unknown;
      try {
        for (let part = await reader.read(); part; part = await reader.read()) {
          text += decoder.decode(part, { stream: true });
        }
      } catch (e) {
        failure = e;
      }
      assertEquals(text, `${event}{"ty`);
      assert(failure instanceof TypeError, `a failure, not a clean end: ${failure}`);
      assertMatch(failure.message, /closed in the response body/);
      await assertRejects(() => reader.read(), TypeError, "closed in the response body");
    } finally {
      agent.close();
    }
  });
});

Deno.test("a write's body goes as its UTF-8 bytes, its length theirs: ASCII, accented, astral", async () => {
  const received: { length: string | null; text: string }[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      received.push({ length: request.headers.get("content-length"), text: await request.text() });
      return new Response("{}", { headers: { "content-type": "application/json" } });
    },
  );
  const agent = new Http1Agent();
  try {
    const url = `http://127.0.0.1:${server.addr.port}/apis/x/v1/things/t`;
    const bodies = [
      JSON.stringify({ spec: { said: "hello" } }),
      JSON.stringify({ spec: { said: "h\u00e9llo" } }),
      JSON.stringify({ spec: { said: "\u{1f600}".repeat(3) } }),
      JSON.stringify({ spec: { said: `${"x".repeat(1000)}\u00e9` } }), // the last character
    ];
    for (const body of bodies) await (await patch(agent, url, body)).text();
    assertEquals(
      received,
      bodies.map((text) => ({ length: String(new TextEncoder().encode(text).length), text })),
    );
  } finally {
    agent.close();
    await server.shutdown();
  }
});
