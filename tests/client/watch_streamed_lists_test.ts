/**
 * Streamed listings (`sendInitialEvents`) against a scripted API server: the initial
 * events in parts, the bookmark that ends them, and the fallback to paginated listings
 * when the server refuses or ignores streaming.
 */
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { type WatchItem, watchObjects } from "../../src/client/watch.ts";
import { APIUnprocessableError } from "../../src/client/api_errors.ts";
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

const FAST: WatchingTuning = { reconnectBackoff: 0.01, listPageSize: 2 };
const BACKOFF = { initial: 0.01, cap: 0.02 };
const END = { "k8s.io/initial-events-end": "true" };

/** A server answering streamed listings, plain watches and lists from their queues. */
function scripted(scripts: {
  streams?: ((r: Recorded, body: ChunkedBody) => Response | void)[];
  watches?: ((r: Recorded, body: ChunkedBody) => void)[];
  lists?: ((r: Recorded) => Response)[];
}): ScriptedServer {
  const server: ScriptedServer = ScriptedServer.start((request) => {
    if (request.query.get("watch") === "true") {
      const streamed = request.query.get("sendInitialEvents") === "true";
      const script = (streamed ? scripts.streams : scripts.watches)?.shift();
      const body = server.stream();
      const answer = script?.(request, body);
      return answer ?? body.response();
    }
    const script = scripts.lists?.shift();
    if (!script) return status(500, "InternalError", "no more lists scripted");
    return script(request);
  });
  return server;
}

function bookmark(rv: string, annotations?: Record<string, string>): unknown {
  return {
    kind: "KopfExample",
    apiVersion: "kopf.dev/v1",
    metadata: { resourceVersion: rv, annotations },
  };
}

/** Take `count` items of a watch with listings in parts, then stop it. */
function collect(
  server: ScriptedServer,
  count: number,
  watching: WatchingTuning = FAST,
): Promise<WatchItem[]> {
  return collectWatch(server, count, watching, { listParts: true, backoff: BACKOFF });
}

/** The items in short: `LISTING a,b`, `LISTED c @5`, `MODIFIED a`. */
function brief(items: WatchItem[]): string[] {
  return items.map((item) => {
    if (item.type === "LISTING" || item.type === "LISTED") {
      const names = item.objects.map((o) => o.metadata?.name).join(",");
      const rv = item.type === "LISTED" ? ` @${item.resourceVersion}` : "";
      return `${item.type}${item.continued ? "+" : ""} ${names}${rv}`;
    }
    return `${item.type} ${item.object.metadata?.name}`;
  });
}

function requests(server: ScriptedServer): string[] {
  return server.requests.map((r) => {
    if (r.query.get("watch") !== "true") return `list limit=${r.query.get("limit")}`;
    if (r.query.get("sendInitialEvents") === "true") return "stream";
    return `watch@${r.query.get("resourceVersion")}`;
  });
}

Deno.test("a streamed listing comes in parts of a page, ends at its bookmark, then live events follow", async () => {
  await using server = scripted({
    streams: [(_, body) => {
      for (const name of ["a", "b", "c"]) body.event("ADDED", obj(name, "1"));
      body.event("BOOKMARK", bookmark("5", END));
      body.event("MODIFIED", obj("a", "6"));
    }],
  });
  const items = await collect(server, 3);
  assertEquals(brief(items), ["LISTING a,b", "LISTED+ c @5", "MODIFIED a"]);
  assertEquals(requests(server), ["stream"]);
  const query = server.requests[0].query;
  assertEquals(query.get("resourceVersionMatch"), "NotOlderThan");
  assertEquals(query.get("allowWatchBookmarks"), "true");
  assertEquals(query.get("resourceVersion"), null);
});

Deno.test("after a streamed listing, a closed stream resumes from the bookmark, not streaming again", async () => {
  await using server = scripted({
    streams: [(_, body) => {
      body.event("BOOKMARK", bookmark("5", END));
      body.event("ADDED", obj("x", "6"));
      body.close();
    }],
    watches: [(_, body) => body.event("ADDED", obj("y", "7"))],
  });
  const items = await collect(server, 3);
  assertEquals(brief(items), ["LISTED  @5", "ADDED x", "ADDED y"]);
  assertEquals(requests(server), ["stream", "watch@6"]);
});

Deno.test("a streamed listing that breaks before its bookmark passes on what came, then begins anew", async () => {
  await using server = scripted({
    streams: [
      (_, body) => {
        for (const name of ["a", "b", "c"]) body.event("ADDED", obj(name, "1"));
        body.write('{"type":"ADDED","obj'); // and the connection breaks mid-line
        body.close();
      },
      (_, body) => {
        for (const name of ["b", "c"]) body.event("ADDED", obj(name, "1"));
        body.event("BOOKMARK", bookmark("9", END));
      },
    ],
  });
  // The objects that came are passed on, the last of them short of a page, as a part of the
  // listing that broke off; the next listing begins anew (not continued).
  const items = await collect(server, 4);
  assertEquals(brief(items), ["LISTING a,b", "LISTING+ c", "LISTING b,c", "LISTED+  @9"]);
  assertEquals(requests(server), ["stream", "stream"]);
});

Deno.test("auto: a server that refuses streaming (422) is listed in pages, from then on", async () => {
  await using server = scripted({
    streams: [() => status(422, "Invalid", "resourceVersionMatch is forbidden for watch")],
    lists: [
      () => list([obj("a", "2"), obj("b", "2")], "3", "token"),
      () => list([obj("c", "2")], "3"),
      () => list([obj("c", "2")], "12"),
    ],
    watches: [(_, body) => {
      body.event("ERROR", { kind: "Status", code: 410, reason: "Expired", message: "too old" });
    }],
  });
  const items = await collect(server, 3);
  assertEquals(brief(items), ["LISTING a,b", "LISTED+ c @3", "LISTED c @12"]);
  assertEquals(requests(server), [
    "stream",
    "list limit=2",
    "list limit=2",
    "watch@3",
    "list limit=2",
  ]);
  assertEquals(server.requests[2].query.get("continue"), "token");
});

Deno.test("auto: live events or a plain bookmark before the end of the initial events mean no streaming", async () => {
  for (const early of ["MODIFIED", "BOOKMARK"]) {
    await using server = scripted({
      streams: [(_, body) => {
        body.event("ADDED", obj("a", "1"));
        body.event(early, early === "BOOKMARK" ? bookmark("4") : obj("a", "4"));
      }],
      lists: [() => list([obj("a", "4")], "4")],
    });
    // The object before the early event is passed on, as a part of a listing that broke off.
    const items = await collect(server, 2);
    assertEquals(brief(items), ["LISTING a", "LISTED a @4"], early);
    assertEquals(requests(server).slice(0, 2), ["stream", "list limit=2"], early);
  }
});

Deno.test("auto: a server that ignores the parameters and never ends the initial events is listed in pages", async () => {
  // Each stream sends the objects, then nothing: the inactivity timeout ends it, unfinished.
  const silent = (_: Recorded, body: ChunkedBody) => body.event("ADDED", obj("a", "1"));
  await using server = scripted({
    streams: [silent, silent],
    lists: [() => list([obj("a", "1")], "4")],
  });
  const items = await collect(server, 3, { ...FAST, listPageSize: 5, inactivityTimeout: 0.2 });
  assertEquals(brief(items), ["LISTING a", "LISTING a", "LISTED a @4"]);
  assertEquals(requests(server).slice(0, 3), ["stream", "stream", "list limit=5"]);
});

Deno.test("stream: a server that refuses streaming fails the watch, never listing in pages", async () => {
  await using server = scripted({
    streams: [() => status(422, "Invalid", "resourceVersionMatch is forbidden for watch")],
  });
  await using api = server.client({ watching: { ...FAST, listMode: "stream" } });
  const watch = watchObjects(api, KEX, { namespace: "ns", listParts: true, backoff: BACKOFF });
  await assertRejects(() => watch.next(), APIUnprocessableError);
  assertEquals(requests(server), ["stream"]);
});

Deno.test("whole listings: what a broken streamed listing passed on is not in the next LISTED", async () => {
  await using server = scripted({
    streams: [
      (_, body) => {
        for (const name of ["a", "b", "c"]) body.event("ADDED", obj(name, "1"));
        body.close();
      },
      (_, body) => {
        body.event("ADDED", obj("b", "1"));
        body.event("BOOKMARK", bookmark("9", END));
      },
    ],
  });
  await using api = server.client({ watching: FAST });
  const controller = new AbortController();
  const watch = watchObjects(api, KEX, {
    namespace: "ns",
    signal: controller.signal,
    backoff: BACKOFF,
  });
  const first = await watch.next();
  controller.abort();
  assert(!first.done && first.value.type === "LISTED");
  assertEquals(first.value.objects.map((o) => o.metadata?.name), ["b"]);
});

Deno.test("whole listings: the parts of a streamed listing come as one LISTED item", async () => {
  await using server = scripted({
    streams: [(_, body) => {
      for (const name of ["a", "b", "c"]) body.event("ADDED", obj(name, "1"));
      body.event("BOOKMARK", bookmark("5", END));
    }],
  });
  await using api = server.client({ watching: FAST });
  const controller = new AbortController();
  const watch = watchObjects(api, KEX, { namespace: "ns", signal: controller.signal });
  const first = await watch.next();
  controller.abort();
  assert(!first.done && first.value.type === "LISTED");
  assertEquals(first.value.objects.map((o) => o.metadata?.name), ["a", "b", "c"]);
  assertEquals(first.value.resourceVersion, "5");
});
