/**
 * Metadata-only watching: when every handler of a resource declares `metadataOnly`, its
 * objects come without their bodies' other fields, in their own kind; `fetchBody()` reads
 * the whole object; the progress and the diff-base (annotations) work as before; one
 * handler that needs whole objects, or a storage that reads the status, means whole ones.
 */
import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
  assertThrows,
} from "../assert.ts";
import { APINotFoundError } from "../../src/client/api_errors.ts";
import { patternOf, quote } from "../doc_quotes.ts";
import { daemon, index, on, timer } from "../../src/intents/registration.ts";
import { RegistrationError } from "../../src/intents/handler_options.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { StatusProgressStorage } from "../../src/settings/object_progress_storages.ts";
import {
  Calls,
  clusterRegistry,
  DIFFBASE,
  kex,
  LOGS,
  startCluster,
  testSettings,
  whileRunning,
} from "./harness.ts";

const BIG = "x".repeat(10_000);

function configmap(name: string, labels: Record<string, string> = {}): RawBody {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "default", labels },
    data: { big: BIG },
  };
}

interface Seen {
  name: string;
  kind: unknown;
  apiVersion: unknown;
  data: unknown;
  fetched: unknown;
}

Deno.test("all handlers metadata-only: bodies without data, fetchBody reads the whole object", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const seen = new Calls<Seen>();
  const updates = new Calls<string>();
  on.create("configmaps", { registry, metadataOnly: true }, async function created(kwargs) {
    const whole = await kwargs.fetchBody();
    seen.add({
      name: kwargs.name!,
      kind: kwargs.body.kind,
      apiVersion: kwargs.body.apiVersion,
      data: kwargs.body.data,
      fetched: (whole.data as Record<string, string> | undefined)?.big?.length,
    });
    return { labels: Object.keys(kwargs.labels).length };
  });
  on.update("configmaps", { registry, metadataOnly: true }, function updated({ name, diff }) {
    updates.add(`${name}: ${diff.map((d) => d[1].join(".")).join(",")}`);
  });
  index("configmaps", { registry, metadataOnly: true }, function byName({ name }) {
    return { [name ?? ""]: true };
  });
  cluster.create(configmap("before", { app: "a" }));
  await whileRunning(registry, async () => {
    cluster.create(configmap("after"));
    await seen.until(2);
    await cluster.waitFor(
      "configmaps",
      "after",
      (b) => b?.metadata?.annotations?.[DIFFBASE] !== undefined,
    );
    // A label's change is an update; a change of the data alone is not seen by the handlers.
    cluster.patch("configmaps", "before", { data: { big: "changed" } }, { namespace: "default" });
    cluster.patch("configmaps", "before", { metadata: { labels: { app: "b" } } }, {
      namespace: "default",
    });
    await updates.until(1);
  });
  const sorted = seen.list.sort((a, b) => a.name < b.name ? -1 : 1);
  assertEquals(sorted, [
    { name: "after", kind: "ConfigMap", apiVersion: "v1", data: undefined, fetched: BIG.length },
    { name: "before", kind: "ConfigMap", apiVersion: "v1", data: undefined, fetched: BIG.length },
  ]);
  assertEquals(updates.list, ["before: metadata.labels.app"]);
  // The diff-base holds what the handlers saw: the metadata, never the data.
  const stored = cluster.get("configmaps", "after", { namespace: "default" })!;
  const diffbase = JSON.parse(stored.metadata!.annotations![DIFFBASE]);
  assertEquals(diffbase.data, undefined);
  // The handler's result goes to the status, as for whole objects; a ConfigMap's type has none,
  // and the API server drops it, as a real one does.
  assertEquals(stored.status, undefined);
  // As docs/large-clusters.md quotes it.
  const quoted = await quote("large-clusters.md", "… (…; metadata only");
  assert(
    LOGS.some((line) => patternOf(quoted).test(line)),
    "the debug log says the watch is metadata-only",
  );
});

Deno.test("one handler without metadataOnly: whole objects are watched", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const seen = new Calls<string>();
  on.create("configmaps", { registry, metadataOnly: true }, function light({ name, body }) {
    seen.add(`light ${name} ${typeof body.data}`);
  });
  daemon("configmaps", { registry }, async function whole({ name, body, stopped }) {
    seen.add(`whole ${name} ${typeof body.data}`);
    await stopped.wait();
  });
  cluster.create(configmap("one"));
  await whileRunning(registry, () => seen.until(2));
  assertEquals(seen.list.sort(), ["light one object", "whole one object"]);
});

Deno.test("progress kept in the status: a warning, and whole objects", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const seen = new Calls<string>();
  timer(
    "configmaps",
    { registry, metadataOnly: true, interval: 0.1 },
    function ticked({ name, body }) {
      seen.add(`${name} ${typeof body.data}`);
    },
  );
  cluster.create(configmap("one"));
  const before = LOGS.length;
  await whileRunning(registry, () => seen.until(1), {
    settings: testSettings({ persistence: { progressStorage: new StatusProgressStorage() } }),
  });
  assertEquals(seen.list[0], "one object");
  assert(
    LOGS.slice(before).some((line) =>
      line.includes("declare metadataOnly, but settings.persistence.progressStorage reads")
    ),
    "a warning says why whole objects are watched",
  );
});

Deno.test("a deleted object: fetchBody rejects as the API does", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const outcome = new Calls<string>();
  on.create("configmaps", { registry, metadataOnly: true }, async function late({ fetchBody }) {
    cluster.delete("configmaps", "gone", { namespace: "default" });
    await assertRejects(() => fetchBody());
    outcome.add("rejected");
  });
  cluster.create(configmap("gone"));
  await whileRunning(registry, () => outcome.until(1));
});

Deno.test("a namesake made before fetchBody: it rejects, nothing is written to the namesake, whose own handler runs", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const outcome = new Calls<string>();
  const DEMO = { app: "demo" };
  let first: string | undefined;
  on.create("configmaps", { registry, metadataOnly: true, labels: DEMO }, async function made({
    uid,
    retry,
    body,
    fetchBody,
  }) {
    if (first === undefined) {
      first = uid;
      cluster.delete("configmaps", "twin", { namespace: "default" });
      cluster.create({ ...configmap("twin"), data: { big: "second" } }); // not matching yet
      const error = await assertRejects(() => fetchBody(), APINotFoundError);
      assertStringIncludes(error.message, "another one");
      outcome.add(`rejected for the first`);
      throw error; // its outcome (a retry) is stored: by name, onto the namesake, unless refused
    }
    const whole = await fetchBody();
    const data = whole.data as Record<string, string> | undefined;
    const kopfs = Object.keys(body.metadata?.annotations ?? {}).filter((a) => a.startsWith("kopf"));
    outcome.add(`${uid === first ? "first" : "namesake"} ${data?.big} retry ${retry} [${kopfs}]`);
  });
  cluster.create(configmap("twin", DEMO));
  await whileRunning(registry, async () => {
    await outcome.until(1);
    // The first object's outcome goes to the name, and is refused for its uid.
    const sent = await cluster.waitForRequest((r) =>
      r.method === "PATCH" && r.path.endsWith("/configmaps/twin") && r.status >= 400
    );
    assertEquals(sent.status, 422);
    const namesake = cluster.get("configmaps", "twin", { namespace: "default" })!;
    assertEquals(namesake.metadata?.annotations, undefined, "nothing written to the namesake");
    cluster.patch("configmaps", "twin", { metadata: { labels: DEMO } }, { namespace: "default" });
    await outcome.until(2);
  });
  assertEquals(outcome.list, ["rejected for the first", "namesake second retry 0 []"]);
  const twin = cluster.get("configmaps", "twin", { namespace: "default" })!;
  assert(twin.metadata?.uid !== first);
  assert(twin.metadata?.annotations?.[DIFFBASE] !== undefined, "the namesake is handled");
});

Deno.test("metadataOnly filters on metadata only; sub-handlers and webhooks do not take it", () => {
  const registry = clusterRegistry({ connectionInfo: {} } as never);
  assertThrows(
    () => on.field("configmaps", { registry, metadataOnly: true, field: "data.big" }, () => {}),
    RegistrationError,
    'option "field" filters data.big, which a metadata-only watch',
  );
  on.field("configmaps", {
    registry,
    metadataOnly: true,
    field: "metadata.labels.app",
  }, function byLabel() {});
  assertThrows(
    () => on.validate("configmaps", { registry, metadataOnly: true } as never, () => {}),
    RegistrationError,
    'option "metadataOnly" is not accepted here',
  );
  assertThrows(
    () => on.create("configmaps", { registry, metadataOnly: "yes" } as never, () => {}),
    RegistrationError,
    'option "metadataOnly" must be true or false',
  );
});

Deno.test("metadata-only objects get metadata-only answers to their patches; the data stays whole", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const done = new Calls<string>();
  on.create("configmaps", { registry, metadataOnly: true }, function stamp({ name, patch }) {
    patch.metadata.labels = { stamped: "yes" };
    done.add(String(name));
    return { ok: true };
  });
  // A daemon keeps our finalizer: the first cycle adds it beside the outcome.
  daemon("configmaps", { registry, metadataOnly: true }, async function idle({ stopped }) {
    await stopped.wait();
  });
  cluster.create(configmap("one"));
  await whileRunning(registry, async () => {
    await done.until(1);
    await cluster.waitFor("configmaps", "one", (b) => b?.metadata?.labels?.stamped === "yes", {
      namespace: "default",
    });
  });
  const body = cluster.get("configmaps", "one", { namespace: "default" })!;
  assertEquals((body.data as Record<string, string>).big.length, BIG.length, "the data stays");
  // The outcome written to the status is dropped by the API server: a ConfigMap has none.
  assertEquals(body.status, undefined);
  // Every PATCH of it asked for metadata only in its answer.
  const patches = cluster.requests.filter((r) =>
    r.method === "PATCH" && r.path.includes("/configmaps/")
  );
  assert(patches.length > 0);
  for (const patch of patches) {
    assert(patch.accept?.includes("as=PartialObjectMetadata"), `${patch.path}: ${patch.accept}`);
  }
});

Deno.test("a custom resource watched as metadata only gets no conditions, and no write loop", async () => {
  await using cluster = await startCluster({ status: true });
  const registry = clusterRegistry(cluster);
  const done = new Calls<string>();
  on.create("kopfexamples", { registry, metadataOnly: true }, function light({ name }) {
    done.add(String(name));
    return { seen: true };
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("one"));
    await done.until(1);
    await cluster.waitFor(
      "kopfexamples",
      "one",
      (b) => b?.metadata?.annotations?.[DIFFBASE] !== undefined,
    );
    // Long enough for the echoes of our writes to come back and be processed.
    await new Promise((resolve) => setTimeout(resolve, 1000));
  });
  const patches = cluster.requests.filter((r) =>
    r.method === "PATCH" && r.path.includes("/kopfexamples/one")
  );
  assert(patches.length <= 3, `${patches.length} PATCH requests: ${patches.map((p) => p.path)}`);
  const body = cluster.get("kopfexamples", "one")!;
  assertEquals((body.status as Record<string, unknown>).conditions, undefined);
  assertEquals((body.status as Record<string, unknown>).light, { seen: true });
});
