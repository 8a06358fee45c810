/**
 * The operator's endpoints over HTTP: routes by path, reading methods only, no request
 * bodies, and the bounds every client is held to: one client's idle connections do not
 * refuse another's probe.
 */
import {
  endpointLimits,
  Readiness,
  readinessRoute,
  startEndpoints,
} from "../../src/engines/endpoints.ts";
import { OperatorSettings } from "../../src/settings/operator_settings.ts";
import { ConfigurationError } from "../../src/structs/errors.ts";
import { assert, assertEquals, assertThrows } from "../assert.ts";
import { IdleClient } from "../platform/idle_clients.ts";

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

Deno.test("one client holding 64 idle connections to the probe port: another's /healthz still answers", async () => {
  const endpoints = await startEndpoints(
    new Map([["http://127.0.0.1:0/healthz", () => new Response("{}")]]),
  );
  try {
    const { port } = new URL(endpoints.urls[0]);
    // 64, or as many as the server takes in all if more: only the share per client leaves
    // room for the probes.
    const { clientConnectionLimit: share, connectionLimit } = endpointLimits();
    const count = Math.max(64, connectionLimit);
    using idle = await IdleClient.open(Number(port), count);
    assert(await idle.closedAtLeast(count - share), `the server closed ${idle.closed}`);
    for (let i = 0; i < 5; i++) {
      const probe = await fetch(endpoints.urls[0], { signal: AbortSignal.timeout(1000) });
      assertEquals([probe.status, await probe.text()], [200, "{}"]);
    }
    assertEquals(idle.open, share, "the idle client keeps its share, no more");
  } finally {
    await endpoints.close();
  }
});

Deno.test("the limits of the endpoints are settings.endpoints', checked when set", async () => {
  const settings = new OperatorSettings({
    endpoints: { clientConnectionLimit: 2, connectionLimit: 3, headerTimeout: 1 },
  });
  assertEquals(endpointLimits(settings.endpoints), {
    bodyLimit: 0,
    headerTimeout: 1,
    bodyTimeout: 10,
    idleTimeout: 30,
    clientConnectionLimit: 2,
    connectionLimit: 3,
  });
  assertEquals(endpointLimits(), endpointLimits(new OperatorSettings().endpoints));
  assertThrows(
    () => new OperatorSettings({ endpoints: { clientConnectionLimit: 0 } }),
    ConfigurationError,
    "settings.endpoints.clientConnectionLimit must be a positive integer; got 0.",
  );
  assertThrows(
    () => new OperatorSettings({ endpoints: { clientConnectionLimit: 300 } }),
    ConfigurationError,
    "settings.endpoints.clientConnectionLimit (300) must be at most connectionLimit (256)",
  );

  const endpoints = await startEndpoints(
    new Map([["http://127.0.0.1:0/metrics", () => new Response("")]]),
    undefined,
    endpointLimits(settings.endpoints),
  );
  try {
    const { port } = new URL(endpoints.urls[0]);
    using idle = await IdleClient.open(Number(port), 5);
    assert(await idle.closedAtLeast(3), `the server closed ${idle.closed} of 5`);
    // The silent ones are closed at the header timeout of the settings: 1 s.
    const started = performance.now();
    assert(await idle.closedAtLeast(5), "the silent connections are still open");
    const elapsed = performance.now() - started;
    assert(elapsed < 3000, `closed after ${elapsed} ms`);
  } finally {
    await endpoints.close();
  }
});
