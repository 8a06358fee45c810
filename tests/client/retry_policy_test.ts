/**
 * The retry policy: which requests are idempotent, what a failure or an error answer leads
 * to; and, on scripted servers, how the API client follows it for error answers, refused
 * connections and kept connections closed by the server.
 */
import { assert, assertEquals, assertRejects, assertSettlesWithin } from "../assert.ts";
import {
  replayAfterAnswer,
  replayAfterFailure,
  whyNotIdempotent,
} from "../../src/client/retry_policy.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { APIServerError } from "../../src/client/api_errors.ts";
import { json, ScriptedServer, status } from "./scripted_server.ts";

const MERGE = "application/merge-patch+json";
const JSON_PATCH = "application/json-patch+json";

Deno.test("reads, deletes, conditional PUTs and value-setting patches are idempotent", () => {
  const idempotent: [string, unknown, string][] = [
    ["GET", undefined, "application/json"],
    ["HEAD", undefined, "application/json"],
    ["DELETE", { preconditions: { uid: "u" } }, "application/json"],
    ["DELETE", { propagationPolicy: "Background" }, "application/json"],
    ["PUT", { metadata: { name: "x", resourceVersion: "7" } }, "application/json"],
    ["PATCH", { spec: { list: [1, 2] } }, MERGE],
    ["PATCH", { spec: { containers: [{ name: "a" }] } }, "application/strategic-merge-patch+json"],
    ["PATCH", { spec: {} }, "application/apply-patch+yaml"],
    ["PATCH", [{ op: "replace", path: "/spec/x", value: 1 }], JSON_PATCH],
    ["PATCH", [{ op: "add", path: "/metadata/annotations/a~1b", value: "c" }], JSON_PATCH],
  ];
  for (const [method, body, type] of idempotent) {
    assertEquals(
      whyNotIdempotent(method, body, type),
      undefined,
      `${method} ${JSON.stringify(body)}`,
    );
  }
});

Deno.test("creates, blind PUTs and JSON patches that test, move or insert are not", () => {
  const not: [string, unknown, string, string][] = [
    ["POST", { metadata: { name: "x" } }, "application/json", "POST"],
    ["PUT", { metadata: { name: "x" } }, "application/json", "resourceVersion"],
    ["PATCH", [{ op: "test", path: "/metadata/resourceVersion", value: "1" }], JSON_PATCH, "test"],
    ["PATCH", [{ op: "add", path: "/metadata/finalizers/-", value: "f" }], JSON_PATCH, "array"],
    ["PATCH", [{ op: "add", path: "/spec/list/0", value: "f" }], JSON_PATCH, "array"],
    ["PATCH", [{ op: "remove", path: "/metadata/finalizers/0" }], JSON_PATCH, "remove"],
    ["PATCH", [{ op: "move", from: "/a", path: "/b" }], JSON_PATCH, "move"],
    ["PATCH", [{ op: "copy", from: "/a", path: "/b" }], JSON_PATCH, "copy"],
    ["PATCH", { spec: {} }, "application/x-unknown", "application/x-unknown"],
  ];
  for (const [method, body, type, why] of not) {
    const reason = whyNotIdempotent(method, body, type);
    assert(reason?.includes(why), `${method} ${JSON.stringify(body)}: ${reason}`);
  }
});

Deno.test("a failure replays what was never sent or is idempotent; a stale connection at once, once", () => {
  const of = (
    unsent: boolean,
    idempotent: boolean,
    staleConnection = false,
    staleRetried = false,
  ) => replayAfterFailure({ unsent, idempotent, staleConnection, staleRetried });
  assertEquals(of(false, false), "never");
  assertEquals(of(false, false, true), "never", "a stale connection alone proves nothing");
  assertEquals(of(true, false), "later");
  assertEquals(of(false, true), "later");
  assertEquals(of(false, true, true), "now");
  assertEquals(of(true, false, true), "now");
  assertEquals(of(false, true, true, true), "later", "at once only once");
});

Deno.test("an error answer is replayed when the server did nothing, or the request is idempotent", () => {
  for (const idempotent of [false, true]) {
    assertEquals(replayAfterAnswer(401, null, idempotent), true);
    assertEquals(replayAfterAnswer(429, null, idempotent), true);
    assertEquals(replayAfterAnswer(503, "1", idempotent), true);
    assertEquals(replayAfterAnswer(409, null, idempotent), false);
    assertEquals(replayAfterAnswer(422, null, idempotent), false);
  }
  for (const code of [500, 502, 503, 504]) {
    assertEquals(replayAfterAnswer(code, null, false), false, `${code}: maybe done`);
    assertEquals(replayAfterAnswer(code, null, true), true, `${code}: idempotent`);
  }
  assertEquals(replayAfterAnswer(500, "1", false), false, "a 500 may come after the work");
});

function clientOf(server: string, errorBackoffs: number[]): ApiClient {
  const vault = new Vault({ relogin: () => Promise.resolve({ test: { server, token: "t" } }) });
  return new ApiClient(vault, { networking: { errorBackoffs } });
}

Deno.test("a POST answered 500 is not sent again: the server may have done it", async () => {
  await using server = ScriptedServer.start(() => status(500, "InternalError", "maybe done"));
  await using api = clientOf(server.url, [0.01, 0.01]);
  await assertRejects(() =>
    api.request("POST", "/api/v1/namespaces/ns/configmaps", {
      body: { metadata: { name: "x" } },
    }), APIServerError);
  assertEquals(server.requests.length, 1);
});

Deno.test("a POST answered 429, or 503 with Retry-After, is sent again: the server did nothing", async () => {
  let calls = 0;
  await using server = ScriptedServer.start(() => {
    calls++;
    if (calls === 1) return json({ kind: "Status", code: 429 }, 429, { "retry-after": "0" });
    if (calls === 2) return json({ kind: "Status", code: 503 }, 503, { "retry-after": "0" });
    return json({ ok: calls }, 201);
  });
  await using api = clientOf(server.url, [30, 30]);
  const answer = api.request("POST", "/api/v1/namespaces/ns/configmaps", { body: {} });
  assertEquals(await assertSettlesWithin(answer, 5, "Retry-After 0, not the 30 s backoff"), {
    ok: 3,
  });
});

Deno.test("a POST to a server that refuses connections is sent once it listens: it was never sent", async () => {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  await using api = clientOf(`http://127.0.0.1:${port}`, [0.3, 0.3, 0.3, 0.3]);
  const answer = api.request("POST", "/api/v1/namespaces/ns/configmaps", { body: {} });
  await new Promise((resolve) => setTimeout(resolve, 100)); // the first attempt is refused
  const received: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, (request) => {
    received.push(request.method);
    return new Response('{"made":1}', { status: 201 });
  });
  try {
    assertEquals(await answer, { made: 1 });
    assertEquals(received, ["POST"]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("an idempotent write on a kept connection that the server closed goes again without a pause", async () => {
  // A keep-alive server that answers the first request of each connection and closes the
  // connection when a second one comes on it, unanswered: as after an idle timeout.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const answered: string[] = [];
  const serving = (async () => {
    for await (const connection of listener) {
      (async () => {
        const buffer = new Uint8Array(64 * 1024);
        for (let served = 0;; served++) {
          const count = await connection.read(buffer).catch(() => null);
          if (count === null || served > 0) break;
          answered.push(new TextDecoder().decode(buffer.subarray(0, count)).split(" ")[0]);
          const body = `{"n":${answered.length}}`;
          await connection.write(new TextEncoder().encode(
            `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}` +
              `\r\n\r\n${body}`,
          ));
        }
        connection.close();
      })().catch(() => {});
    }
  })();
  try {
    await using api = clientOf(`http://127.0.0.1:${port}`, [30]);
    const patch = (n: number) =>
      api.request("PATCH", "/api/v1/namespaces/ns/configmaps/x", {
        body: { data: { n: String(n) } },
        contentType: MERGE,
      });
    assertEquals(await patch(1), { n: 1 });
    assertEquals(await assertSettlesWithin(patch(2), 5, "at once, not after 30 s"), { n: 2 });
    assertEquals(answered, ["PATCH", "PATCH"]);
  } finally {
    listener.close();
    await serving;
  }
});
