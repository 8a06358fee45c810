/**
 * Watch streams against a scripted API server on 127.0.0.1.
 */
import { assert, assertEquals, assertRejects, assertSettlesWithin } from "../assert.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { type WatchItem, watchObjects, type WatchObjectsOptions } from "../../src/client/watch.ts";
import type { ApiClient } from "../../src/client/api.ts";
import { APIForbiddenError } from "../../src/client/api_errors.ts";
import type { WatchingTuning } from "../../src/client/tuning.ts";
import {
  type ChunkedBody,
  collectWatch,
  KEX,
  list,
  obj,
  type Recorded,
  ScriptedServer,
  status,
} from "./scripted_server.ts";

const FAST = { reconnectBackoff: 0.01, listMode: "paginate" as const };

/** Consume a watch of `ns` in the background; the function returned stops it and waits. */
function consumeInBackground(
  api: ApiClient,
  options: Pick<WatchObjectsOptions, "backoff" | "logger">,
): () => Promise<void> {
  const controller = new AbortController();
  const watching = (async () => {
    const items = watchObjects(api, KEX, {
      namespace: "ns",
      signal: controller.signal,
      ...options,
    });
    for await (const _ of items) { /* consume */ }
  })();
  return async () => {
    controller.abort();
    await watching;
  };
}

/** A server whose list and watch answers are taken from queues, in order. */
function scripted(
  lists: ((r: Recorded) => Response)[],
  watches: ((r: Recorded, body: ChunkedBody) => void)[],
): ScriptedServer {
  const server: ScriptedServer = ScriptedServer.start((request) => {
    if (request.query.get("watch") === "true") {
      const script = watches.shift();
      const body = server.stream();
      if (script) script(request, body);
      return body.response();
    }
    const script = lists.shift();
    if (!script) return status(500, "InternalError", "no more lists scripted");
    return script(request);
  });
  return server;
}

/** Take items from a watch until `count` are collected, then stop it. */
function collect(
  server: ScriptedServer,
  count: number,
  watching: WatchingTuning = FAST,
): Promise<WatchItem[]> {
  return collectWatch(server, count, watching);
}

function kinds(server: ScriptedServer): string[] {
  return server.requests.map((r) =>
    r.query.get("watch") === "true" ? `watch@${r.query.get("resourceVersion")}` : "list"
  );
}

function withKind(o: RawBody): RawBody {
  return { apiVersion: "kopf.dev/v1", kind: "KopfExample", ...o };
}

Deno.test("events split at arbitrary bytes, inside UTF-8 characters, arrive exactly as sent", async () => {
  const sent = Array.from(
    { length: 6 },
    (_, i) => obj(`n-${i}`, String(10 + i), { text: "ünïcødé — 日本語 🚀 " + "é".repeat(i), i }),
  );
  const bytes = new TextEncoder().encode(
    sent.map((o, i) => JSON.stringify({ type: i ? "MODIFIED" : "ADDED", object: o }) + "\n").join(
      "",
    ),
  );
  let splitInsideCharacter = false;
  await using server = scripted([() => list([], "9")], [(_, body) => {
    (async () => {
      const sizes = [1, 2, 3, 5, 7, 11, 13];
      for (let offset = 0, i = 0; offset < bytes.length; i++) {
        const end = Math.min(bytes.length, offset + sizes[i % sizes.length]);
        // A continuation byte (10xxxxxx) right after the cut: the cut is inside a character.
        if (end < bytes.length && (bytes[end] & 0xc0) === 0x80) splitInsideCharacter = true;
        body.write(bytes.slice(offset, end));
        offset = end;
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    })();
  }]);
  const items = await collect(server, 1 + sent.length);
  assert(splitInsideCharacter, "the script must cut inside a multi-byte character");
  assertEquals(items, [
    { type: "LISTED", objects: [], resourceVersion: "9" },
    ...sent.map((o, i) => ({ type: i ? "MODIFIED" : "ADDED", object: o }) as WatchItem),
  ]);
});

Deno.test("an ERROR event with code 410 leads to a fresh list", async () => {
  await using server = scripted(
    [() => list([obj("a", "2")], "3"), () => list([obj("b", "4")], "10")],
    [(_, body) => {
      body.event("ADDED", obj("b", "4"));
      body.event("ERROR", { kind: "Status", code: 410, reason: "Expired", message: "too old" });
    }],
  );
  const items = await collect(server, 3);
  assertEquals(items, [
    { type: "LISTED", objects: [withKind(obj("a", "2"))], resourceVersion: "3" },
    { type: "ADDED", object: obj("b", "4") },
    { type: "LISTED", objects: [withKind(obj("b", "4"))], resourceVersion: "10" },
  ]);
  assertEquals(kinds(server), ["list", "watch@3", "list"]);
});

Deno.test("an HTTP 410 when opening the watch leads to a fresh list", async () => {
  let watches = 0;
  const lists = [() => list([], "3"), () => list([obj("c", "11")], "11")];
  await using server = ScriptedServer.start((request) => {
    if (request.query.get("watch") !== "true") return lists.shift()!();
    watches++;
    return status(410, "Expired", "resourceVersion 3 is too old");
  });
  const items = await collect(server, 2);
  assertEquals(items.map((i) => i.type), ["LISTED", "LISTED"]);
  assertEquals(watches, 1);
  assertEquals(kinds(server), ["list", "watch@3", "list"]);
});

Deno.test("a cleanly closed stream resumes from the last resourceVersion without listing", async () => {
  await using server = scripted([() => list([], "5")], [
    (_, body) => {
      body.event("ADDED", obj("x", "6"));
      body.event("MODIFIED", obj("x", "7"));
      body.close();
    },
    (_, body) => body.event("ADDED", obj("y", "8")),
  ]);
  const items = await collect(server, 4);
  assertEquals(items.map((i) => i.type), ["LISTED", "ADDED", "MODIFIED", "ADDED"]);
  assertEquals(kinds(server), ["list", "watch@5", "watch@7"]);
  const watch = server.requests[1];
  assertEquals(watch.path, "/apis/kopf.dev/v1/namespaces/ns/kopfexamples");
  assertEquals(watch.query.get("allowWatchBookmarks"), "true");
});

Deno.test("a silent stream is reconnected after the inactivity timeout", async () => {
  let silent: ChunkedBody | undefined;
  await using server = scripted([() => list([], "5")], [
    (_, body) => (silent = body), // never writes anything
    (_, body) => body.event("ADDED", obj("z", "6")),
  ]);
  const items = await collect(server, 2, { ...FAST, inactivityTimeout: 0.2 });
  assertEquals(items, [
    { type: "LISTED", objects: [], resourceVersion: "5" },
    { type: "ADDED", object: obj("z", "6") },
  ]);
  assertEquals(kinds(server), ["list", "watch@5", "watch@5"]);
  await assertSettlesWithin(silent!.cancelled, 10, "closing the silent stream by the client");
});

Deno.test("chunks arriving keep a stream open; the silence after them still reconnects", async () => {
  const line = JSON.stringify({ type: "ADDED", object: obj("a", "6") }) + "\n";
  const pieces = 12; // one every 50 ms: 600 ms of trickle, three times the inactivity timeout
  const size = Math.ceil(line.length / pieces);
  let lastPiece = 0;
  let reopened = 0;
  await using server = scripted([() => list([], "5")], [
    (_, body) => {
      (async () => {
        for (let offset = 0; offset < line.length; offset += size) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          body.write(line.slice(offset, offset + size));
          lastPiece = performance.now();
        }
      })(); // then silent
    },
    (_, body) => {
      reopened = performance.now();
      body.event("ADDED", obj("b", "7"));
    },
  ]);
  const started = performance.now();
  const items = await collect(server, 3, { ...FAST, inactivityTimeout: 0.2 });
  assertEquals(items.map((i) => i.type), ["LISTED", "ADDED", "ADDED"]);
  assertEquals(kinds(server), ["list", "watch@5", "watch@6"]);
  assert(lastPiece - started >= 550, "the trickle lasted beyond the inactivity timeout");
  // Not before 0.2 s of silence after the last chunk (a little slack for timer rounding).
  const silence = reopened - lastPiece;
  assert(silence >= 190, `reconnected after ${silence} ms of silence, before the timeout`);
});

Deno.test("a watch request ends at the client timeout and resumes from where it was", async () => {
  await using server = scripted([() => list([], "5")], [
    (_, body) => body.event("ADDED", obj("a", "6")), // then silent: no inactivity limit here
    (_, body) => body.event("ADDED", obj("b", "7")),
  ]);
  const items = await collect(server, 3, { ...FAST, clientTimeout: 0.2 });
  assertEquals(items.map((i) => i.type), ["LISTED", "ADDED", "ADDED"]);
  assertEquals(kinds(server), ["list", "watch@5", "watch@6"]);
});

Deno.test("bookmarks move the resourceVersion and never reach consumers", async () => {
  await using server = scripted([() => list([], "5")], [
    (_, body) => {
      body.event("ADDED", obj("a", "6"));
      body.event("BOOKMARK", { kind: "KopfExample", metadata: { resourceVersion: "9" } });
      body.close();
    },
    (_, body) => body.event("ADDED", obj("b", "10")),
  ]);
  const items = await collect(server, 3);
  assertEquals(items.map((i) => i.type), ["LISTED", "ADDED", "ADDED"]);
  assertEquals(kinds(server), ["list", "watch@5", "watch@9"]);
});

Deno.test("live MODIFIED events the consumer takes from their text are not parsed; the watch moves past them", async () => {
  const withUid = (name: string, rv: string, spec = {}) => {
    const o = obj(name, rv, spec);
    return { ...o, metadata: { ...o.metadata, uid: `uid-${name}` } };
  };
  await using server = scripted([() => list([], "5")], [
    (_, body) => {
      body.event("ADDED", withUid("a", "6"));
      body.event("MODIFIED", withUid("a", "7", { known: true }));
      body.close();
    },
    (_, body) => {
      body.event("MODIFIED", withUid("a", "8"));
      // Its text is not JSON: had it been parsed, the stream would have broken here.
      body.write(
        '{"type":"MODIFIED","object":{"metadata":{"namespace":"ns","uid":"uid-a","resourceVersion":"9"}},}\n',
      );
      body.event("MODIFIED", withUid("b", "10"));
      // The last line without its newline: the stream may have been cut within it.
      body.write(JSON.stringify({ type: "MODIFIED", object: withUid("b", "11") }));
      body.close();
    },
  ]);
  const asked: unknown[] = [];
  const texts: string[] = [];
  const items = await collectWatch(server, 5, FAST, {
    knows: (object, text) => {
      asked.push(object);
      texts.push(text);
      return ["7", "9", "11"].includes(object.resourceVersion);
    },
  });
  assertEquals(
    items.map((i) => "object" in i ? `${i.type}@${i.object.metadata?.resourceVersion}` : i.type),
    [
      "LISTED",
      "ADDED@6",
      "MODIFIED@8",
      "MODIFIED@10",
      "MODIFIED@11",
    ],
  );
  assertEquals(JSON.parse(texts[0]), {
    type: "MODIFIED",
    object: withUid("a", "7", { known: true }),
  });
  // Resumed past the known event, the last of its stream; never asked about ADDED events.
  assertEquals(kinds(server), ["list", "watch@5", "watch@7"]);
  assertEquals(asked, [
    { namespace: "ns", uid: "uid-a", resourceVersion: "7" },
    { namespace: "ns", uid: "uid-a", resourceVersion: "8" },
    { namespace: "ns", uid: "uid-a", resourceVersion: "9" },
    { namespace: "ns", uid: "uid-b", resourceVersion: "10" },
  ]);
});

Deno.test("the server timeout is asked for and the watch stops promptly on abort", async () => {
  const opened = Promise.withResolvers<void>();
  await using server = scripted([() => list([], "5")], [() => opened.resolve()]);
  await using api = server.client({ watching: { ...FAST, serverTimeout: 600 } });
  const controller = new AbortController();
  const iterator = watchObjects(api, KEX, { namespace: "ns", signal: controller.signal });
  assertEquals((await iterator.next()).value, {
    type: "LISTED",
    objects: [],
    resourceVersion: "5",
  });
  const pending = iterator.next(); // blocks on the silent stream
  await opened.promise;
  const started = performance.now();
  controller.abort();
  assertEquals(await pending, { done: true, value: undefined });
  assert(performance.now() - started < 1000, "the watch must stop promptly");
  assertEquals(server.requests[1].query.get("timeoutSeconds"), "600");
});

Deno.test("an ERROR event with a client error code escalates as a typed error", async () => {
  await using server = scripted([() => list([], "5")], [(_, body) => {
    body.event("ERROR", { kind: "Status", code: 403, reason: "Forbidden", message: "no" });
  }]);
  await using api = server.client({ watching: FAST });
  await assertRejects(async () => {
    for await (const _ of watchObjects(api, KEX, { namespace: "ns" })) { /* drain */ }
  }, APIForbiddenError);
});

Deno.test("a consumer that stops iterating closes the stream", async () => {
  let stream: ChunkedBody | undefined;
  await using server = scripted([() => list([], "5")], [(_, body) => {
    stream = body;
    body.event("ADDED", obj("a", "6"));
  }]);
  await using api = server.client({ watching: FAST });
  for await (const item of watchObjects(api, KEX, { namespace: "ns" })) {
    if (item.type === "ADDED") break;
  }
  await assertSettlesWithin(stream!.cancelled, 10, "the server seeing the client go away");
});

Deno.test("a slow consumer does not count as a silent stream", async () => {
  await using server = scripted([() => list([], "5")], [(_, body) => {
    body.event("ADDED", obj("a", "6"));
    // The next event comes only after the consumer's long pause (and within the limit).
    setTimeout(() => body.event("ADDED", obj("b", "7")), 550);
  }, (_, body) => body.event("ADDED", obj("b", "7"))]); // only if it wrongly reconnects
  await using api = server.client({ watching: { ...FAST, inactivityTimeout: 0.3 } });
  const controller = new AbortController();
  const types: string[] = [];
  for await (const item of watchObjects(api, KEX, { namespace: "ns", signal: controller.signal })) {
    types.push(item.type);
    if (types.length === 2) await new Promise((resolve) => setTimeout(resolve, 500)); // slow handler
    if (types.length === 3) controller.abort();
  }
  assertEquals(types, ["LISTED", "ADDED", "ADDED"]);
  assertEquals(kinds(server), ["list", "watch@5"]); // no reconnect because of the slow consumer
});

Deno.test("a stream that breaks mid-line again and again is retried along a growing backoff, reported once", async () => {
  let watches = 0;
  await using server = ScriptedServer.start((request) => {
    if (request.query.get("watch") !== "true") return list([], "5");
    watches++;
    const body = server.stream();
    body.event("ADDED", obj(`x${watches}`, `${5 + watches}`));
    body.write('{"type":"MODIFIED","object":{"metadata":'); // cut off mid-line
    body.close();
    return body.response();
  });
  const lines: string[] = [];
  const at = (level: string) => (message: string) => lines.push(`${level}: ${message}`);
  const logger = {
    debug: at("debug"),
    info: at("info"),
    warning: at("warning"),
    error: at("error"),
  };
  await using api = server.client({ watching: FAST });
  const started = Date.now();
  const stop = consumeInBackground(api, {
    backoff: { initial: 0.05, cap: 0.4, jitter: 0 },
    logger,
  });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await stop();
  // Pauses of 0.05, 0.1, 0.2, 0.4, 0.4, …: about 6 streams in 1.5 s, not hundreds.
  assert(watches >= 4 && watches <= 8, `${watches} streams in ${Date.now() - started} ms`);
  const loud = lines.filter((line) => !line.startsWith("debug"));
  assertEquals(loud.length, 1, loud.join("\n"));
  assert(loud[0].startsWith("warning: The watch of /apis/kopf.dev/v1/namespaces/ns/kopfexamples"));
  assert(loud[0].includes("the stream broke") && loud[0].includes("keeps trying"), loud[0]);
});

Deno.test("streams cut after working a while start the backoff over, not wait longer each time", async () => {
  // Like a load balancer that cuts every connection after a while: each stream delivers an
  // event, stays up for longer than a second (and than the pause before it), then breaks.
  const opened: number[] = [];
  const broken: number[] = [];
  await using server = ScriptedServer.start((request) => {
    if (request.query.get("watch") !== "true") return list([], "5");
    opened.push(Date.now());
    const body = server.stream();
    body.event("ADDED", obj(`x${opened.length}`, `${5 + opened.length}`));
    setTimeout(() => {
      broken.push(Date.now());
      body.write('{"type":"MODIFIED","object":{"metadata":'); // cut off mid-line
      body.close();
    }, 1100);
    return body.response();
  });
  await using api = server.client({ watching: FAST });
  const stop = consumeInBackground(api, {
    backoff: { initial: 0.2, cap: 5, jitter: 0 }, // growing: 0.2, 0.4, 0.8 s
    logger: { debug() {}, info() {}, warning() {}, error() {} },
  });
  while (opened.length < 4) await new Promise((resolve) => setTimeout(resolve, 50));
  await stop();
  const pauses = [1, 2, 3].map((i) => (opened[i] - broken[i - 1]) / 1000);
  // The first pause follows the first stream: 0.2 s. Each later one too, not 0.4, 0.8.
  for (const pause of pauses) assert(pause >= 0.15 && pause < 0.35, `pauses ${pauses}`);
});

Deno.test("a watch that works again after failures says so once", async () => {
  let watches = 0;
  await using server = ScriptedServer.start((request) => {
    if (request.query.get("watch") !== "true") return list([], "5");
    const body = server.stream();
    if (++watches <= 2) {
      body.write("garbage\n");
      body.close();
    } else if (watches === 3) {
      body.event("ADDED", obj("x", "6"));
      body.close(); // a clean end with events: healthy
    } else {
      body.event("ADDED", obj("y", "7"));
    }
    return body.response();
  });
  const lines: string[] = [];
  const at = (level: string) => (message: string) => lines.push(`${level}: ${message}`);
  const logger = {
    debug: at("debug"),
    info: at("info"),
    warning: at("warning"),
    error: at("error"),
  };
  await using api = server.client({ watching: FAST });
  const controller = new AbortController();
  for await (
    const item of watchObjects(api, KEX, {
      namespace: "ns",
      signal: controller.signal,
      backoff: { initial: 0.01, jitter: 0 },
      logger,
    })
  ) {
    if (item.type === "ADDED" && item.object.metadata?.name === "y") controller.abort();
  }
  const loud = lines.filter((line) => !line.startsWith("debug"));
  assertEquals(loud.length, 2, loud.join("\n"));
  assert(loud[0].startsWith("warning: ") && loud[0].includes("not valid JSON"), loud[0]);
  assert(loud[1].startsWith("info: ") && loud[1].includes("works again, after 2 failed"), loud[1]);
});
