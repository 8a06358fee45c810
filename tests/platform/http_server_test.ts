/**
 * The platform HTTP server, in both implementations (Deno.serve and node:http): plain
 * and streamed responses, request bodies, shutdown.
 */
import {
  type HttpServerOptions,
  startHttpServer,
  startNodeHttpServer,
} from "../../src/platform/http_server.ts";
import { assert, assertEquals } from "../assert.ts";
import { ConfigurationError } from "../../src/structs/errors.ts";

const implementations = [
  ["Deno.serve", startHttpServer],
  ["node:http", startNodeHttpServer],
] as const;

function echoAndStream(): HttpServerOptions["handler"] {
  return async (request) => {
    const url = new URL(request.url);
    if (url.pathname === "/echo") {
      return new Response(`${request.method} ${await request.text()}`, {
        status: 201,
        headers: { "x-test": "yes" },
      });
    }
    // A stream whose second chunk is only produced after the client has read the first.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode("first\n"));
        await released;
        controller.enqueue(new TextEncoder().encode("second\n"));
        controller.close();
      },
    });
    (globalThis as { releaseStream?: () => void }).releaseStream = release;
    return new Response(body);
  };
}

for (const [name, start] of implementations) {
  Deno.test(`${name}: answers requests with their bodies, status and headers`, async () => {
    const server = await start({ handler: echoAndStream() });
    try {
      const response = await fetch(`${server.url}/echo`, { method: "POST", body: "hello" });
      assertEquals(response.status, 201);
      assertEquals(response.headers.get("x-test"), "yes");
      assertEquals(await response.text(), "POST hello");
      assertEquals(server.hostname, "127.0.0.1");
    } finally {
      await server.close();
    }
  });

  Deno.test(`${name}: streams a response chunk by chunk as it is produced`, async () => {
    const server = await start({ handler: echoAndStream() });
    try {
      const response = await fetch(`${server.url}/stream`);
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      const first = await reader.read();
      assertEquals(first.value, "first\n", "the first chunk arrives before the stream ends");
      (globalThis as { releaseStream?: () => void }).releaseStream!();
      let rest = "";
      for (let r = await reader.read(); !r.done; r = await reader.read()) rest += r.value;
      assertEquals(rest, "second\n");
    } finally {
      await server.close();
    }
  });
}

Deno.test("a port in use is refused with an error that says what to do", async () => {
  const first = await startHttpServer({ handler: () => new Response("x") });
  try {
    const error = await startHttpServer({ port: first.port, handler: () => new Response("y") })
      .then(() => undefined, (e: Error) => e);
    assert(error instanceof ConfigurationError, `a ConfigurationError: ${error}`);
    assertEquals(
      error?.message,
      `Cannot listen on 127.0.0.1:${first.port}: the port is in use; pick another port, or 0 for any free one.`,
    );
  } finally {
    await first.close();
  }
});
