/**
 * An operator started against a cluster that already holds many objects: listed in pages
 * of the configured size or streamed (whichever the server supports, or as told), every
 * object is handled, the indices are complete before the first handler runs, and no list
 * response holds more than a page.
 */
import { assert, assertEquals } from "../assert.ts";
import type { Index } from "../../src/structs/indices.ts";
import { index, on } from "../../src/intents/registration.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { Calls, clusterRegistry, kex, kexCrd, startOperator, testSettings } from "./harness.ts";

const OBJECTS = 2_000;
const PAGE = 150;

const MODES = [
  { name: "streamed", streamingLists: true, listMode: "auto", lists: false },
  {
    name: "paginated (the server cannot stream: auto falls back)",
    streamingLists: false,
    listMode: "auto",
    lists: true,
  },
  { name: "paginated (as told)", streamingLists: true, listMode: "paginate", lists: true },
] as const;

for (const mode of MODES) {
  Deno.test(`${OBJECTS} objects existing at start are all handled, listed ${mode.name}`, async () => {
    await using cluster = await FakeCluster.start({ streamingLists: mode.streamingLists });
    cluster.create(kexCrd());
    for (let i = 0; i < OBJECTS; i++) cluster.create(kex(`kex-${i}`));
    const registry = clusterRegistry(cluster);
    index("kopfexamples", { registry }, function names({ name }) {
      return { all: name };
    });
    const handled = new Calls<string>();
    /** How many objects the index held whenever a handler ran: all of them, always. */
    const indexed = new Set<number>();
    type Kwargs = { name: string; type: string | null; names: Index<string, string> };
    on.event("kopfexamples", { registry }, ({ name, type, names }: Kwargs) => {
      if (type !== null && type !== "ADDED") return;
      indexed.add(names.get("all")?.size ?? 0);
      handled.add(String(name));
    });
    const op = await startOperator(registry, {
      settings: testSettings({ watching: { listPageSize: PAGE, listMode: mode.listMode } }),
    });
    try {
      await handled.until(OBJECTS, () => true, 60);
    } finally {
      await op.stop();
    }
    assertEquals(new Set(handled.list).size, OBJECTS);
    assertEquals([...indexed], [OBJECTS]);

    const requests = cluster.requests.filter((r) => r.path.endsWith("/kopfexamples"));
    // Before the listing, the version to watch live events from beside it (one object).
    const versions = requests.filter((r) => r.verb === "list" && r.query === "limit=1");
    assertEquals(versions.length, 1);
    const lists = requests.filter((r) =>
      r.verb === "list" && r.status === 200 && !versions.includes(r)
    );
    const streamed = requests.filter((r) =>
      r.verb === "watch" && r.status === 200 && r.query.includes("sendInitialEvents=true")
    );
    if (mode.lists) {
      // Every page within the limit; together exactly the objects, once.
      assert(lists.every((r) => r.items !== undefined && r.items <= PAGE), JSON.stringify(lists));
      assertEquals(lists.reduce((sum, r) => sum + (r.items ?? 0), 0), OBJECTS);
      assertEquals(lists.length, Math.ceil(OBJECTS / PAGE));
      assertEquals(streamed.length, 0);
    } else {
      assertEquals(lists.length, 0);
      assertEquals(streamed.length, 1);
    }
  });
}
