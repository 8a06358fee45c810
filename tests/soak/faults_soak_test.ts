/**
 * The operator under trouble: every watch stream is cut each second and 5% of PATCH
 * requests fail with 500, while 500 objects are created, changed and deleted. Each
 * object must end fully handled, and each change must be handled exactly once — no
 * lost events after reconnects, no handler re-run because a patch failed.
 */
import { parse as parseYaml } from "yaml";
import { assert, assertEquals } from "../assert.ts";
import { kopf } from "../../mod.ts";
import type { RawBody } from "../../mod.ts";
import { FakeCluster } from "../../src/testing/mod.ts";

const COUNT = 500;
const KIND = "kopfexamples.kopf.dev";
const LAST_HANDLED = "kopf.zalando.org/last-handled-configuration";
const FINALIZER = "kopf.zalando.org/KopfFinalizerMarker";

function names(): string[] {
  return Array.from({ length: COUNT }, (_, i) => `soak-${String(i).padStart(3, "0")}`);
}

/**
 * Do something to every object, spread over about 1.5 seconds (25 objects every 75 ms),
 * so that each phase spans at least one dropped watch.
 */
async function paced(action: (name: string) => void): Promise<void> {
  const all = names();
  for (let i = 0; i < all.length; i++) {
    action(all[i]);
    if (i % 25 === 24) await new Promise((resolve) => setTimeout(resolve, 75));
  }
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** Wait until every object satisfies the predicate; event-driven, no polling. */
async function waitForAll(
  cluster: FakeCluster,
  predicate: (o: RawBody | undefined) => boolean,
): Promise<void> {
  await Promise.all(names().map((name) => cluster.waitFor(KIND, name, predicate, { timeout: 90 })));
}

function handled(value: string) {
  return (o: RawBody | undefined) => {
    const annotations = o?.metadata?.annotations ?? {};
    const progress = Object.keys(annotations).filter((k) =>
      k.startsWith("kopf.zalando.org/") && k !== LAST_HANDLED
    );
    return (annotations[LAST_HANDLED] ?? "").includes(`"field":"${value}"`) &&
      progress.length === 0;
  };
}

// With the framework's writes by merge patches (Kopf's), and by server-side apply.
for (const outcomes of [false, true]) {
  Deno.test({
    name: "500 objects under dropped watches and failing patches: each change handled once" +
      (outcomes ? ", the writes by server-side apply" : ""),
    async fn() {
      await using cluster = await FakeCluster.start({ historySize: 100_000 });
      const crdUrl = new URL("../../examples/crd.yaml", import.meta.url);
      cluster.create(parseYaml(await Deno.readTextFile(crdUrl)) as RawBody);

      const created = new Map<string, number>();
      const updated = new Map<string, number>();
      const deleted = new Map<string, number>();
      const registry = new kopf.OperatorRegistry();
      kopf.on.login({ registry, id: "soak-login" }, () => cluster.connectionInfo);
      kopf.on.create(KIND, { registry }, function createFn({ name }) {
        increment(created, name!);
        return { created: true };
      });
      const diffs = new Set<string>();
      kopf.on.update(KIND, { registry }, function updateFn({ name, diff }) {
        increment(updated, name!);
        diffs.add(JSON.stringify(diff));
      });
      kopf.on.delete(KIND, { registry }, function deleteFn({ name }) {
        increment(deleted, name!);
      });

      const settings = new kopf.OperatorSettings({
        posting: { enabled: false },
        networking: { errorBackoffs: [0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 1, 1] },
        batching: { errorDelays: [0.1, 0.2, 0.5, 1] },
        applying: { outcomes },
      });
      const lines: string[] = [];
      kopf.configure({ quiet: true, writer: (line) => lines.push(line) });

      let failedPatches = 0;
      let watches = 0;
      const stop = new AbortController();
      let ready!: () => void;
      const started = new Promise<void>((resolve) => (ready = resolve));
      const operator = kopf.operator({
        registry,
        settings,
        clusterwide: true,
        standalone: true,
        signal: stop.signal,
        onReady: () => ready(),
      });
      try {
        await Promise.race([started, operator]);
        cluster.faults.dropWatchesEvery(1);
        cluster.faults.failRequests({ share: 0.05, status: 500, verbs: ["patch"] });

        await paced((name) =>
          cluster.create({
            apiVersion: "kopf.dev/v1",
            kind: "KopfExample",
            metadata: { name },
            spec: { field: "one" },
          })
        );
        await waitForAll(cluster, handled("one"));

        await paced((name) => cluster.patch(KIND, name, { spec: { field: "two" } }));
        await waitForAll(cluster, handled("two"));

        await paced((name) => cluster.delete(KIND, name));
        await waitForAll(cluster, (o) => o === undefined);
      } finally {
        // The request log keeps the newest entries only: count before it rotates further.
        for (const r of cluster.requests) {
          if (r.method === "PATCH" && r.status === 500) failedPatches++;
          if (r.verb === "watch") watches++;
        }
        cluster.faults.clear();
        stop.abort();
        await operator;
      }

      assert(failedPatches > 0, "the fault injection did fail some patches");
      assert(watches >= 6, `the watches were dropped and resumed (${watches} watch requests)`);
      for (
        const [what, counts] of [["create", created], ["update", updated], [
          "delete",
          deleted,
        ]] as const
      ) {
        const wrong = names().filter((name) => counts.get(name) !== 1)
          .map((name) => `${name}: ${counts.get(name) ?? 0}`);
        assertEquals(wrong, [], `${what} handlers ran exactly once per object`);
      }
      assertEquals(
        [...diffs],
        ['[["change",["spec","field"],"one","two"]]'],
        "every update saw its change",
      );
      assertEquals(cluster.list(KIND).length, 0);
      assert(!lines.some((l) => l.includes(FINALIZER) && l.includes("ERROR")), lines.join("\n"));
    },
  });
}
