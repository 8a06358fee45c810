/**
 * The operator's endpoints over HTTP: routes by path, reading methods only, no request
 * bodies, and the bounds every client is held to.
 */
import {
  ENDPOINT_LIMITS,
  Readiness,
  readinessRoute,
  startEndpoints,
} from "../../src/engines/endpoints.ts";
import { assertEquals } from "../assert.ts";

Deno.test("endpoints answer GET and HEAD; other methods get 405 and bodies 413, unread", async () => {
  let calls = 0;
  const route = () => {
    calls++;
    return new Response("fine\n");
  };
  const endpoints = await startEndpoints(
    new Map([["http://127.0.0.1:0/healthz", route]]),
    readinessRoute(new Readiness()), // not ready: starting
  );
  try {
    const [healthz, readyz] = endpoints.urls;
    const get = await fetch(healthz);
    assertEquals([get.status, await get.text()], [200, "fine\n"]);
    const head = await fetch(healthz, { method: "HEAD" });
    assertEquals([head.status, await head.text()], [200, ""]);
    const ready = await fetch(readyz);
    assertEquals(
      [ready.status, await ready.text()],
      [503, "not ready: starting: the initial listings are not all in\n"],
    );
    const post = await fetch(healthz, { method: "POST" });
    assertEquals([post.status, post.headers.get("allow")], [405, "GET, HEAD"]);
    await post.body?.cancel();
    const body = await fetch(healthz, { method: "POST", body: "x" });
    assertEquals(body.status, 413);
    await body.body?.cancel();
    const missing = await fetch(new URL("/nothing", healthz));
    assertEquals(missing.status, 404);
    await missing.body?.cancel();
    assertEquals(calls, 2);
  } finally {
    await endpoints.close();
  }
});

Deno.test("the endpoints hold their clients to ENDPOINT_LIMITS: connections past the cap are closed", async () => {
  const endpoints = await startEndpoints(
    new Map([["http://127.0.0.1:0/metrics", () => new Response("")]]),
  );
  const { hostname, port } = new URL(endpoints.urls[0]);
  const connect = () => Deno.connect({ hostname, port: Number(port) });
  const held: Deno.Conn[] = [];
  try {
    for (let i = 0; i < ENDPOINT_LIMITS.connectionLimit; i++) held.push(await connect());
    // The last one is served, so the server has taken all of them.
    const last = held[held.length - 1];
    await last.write(new TextEncoder().encode("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"));
    assertEquals(await last.read(new Uint8Array(1024)) !== null, true);
    const excess = await connect();
    held.push(excess);
    const give = setTimeout(() => excess.close(), 5000);
    const read = await excess.read(new Uint8Array(16)).catch(() => "reset");
    clearTimeout(give);
    assertEquals(read, null, "the connection past the cap was closed at once, unanswered");
  } finally {
    for (const conn of held) {
      try {
        conn.close();
      } catch {
        // closed by the server
      }
    }
    await endpoints.close();
  }
});
