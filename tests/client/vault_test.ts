/**
 * The credentials vault: expiry, invalidation, one login round for concurrent callers,
 * known-bad credentials, and LoginError when a login yields nothing.
 */
import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
  assertThrows,
} from "../assert.ts";
import { LoginError } from "../../src/structs/errors.ts";
import type { ConnectionInfo } from "../../src/structs/credentials.ts";
import { Vault } from "../../src/client/vault.ts";
import { json, ScriptedServer, status } from "./scripted_server.ts";
import { ApiClient } from "../../src/client/api.ts";
import { APIUnauthorizedError } from "../../src/client/api_errors.ts";
import { wallClockAt } from "../clocks.ts";

const A: ConnectionInfo = { server: "https://a.example", token: "token-a" };
const B: ConnectionInfo = { server: "https://b.example", token: "token-b" };

Deno.test("expired credentials are dropped and the next call logs in again", async () => {
  let now = 1_000_000;
  let logins = 0;
  const vault = new Vault({
    clock: wallClockAt(() => now),
    relogin: () => {
      logins++;
      return Promise.resolve({ fresh: { ...B, expiration: new Date(now + 60_000) } });
    },
  });
  vault.populate({ old: { ...A, expiration: new Date(now + 1_000) } });
  assertEquals((await vault.select()).id, "old");
  now += 1_000; // exactly at the expiration: no longer usable
  assertEquals((await vault.select()).id, "fresh");
  assertEquals(logins, 1);
  assertEquals(vault.items().map((i) => i.id), ["fresh"]);
});

Deno.test("already expired credentials are not even accepted", () => {
  const vault = new Vault({ clock: wallClockAt(5_000) });
  assertEquals(vault.populate({ a: { ...A, expiration: new Date(4_999) }, b: B }), 1);
  assertEquals(vault.items().map((i) => i.id), ["b"]);
});

Deno.test("the highest priority wins; equal priorities are chosen at random", async () => {
  const picked = async (random: number) => {
    const vault = new Vault({ random: () => random });
    vault.populate({
      low: { ...A, priority: 1 },
      high1: { ...B, priority: 5 },
      high2: { ...B, token: "t2", priority: 5 },
    });
    return (await vault.select()).id;
  };
  assertEquals(await picked(0), "high1");
  assertEquals(await picked(0.99), "high2");
});

Deno.test("the choice follows the items as they are added, invalidated and expired", async () => {
  let now = 1_000;
  const vault = new Vault({ clock: wallClockAt(() => now) });
  vault.populate({ low: { ...A, priority: 1 }, high: { ...B, priority: 5 } });
  const high = await vault.select();
  assertEquals(high.id, "high");
  vault.invalidate(high);
  assertEquals((await vault.select()).id, "low");
  vault.populate({ top: { ...B, token: "t3", priority: 9, expiration: new Date(2_000) } });
  assertEquals((await vault.select()).id, "top");
  now = 3_000;
  assertEquals((await vault.select()).id, "low");
});

Deno.test("depletion runs one login round while all concurrent calls wait", async () => {
  const gate = Promise.withResolvers<void>();
  let logins = 0;
  const vault = new Vault({
    relogin: async () => {
      logins++;
      await gate.promise;
      return { relogged: B };
    },
  });
  const waiting = Array.from({ length: 5 }, () => vault.select());
  await Promise.resolve();
  assertEquals(logins, 1);
  gate.resolve();
  const items = await Promise.all(waiting);
  assertEquals(items.map((i) => i.id), [
    "relogged",
    "relogged",
    "relogged",
    "relogged",
    "relogged",
  ]);
  assertEquals(logins, 1);
});

Deno.test("credentials known to be bad are never reused, and a login of only those fails", async () => {
  const vault = new Vault({ relogin: () => Promise.resolve({ again: A }) });
  vault.populate({ first: A });
  const item = await vault.select();
  vault.invalidate(item, "HTTP 401");
  assert(vault.isKnownBad(A));
  assertEquals(vault.populate({ again: A }), 0);
  const error = await assertRejects(() => vault.select(), LoginError);
  // It names the server, where the credentials come from, why, and what to do.
  assertEquals(
    error.message,
    'The API server https://a.example refused the credentials of the login "first" (HTTP 401), ' +
      "and logging in again brought no others: renew them (e.g. log in again with your cloud's CLI, or refresh the token or certificate), choose other credentials (--context, KUBECONFIG, --kubeconfig), or fix the login handlers.",
  );
});

Deno.test("refused credentials are named by their source, never by their secret", async () => {
  const info = { ...A, source: 'the context "dev" (user "alice") of /k/config' };
  const vault = new Vault({ relogin: () => Promise.resolve({ again: info }) });
  vault.populate({ first: info });
  vault.invalidate(await vault.select(), "HTTP 401: Unauthorized");
  const error = await assertRejects(() => vault.select(), LoginError);
  assertStringIncludes(error.message, 'the context "dev" (user "alice") of /k/config');
  assertStringIncludes(error.message, "(HTTP 401: Unauthorized)");
  assert(!error.message.includes(String(A.token)), "no token in the message");
});

Deno.test("a login that brings nothing says where to look", async () => {
  const vault = new Vault({ relogin: () => Promise.resolve({}) });
  const error = await assertRejects(() => vault.select(), LoginError);
  assertStringIncludes(error.message, "no usable credentials");
  assertStringIncludes(error.message, "KUBECONFIG");
});

Deno.test("invalidating old credentials leaves newer ones under the same id alone", async () => {
  const vault = new Vault();
  vault.populate({ login: A });
  const old = await vault.select();
  vault.populate({ login: B });
  vault.invalidate(old);
  assertEquals(vault.items().map((i) => i.info.token), ["token-b"]);
});

Deno.test("a login that yields nothing raises LoginError to every waiting call", async () => {
  let logins = 0;
  const vault = new Vault({
    relogin: () => {
      logins++;
      return Promise.resolve({ handler1: null, handler2: undefined });
    },
  });
  const results = await Promise.allSettled([vault.select(), vault.select(), vault.select()]);
  assertEquals(results.map((r) => r.status), ["rejected", "rejected", "rejected"]);
  for (const r of results) assert((r as PromiseRejectedResult).reason instanceof LoginError);
  assertEquals(logins, 1);
});

Deno.test("a vault without a login fails with LoginError when empty", async () => {
  await assertRejects(() => new Vault().select(), LoginError, "no login is configured");
});

Deno.test("login results without a server are refused with a clear error", () => {
  const vault = new Vault();
  const bad = { server: "" } as ConnectionInfo;
  const { message } = assertThrows(() => vault.populate({ mine: bad }), LoginError);
  assertEquals(
    message,
    'The login "mine" returned no server URL; return a ConnectionInfo with a server.',
  );
});

Deno.test("a 401 invalidates the credentials used and the call retries with others", async () => {
  await using server = ScriptedServer.start((request) =>
    request.headers.get("authorization") === "Bearer good"
      ? json({ kind: "Namespace", metadata: { name: "default" } })
      : status(401, "Unauthorized", "bad token")
  );
  const vault = new Vault({ random: () => 0 }); // picks "bad" first: it comes first
  vault.populate({
    bad: { server: server.url, token: "bad" },
    good: { server: server.url, token: "good" },
  });
  await using api = new ApiClient(vault, { networking: { errorBackoffs: [] } });
  const result = await api.request<{ kind: string }>("GET", "/api/v1/namespaces/default");
  assertEquals(result.kind, "Namespace");
  assertEquals(server.requests.map((r) => r.headers.get("authorization")), [
    "Bearer bad",
    "Bearer good",
  ]);
  assertEquals(vault.items().map((i) => i.id), ["good"]);
});

Deno.test("a 401 with no credentials left re-logs in once and continues with the new ones", async () => {
  let logins = 0;
  await using server = ScriptedServer.start((request) =>
    request.headers.get("authorization") === "Bearer second"
      ? json({ ok: true })
      : status(401, "Unauthorized", "expired")
  );
  const vault = new Vault({
    relogin: () =>
      Promise.resolve({ login: { server: server.url, token: logins++ ? "second" : "first" } }),
  });
  await using api = new ApiClient(vault, { networking: { errorBackoffs: [] } });
  const results = await Promise.all([1, 2, 3].map(() => api.request("GET", "/x")));
  assertEquals(results, [{ ok: true }, { ok: true }, { ok: true }]);
  assertEquals(logins, 2); // the initial login, then one re-login for all three calls
});

Deno.test("a 401 from credentials that a re-login returns again ends in LoginError", async () => {
  await using server = ScriptedServer.start(() => status(401, "Unauthorized", "never"));
  const vault = new Vault({
    relogin: () => Promise.resolve({ login: { server: server.url, token: "same" } }),
  });
  await using api = new ApiClient(vault, { networking: { errorBackoffs: [] } });
  await assertRejects(() => api.request("GET", "/x"), LoginError);
  assertEquals(server.requests.length, 1); // the known-bad token was not sent again
});

Deno.test("a server that is not a URL is refused with a clear error", () => {
  const vault = new Vault();
  const { message } = assertThrows(
    () => vault.populate({ mine: { server: "localhost:6443", token: "t" } }),
    LoginError,
  );
  assertEquals(
    message,
    'The login "mine" returned the server "localhost:6443", which is not a URL; use the form https://host:port.',
  );
});

Deno.test("a call waiting for a login round stops waiting when its signal aborts", async () => {
  const gate = Promise.withResolvers<Record<string, ConnectionInfo>>();
  const vault = new Vault({ relogin: () => gate.promise });
  const controller = new AbortController();
  const waiting = vault.select(controller.signal);
  const other = vault.select();
  controller.abort(new Error("stopping"));
  await assertRejects(() => waiting, Error, "stopping");
  gate.resolve({ late: A });
  assertEquals((await other).id, "late"); // the round itself went on for the others
});

Deno.test("unusable certificate data fails the request with one clear LoginError line", async () => {
  await using server = ScriptedServer.start(() => json({}));
  const vault = new Vault();
  vault.populate({ broken: { server: server.url, caData: "not a certificate" } });
  await using api = new ApiClient(vault, { networking: { errorBackoffs: [] } });
  const error = await assertRejects(() => api.request("GET", "/api"), LoginError);
  assertEquals(
    error.message,
    `The CA for ${server.url} is not PEM data (no "-----BEGIN" block); give PEM text, not base64 or a path.`,
  );
  assert(!error.message.includes("\n"));
  assertEquals(server.requests.length, 0);
});

Deno.test("fresh credentials rejected again make the call pause along the backoffs, then fail", async () => {
  await using server = ScriptedServer.start(() => status(401, "Unauthorized", "never"));
  let logins = 0;
  const vault = new Vault({
    relogin: () => Promise.resolve({ minted: { server: server.url, token: `t${++logins}` } }),
  });
  await using api = new ApiClient(vault, { networking: { errorBackoffs: [0.01] } });
  await assertRejects(() => api.request("GET", "/x"), APIUnauthorizedError);
  assertEquals(server.requests.map((r) => r.headers.get("authorization")), [
    "Bearer t1",
    "Bearer t2",
    "Bearer t3",
  ]);
  assertEquals(logins, 3);
});

Deno.test("an expiration that is not a Date is refused with a clear error", () => {
  const bad = { ...A, expiration: "tomorrow" } as unknown as ConnectionInfo;
  const { message } = assertThrows(() => new Vault().populate({ mine: bad }), LoginError);
  assertEquals(
    message,
    'The login "mine" returned the expiration tomorrow, which is not a valid Date; return a Date (or no expiration).',
  );
});
