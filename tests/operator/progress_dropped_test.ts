/**
 * A progress storage whose records the API server drops — `StatusProgressStorage` on
 * ConfigMaps, which have no `status`: a real server drops the field, with a warning — must
 * not make the operator run the same handler again and again as fast as its writes go. It
 * says so in one line, naming the setting, and waits for the object's next change.
 */
import { assert, assertEquals } from "../assert.ts";
import { on } from "../../src/intents/registration.ts";
import { OperatorRegistry } from "../../src/intents/registry.ts";
import { StatusProgressStorage } from "../../src/settings/object_progress_storages.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { Calls, testSettings, untilLogged, whileRunning } from "./harness.ts";

const LOST = "is not kept: the API server dropped what settings.persistence.progressStorage wrote";

function configmap(name: string, labels: Record<string, string> = {}): RawBody {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels }, data: {} };
}

/** The object's `count`-th log line containing `text`, once it is written. */
function logged(name: string, text: string, count = 1): Promise<string> {
  return untilLogged((line) => line.includes(`[default/${name}]`) && line.includes(text), count);
}

Deno.test("progress dropped by the server: one error line, no handler run twice for one change", async () => {
  await using cluster = await FakeCluster.start();
  const calls = new Calls<string>();
  const registry = new OperatorRegistry({ onWarning: () => {} });
  on.login({ registry, id: "fake" }, () => cluster.connectionInfo);
  on.create("configmaps", { registry }, function first({ name }) {
    calls.add(`first ${name}`);
  });
  on.create("configmaps", { registry }, function second({ name }) {
    calls.add(`second ${name}`);
  });
  on.update("configmaps", { registry }, function updated({ name }) {
    calls.add(`updated ${name}`);
  });
  const patches = (name: string) =>
    cluster.requests.filter((r) => r.method === "PATCH" && r.path.endsWith(`/${name}`)).length;
  const settings = testSettings({ persistence: { progressStorage: new StatusProgressStorage() } });
  await whileRunning(registry, async () => {
    cluster.create(configmap("x"));
    const line = await logged("x", LOST);
    assert(line.includes("first"), line);
    assert(line.includes("kopf.AnnotationsProgressStorage"), line);
    // Another object, handled after: by then a spinning operator would have run x's again.
    cluster.create(configmap("y"));
    await logged("y", LOST);
    assertEquals(calls.count((c) => c === "first x"), 1);
    assertEquals(calls.count((c) => c === "second x"), 0);
    assertEquals(patches("x"), 1);
    assertEquals(cluster.get("configmaps", "x")?.status, undefined);
    // The next change is the next chance: the creation's handler runs once more, not forever.
    cluster.patch("configmaps", "x", { metadata: { labels: { changed: "yes" } } });
    await logged("x", LOST, 2);
    assertEquals(calls.count((c) => c === "first x"), 2);
    assertEquals(patches("x"), 2);
  }, { settings });
});
