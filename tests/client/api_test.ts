/**
 * The transport: retries along the error backoffs, Retry-After, typed errors carrying
 * the server's Status, timeouts, connection failures, and authorization headers.
 */
import { configure, type LogRecord, reset } from "@logtape/logtape";
import {
  assert,
  assertEquals,
  assertRejects,
  assertSettlesWithin,
  assertStringIncludes,
} from "../assert.ts";
import { ApiClient, parseRetryAfter } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import {
  APIConflictError,
  APIError,
  APINotFoundError,
  APIServerError,
  APITooManyRequestsError,
  APIUnprocessableError,
} from "../../src/client/api_errors.ts";
import {
  APIConnectionError,
  APIResponseError,
  APITimeoutError,
} from "../../src/client/connection_errors.ts";
import type { ConnectionInfo } from "../../src/structs/credentials.ts";
import { UsageError } from "../../src/structs/errors.ts";
import { json, ScriptedServer, status } from "./scripted_server.ts";

function clientFor(info: ConnectionInfo, errorBackoffs: number[] = [], requestTimeout?: number) {
  const vault = new Vault({ relogin: () => Promise.resolve({ test: info }) });
  return new ApiClient(vault, { networking: { errorBackoffs, requestTimeout } });
}

Deno.test("5xx responses are retried along the backoffs until one succeeds", async () => {
  let calls = 0;
  await using server = ScriptedServer.start(() =>
    ++calls < 3 ? status(503, "ServiceUnavailable", "warming up") : json({ ok: calls })
  );
  await using api = clientFor(server.info(), [0.01, 0.01, 0.01]);
  assertEquals(await api.request("GET", "/api"), { ok: 3 });
  assertEquals(server.requests.length, 3);
});

Deno.test("when the backoffs run out, the last 5xx escalates with its Status", async () => {
  await using server = ScriptedServer.start(() => status(500, "InternalError", "etcd is down"));
  await using api = clientFor(server.info(), [0.01, 0.01]);
  const error = await assertRejects(() => api.request("GET", "/api"), APIServerError);
  assertEquals(server.requests.length, 3); // one attempt more than backoffs
  assertEquals(error.code, 500);
  assertEquals(error.reason, "InternalError");
  assertEquals(error.statusMessage, "etcd is down");
  assertEquals(error.message, "GET /api failed with HTTP 500 (InternalError: etcd is down).");
});

Deno.test("429 waits for Retry-After instead of the backoff", async () => {
  let calls = 0;
  await using server = ScriptedServer.start(() =>
    calls++ === 0
      ? json({ kind: "Status", code: 429, reason: "TooManyRequests" }, 429, { "retry-after": "1" })
      : json({ ok: true })
  );
  await using api = clientFor(server.info(), [0]);
  const started = performance.now();
  assertEquals(await api.request("GET", "/api"), { ok: true });
  const elapsed = performance.now() - started;
  assert(elapsed >= 950, `Retry-After: 1 must be honoured, waited only ${elapsed} ms`);
});

Deno.test("429 after all retries is a typed error", async () => {
  await using server = ScriptedServer.start(() => status(429, "TooManyRequests", "slow down"));
  await using api = clientFor(server.info(), []);
  await assertRejects(() => api.request("GET", "/api"), APITooManyRequestsError);
});

Deno.test("4xx fail at once with typed errors carrying reason, message and details", async () => {
  await using server = ScriptedServer.start((request) => {
    if (request.path.endsWith("/missing")) {
      return json({
        kind: "Status",
        status: "Failure",
        code: 404,
        reason: "NotFound",
        message: 'kopfexamples.kopf.dev "missing" not found',
        details: { name: "missing", group: "kopf.dev", kind: "kopfexamples" },
      }, 404);
    }
    if (request.path.endsWith("/conflict")) return status(409, "Conflict", "changed meanwhile");
    return status(422, "Invalid", "spec.x: Invalid value");
  });
  await using api = clientFor(server.info(), [0.01, 0.01]);
  const missing = await assertRejects(() => api.request("GET", "/x/missing"), APINotFoundError);
  assertEquals(missing.details, { name: "missing", group: "kopf.dev", kind: "kopfexamples" });
  assertEquals(missing.reason, "NotFound");
  assert(missing instanceof APIError);
  await assertRejects(() => api.request("PUT", "/x/conflict", { body: {} }), APIConflictError);
  await assertRejects(() => api.request("POST", "/x/bad", { body: {} }), APIUnprocessableError);
  assertEquals(server.requests.length, 3); // never retried
});

Deno.test("an error response that is not a Status keeps the status line and a text snippet", async () => {
  await using server = ScriptedServer.start(() =>
    new Response("<html><body>Bad gateway</body></html>", { status: 404, statusText: "Not Found" })
  );
  await using api = clientFor(server.info());
  const error = await assertRejects(() => api.request("GET", "/x"), APINotFoundError);
  assertEquals(error.status.reason, "Not Found");
  assertStringIncludes(error.message, "Bad gateway");
});

Deno.test("a successful response that is not JSON is an APIResponseError with the body", async () => {
  const page = "<html><body>Sign in to continue</body></html>";
  await using server = ScriptedServer.start(() => new Response(page, { status: 200 }));
  await using api = clientFor(server.info(), [0.01]);
  const error = await assertRejects(() => api.request("GET", "/x"), APIResponseError);
  assertEquals([error.code, error.body, error.method, error.path], [200, page, "GET", "/x"]);
  assertStringIncludes(error.message, "GET /x answered with a body that is not JSON: <html>");
  assertStringIncludes(error.message, "check that the server URL points at the Kubernetes API");
  assert(error.cause instanceof SyntaxError);
  assertEquals(server.requests.length, 1); // not retried: the server will say the same again
});

Deno.test("a closed client refuses requests with a UsageError", async () => {
  await using server = ScriptedServer.start(() => json({ ok: true }));
  const api = clientFor(server.info());
  await api.close();
  await assertRejects(() => api.request("GET", "/api"), UsageError, "make a new one");
  assertEquals(server.requests.length, 0);
});

Deno.test("a request slower than the request timeout fails with APITimeoutError after retries", async () => {
  const release = Promise.withResolvers<void>();
  await using server = ScriptedServer.start(async () => {
    await release.promise;
    return json({ late: true });
  });
  await using api = clientFor(server.info(), [0.01], 0.1);
  const error = await assertRejects(() => api.request("GET", "/slow"), APITimeoutError);
  assertStringIncludes(error.message, "timed out after 0.1 s");
  assertEquals(server.requests.length, 2);
  release.resolve();
});

Deno.test("an unreachable server is retried, then fails with APIConnectionError", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close(); // nothing listens there any more
  await using api = clientFor({ server: `http://127.0.0.1:${port}`, token: "t" }, [0.01, 0.01]);
  const error = await assertRejects(() => api.request("GET", "/api"), APIConnectionError);
  assertStringIncludes(error.message, `GET /api at http://127.0.0.1:${port} failed`);
});

Deno.test("an abort stops a request during its retry pauses", async () => {
  // The client reports the retry right before its pause: that is when to abort.
  const pausing = Promise.withResolvers<void>();
  await configure({
    reset: true,
    sinks: {
      pause: (record: LogRecord) => {
        if (String(record.rawMessage).startsWith("Retrying")) pausing.resolve();
      },
    },
    loggers: [
      { category: ["kopf", "client"], lowestLevel: "debug", sinks: ["pause"] },
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: [] },
    ],
  });
  try {
    await using server = ScriptedServer.start(() => status(503, "ServiceUnavailable", "down"));
    await using api = clientFor(server.info(), [60]);
    const controller = new AbortController();
    const pending = api.request("GET", "/api", { signal: controller.signal });
    const rejected = assertRejects(() => pending);
    await assertSettlesWithin(pausing.promise, 10, "the retry pause");
    controller.abort();
    await assertSettlesWithin(rejected, 10, "the abort ending the pause");
    assertEquals(server.requests.length, 1);
  } finally {
    await reset();
  }
});

Deno.test("tokens, token files (re-read when rotated) and basic auth become Authorization headers", async () => {
  await using server = ScriptedServer.start(() => json({}));
  const dir = await Deno.makeTempDir();
  try {
    const tokenPath = `${dir}/token`;
    await Deno.writeTextFile(tokenPath, "rotating-1\n");
    await using api = clientFor(server.info({ token: "static", tokenPath }));
    await api.request("GET", "/a");
    await Deno.writeTextFile(tokenPath, "rotating-2-longer\n");
    await api.request("GET", "/b");
    await using basic = clientFor({ server: server.url, username: "ann", password: "pä55" });
    await basic.request("GET", "/c");
    await using scheme = clientFor({ server: server.url, token: "abc", scheme: "Token" });
    await scheme.request("GET", "/d");
    assertEquals(server.requests.map((r) => r.headers.get("authorization")), [
      "Bearer rotating-1",
      "Bearer rotating-2-longer",
      `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode("ann:pä55")))}`,
      "Token abc",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bodies are sent as JSON with the given content type, query params are encoded", async () => {
  await using server = ScriptedServer.start(() => json({}));
  await using api = clientFor(server.info());
  await api.request("PATCH", "/p?dryRun=All", {
    body: { spec: { x: 1 } },
    contentType: "application/merge-patch+json",
    query: { fieldManager: "kopf & co", skipped: undefined },
  });
  const [request] = server.requests;
  assertEquals(request.headers.get("content-type"), "application/merge-patch+json");
  assertEquals(JSON.parse(request.body), { spec: { x: 1 } });
  assertEquals(request.query.get("dryRun"), "All");
  assertEquals(request.query.get("fieldManager"), "kopf & co");
  assertEquals(request.query.has("skipped"), false);
});

Deno.test("Retry-After is read as seconds or as an HTTP date", () => {
  assertEquals(parseRetryAfter("3"), 3);
  assertEquals(parseRetryAfter(null), undefined);
  assertEquals(parseRetryAfter("soon"), undefined);
  const now = Date.parse("2030-01-01T00:00:00Z");
  assertEquals(parseRetryAfter("Tue, 01 Jan 2030 00:00:05 GMT", now), 5);
});
