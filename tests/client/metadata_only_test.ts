/**
 * Metadata-only reads (`metadataOnly`): the `Accept` headers sent for lists (pages and
 * continuations), gets, streamed and paginated listings of watches and their live events;
 * the objects passed on as the server sends them (`PartialObjectMetadata`), and whole
 * objects passed on from a server that ignores the request.
 */
import { assert, assertEquals } from "../assert.ts";
import { getObject, listObjects, listPages } from "../../src/client/objects.ts";
import { type WatchItem, watchObjects } from "../../src/client/watch.ts";
import { METADATA_ACCEPT, METADATA_LIST_ACCEPT } from "../../src/client/metadata_only.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import {
  type ChunkedBody,
  collectWatch,
  json,
  KEX,
  list,
  obj,
  ScriptedServer,
} from "./scripted_server.ts";
import { configmaps as CONFIGMAPS } from "../fixtures/discovered.ts";

const FAST = { reconnectBackoff: 0.01, listPageSize: 2 };
const END = { "k8s.io/initial-events-end": "true" };

/** An object as a metadata-only server sends it. */
function partial(name: string, rv: string, annotations?: Record<string, string>): RawBody {
  return {
    kind: "PartialObjectMetadata",
    apiVersion: "meta.k8s.io/v1",
    metadata: { name, namespace: "ns", resourceVersion: rv, annotations },
  };
}

Deno.test("the Accept headers are client-go's metadata client's, without protobuf", () => {
  assertEquals(
    METADATA_LIST_ACCEPT,
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json",
  );
  assertEquals(
    METADATA_ACCEPT,
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json",
  );
});

Deno.test("metadata-only lists send the list Accept on every page; items come as sent", async () => {
  await using server = ScriptedServer.start((request) => {
    const items = [partial("a", "1"), partial("b", "2")];
    return request.query.get("continue")
      ? list([partial("c", "3")], "9")
      : list(items, "9", "token");
  });
  await using api = server.client();
  const listing = await listObjects(api, KEX, { namespace: "ns", metadataOnly: true, limit: 2 });
  assertEquals(server.requests.map((r) => r.headers.get("accept")), [
    METADATA_LIST_ACCEPT,
    METADATA_LIST_ACCEPT,
  ]);
  assertEquals(listing.items.map((o) => o.metadata?.name), ["a", "b", "c"]);
  // Not rewritten into the resource's kind.
  assertEquals(listing.items.map((o) => [o.kind, o.apiVersion]), [
    ["PartialObjectMetadata", "meta.k8s.io/v1"],
    ["PartialObjectMetadata", "meta.k8s.io/v1"],
    ["PartialObjectMetadata", "meta.k8s.io/v1"],
  ]);
  assertEquals(listing.resourceVersion, "9");
  // Plain lists keep the plain Accept.
  await listObjects(api, KEX, { namespace: "ns", limit: 10 });
  assertEquals(server.requests.at(-1)?.headers.get("accept"), "application/json");
});

Deno.test("a server that ignores metadata-only sends whole objects: they come as in plain lists", async () => {
  await using server = ScriptedServer.start(() => list([obj("a", "1", { big: true })], "5"));
  await using api = server.client();
  const pages = [];
  for await (const page of listPages(api, KEX, { namespace: "ns", metadataOnly: true })) {
    pages.push(page);
  }
  assertEquals(server.requests[0].headers.get("accept"), METADATA_LIST_ACCEPT);
  assertEquals(pages.length, 1);
  const [item] = pages[0].items;
  assertEquals([item.kind, item.apiVersion, item.spec], ["KopfExample", "kopf.dev/v1", {
    big: true,
  }]);
});

Deno.test("a metadata-only get sends the object Accept and returns PartialObjectMetadata as sent", async () => {
  await using server = ScriptedServer.start(() => json(partial("a", "7")));
  await using api = server.client();
  const got = await getObject(api, KEX, { namespace: "ns", name: "a" }, { metadataOnly: true });
  assertEquals(server.requests[0].headers.get("accept"), METADATA_ACCEPT);
  assertEquals(got, partial("a", "7"));
  await getObject(api, KEX, { namespace: "ns", name: "a" });
  assertEquals(server.requests[1].headers.get("accept"), "application/json");
});

Deno.test("a metadata-only watch sends the object Accept when streaming, the list Accept for pages", async () => {
  let watches = 0;
  const server: ScriptedServer = ScriptedServer.start((request) => {
    if (request.query.get("watch") !== "true") return list([partial("p", "3")], "4");
    const body: ChunkedBody = server.stream();
    if (watches++ === 0) {
      // The streamed listing: initial events, the annotated bookmark, a live event; then
      // the stream breaks, and the client falls back to no streaming for the test's sake.
      body.event("ADDED", partial("a", "1"));
      body.event("BOOKMARK", {
        kind: "PartialObjectMetadata",
        apiVersion: "meta.k8s.io/v1",
        metadata: { resourceVersion: "2", annotations: END },
      });
      body.event("MODIFIED", partial("a", "3"));
      body.close();
    } else {
      body.event("DELETED", partial("a", "5"));
    }
    return body.response();
  });
  await using _ = server;
  const items = await collectWatch(server, 3, FAST, { metadataOnly: true });
  assertEquals(items.map((i) => i.type), ["LISTED", "MODIFIED", "DELETED"]);
  const listed = items[0] as Extract<WatchItem, { type: "LISTED" }>;
  assertEquals(listed.resourceVersion, "2");
  assertEquals(listed.objects, [partial("a", "1")]);
  // The watch resumed from the live event's version, with the same Accept.
  const watchRequests = server.requests.filter((r) => r.query.get("watch") === "true");
  assertEquals(watchRequests.map((r) => r.headers.get("accept")), [
    METADATA_ACCEPT,
    METADATA_ACCEPT,
  ]);
  assertEquals(watchRequests[1].query.get("resourceVersion"), "3");
  assertEquals((items[2] as { object: RawBody }).object.kind, "PartialObjectMetadata");

  // Paginated: the list requests ask for PartialObjectMetadataList, the watch for objects.
  server.requests.length = 0;
  watches = 1; // plain watches from now on
  const paged = await collectWatch(server, 2, FAST, { metadataOnly: true, listMode: "paginate" });
  assertEquals(paged.map((i) => i.type), ["LISTED", "DELETED"]);
  assertEquals(server.requests.map((r) => [r.query.get("watch"), r.headers.get("accept")]), [
    [null, METADATA_LIST_ACCEPT],
    ["true", METADATA_ACCEPT],
  ]);
});

function fakeClient(cluster: FakeCluster): ApiClient {
  const vault = new Vault({ relogin: () => Promise.resolve({ fake: cluster.connectionInfo }) });
  return new ApiClient(vault, { watching: { reconnectBackoff: 0.01, listPageSize: 2 } });
}

function configMap(name: string, value: string): RawBody {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "default", labels: { app: "x" } },
    data: { value },
  };
}

/** Watch items of ConfigMaps until `count` have come; then stop. */
async function watched(
  api: ApiClient,
  count: number,
  listMode: "stream" | "paginate",
  act: () => void,
): Promise<WatchItem[]> {
  const controller = new AbortController();
  const items: WatchItem[] = [];
  const timer = setTimeout(() => controller.abort(), 10_000);
  try {
    const watch = watchObjects(api, CONFIGMAPS, {
      namespace: "default",
      metadataOnly: true,
      listMode,
      signal: controller.signal,
    });
    for await (const item of watch) {
      items.push(item);
      if (item.type === "LISTED") act();
      if (items.length >= count) controller.abort();
    }
  } finally {
    clearTimeout(timer);
  }
  return items;
}

for (const listMode of ["stream", "paginate"] as const) {
  Deno.test(`a metadata-only watch of the fake cluster (${listMode}): metadata only, no data`, async () => {
    await using cluster = await FakeCluster.start();
    for (const name of ["a", "b", "c"]) cluster.create(configMap(name, "secret"));
    await using api = fakeClient(cluster);
    const items = await watched(api, 4, listMode, () => {
      cluster.patch("configmaps", "a", { data: { value: "changed" } });
      cluster.create(configMap("d", "new"));
      cluster.delete("configmaps", "b");
    });
    assertEquals(items.map((i) => i.type), ["LISTED", "MODIFIED", "ADDED", "DELETED"]);
    const listed = items[0] as Extract<WatchItem, { type: "LISTED" }>;
    const objects = [
      ...listed.objects,
      ...items.slice(1).map((i) => (i as { object: RawBody }).object),
    ];
    for (const object of objects) {
      assertEquals([object.kind, object.apiVersion], ["PartialObjectMetadata", "meta.k8s.io/v1"]);
      assertEquals(object.data, undefined);
      assertEquals(object.metadata?.labels, { app: "x" });
      assert(object.metadata?.uid && object.metadata.resourceVersion);
    }
    assertEquals(listed.objects.map((o) => o.metadata?.name), ["a", "b", "c"]);
    assertEquals(objects.slice(3).map((o) => o.metadata?.name), ["a", "d", "b"]);
  });
}

Deno.test("metadata-only lists and gets of the fake cluster: pages, continuations, one object", async () => {
  await using cluster = await FakeCluster.start();
  for (const name of ["a", "b", "c", "d", "e"]) cluster.create(configMap(name, "secret"));
  await using api = fakeClient(cluster);
  const pages = [];
  const options = { namespace: "default", metadataOnly: true, limit: 2 };
  for await (const page of listPages(api, CONFIGMAPS, options)) pages.push(page);
  assertEquals(pages.map((p) => p.items.map((o) => o.metadata?.name)), [["a", "b"], ["c", "d"], [
    "e",
  ]]);
  assertEquals(new Set(pages.map((p) => p.resourceVersion)).size, 1);
  for (const item of pages.flatMap((p) => p.items)) {
    assertEquals([item.kind, item.data], ["PartialObjectMetadata", undefined]);
  }
  const one = await getObject(api, CONFIGMAPS, { namespace: "default", name: "c" }, {
    metadataOnly: true,
  });
  assertEquals([one.kind, one.metadata?.name, one.data], ["PartialObjectMetadata", "c", undefined]);
});
