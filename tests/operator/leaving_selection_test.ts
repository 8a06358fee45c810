/**
 * An object that leaves a watch's label selection, as a real API server reports it: a
 * `DELETED` event with the object's previous content (which still matches) at the new
 * resourceVersion. The operator reads the object to tell a leaving from a deletion: our
 * finalizer is released at once, no deletion handler runs, `kopf.on.event` is not told
 * `DELETED` for an object that exists, and nothing is stuck after a restart. Run through a
 * proxy that rewrites the `DELETED` events as kube-apiserver's cacher does, and directly
 * against the fake cluster. Without a selector, a `DELETED` causes no read at all.
 */
import { available } from "../platform/commands.ts";
import { assert, assertEquals } from "../assert.ts";
import { on } from "../../src/intents/registration.ts";
import { OperatorRegistry } from "../../src/intents/registry.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { CacherProxy } from "./cacher_proxy.ts";
import { Calls, FINALIZER, startOperator } from "./harness.ts";

const hasKubectl = await available("kubectl", ["version", "--client"]);
const DEMO = { app: "demo" };

function demo(name: string): RawBody {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: DEMO }, data: {} };
}

function finalized(body: RawBody | undefined): boolean {
  return body?.metadata?.finalizers?.includes(FINALIZER) ?? false;
}

/** Handlers filtered by `app=demo` (selectors derived), logging in to `server`. */
function demoRegistry(cluster: FakeCluster, server: string, calls: Calls<string>) {
  const registry = new OperatorRegistry({ onWarning: () => {} });
  on.login({ registry, id: "via" }, () => ({ ...cluster.connectionInfo, server }));
  on.create("configmaps", { registry, labels: DEMO }, function created({ name }) {
    calls.add(`created ${name}`);
  });
  on.delete("configmaps", { registry, labels: DEMO }, function deleted({ name }) {
    calls.add(`deleted ${name}`);
  });
  on.event("configmaps", { registry, labels: DEMO }, function seen({ type, name }) {
    calls.add(`event ${type} ${name}`);
  });
  return registry;
}

/** `kubectl delete` of a ConfigMap (it waits until the object is gone); its exit code. */
async function kubectlDelete(cluster: FakeCluster, name: string): Promise<number> {
  const kubeconfig = await cluster.writeKubeconfig();
  const child = new Deno.Command("kubectl", {
    args: [`--kubeconfig=${kubeconfig}`, "delete", "configmap", name, "--timeout=20s"],
    stdout: "piped",
    stderr: "piped",
  });
  return (await child.output()).code;
}

/** Leave the selection, delete, restart, leave again: what runs, and what holds objects. */
async function leavingScenario(viaProxy: boolean): Promise<void> {
  await using cluster = await FakeCluster.start();
  await using proxy = viaProxy ? new CacherProxy(cluster.url) : undefined;
  const calls = new Calls<string>();
  const registry = demoRegistry(cluster, proxy?.url ?? cluster.url, calls);
  let operator = await startOperator(registry, { namespaces: ["default"] });
  try {
    cluster.create(demo("leaving"));
    cluster.create(demo("going"));
    await cluster.waitFor("configmaps", "leaving", finalized);
    await cluster.waitFor("configmaps", "going", finalized);
    await calls.until(1, (c) => c === "created leaving");
    const since = Date.now();
    cluster.patch("configmaps", "leaving", { metadata: { labels: { app: null } } });
    await cluster.waitFor("configmaps", "leaving", (b) => b !== undefined && !finalized(b));
    assert(Date.now() - since < 5000, `released after ${Date.now() - since} ms`);
    assertEquals(await kubectlDelete(cluster, "leaving"), 0);
    assertEquals(cluster.get("configmaps", "leaving"), undefined);
    // A real deletion of a selected object is one: its handler runs, on.event is told.
    cluster.delete("configmaps", "going");
    await cluster.waitFor("configmaps", "going", (b) => b === undefined);
    await calls.until(1, (c) => c === "event DELETED going");
    // A restart: nothing is stuck, and an object that leaves then is let go as well.
    await operator.stop();
    operator = await startOperator(registry, { namespaces: ["default"] });
    cluster.create(demo("later"));
    await cluster.waitFor("configmaps", "later", finalized);
    cluster.patch("configmaps", "later", { metadata: { labels: { app: null } } });
    await cluster.waitFor("configmaps", "later", (b) => b !== undefined && !finalized(b));
    assertEquals(await kubectlDelete(cluster, "later"), 0);
  } finally {
    await operator.stop();
  }
  assert(calls.list.includes("deleted going"), calls.list.join(", "));
  assert(!calls.list.includes("deleted leaving"), calls.list.join(", "));
  assert(!calls.list.includes("deleted later"), calls.list.join(", "));
  for (const name of ["leaving", "later"]) {
    assert(!calls.list.includes(`event DELETED ${name}`), `on.event told DELETED for ${name}`);
  }
  assertEquals(cluster.list("configmaps", { namespace: "default" }).filter(finalized), []);
}

Deno.test({
  name: "through a proxy sending DELETED as kube-apiserver's cacher does: a label removed releases",
  ignore: !hasKubectl,
  fn: () => leavingScenario(true),
});

Deno.test({
  name: "directly against the fake cluster: a label removed releases the finalizer, no deletion",
  ignore: !hasKubectl,
  fn: () => leavingScenario(false),
});

/** The GETs of one ConfigMap served since the request log had `from` entries. */
function readsOf(cluster: FakeCluster, name: string, from: number): number {
  return cluster.requests.slice(from).filter((r) =>
    r.method === "GET" && r.path === `/api/v1/namespaces/default/configmaps/${name}`
  ).length;
}

Deno.test("a DELETED is read to confirm on a selective watch only; without selectors, no GET", async () => {
  await using cluster = await FakeCluster.start();
  const calls = new Calls<string>();
  const registry = new OperatorRegistry({ onWarning: () => {} });
  on.login({ registry, id: "direct" }, () => cluster.connectionInfo);
  on.event("configmaps", { registry }, function all({ type, name }) {
    calls.add(`all ${type} ${name}`);
  });
  on.event("configmaps", { registry, labels: DEMO }, function selected({ type, name }) {
    calls.add(`selected ${type} ${name}`);
  });
  // Two handlers, two selections: the same objects on one watch without selectors.
  const unselective = await startOperator(registry, { namespaces: ["default"] });
  try {
    cluster.create(demo("plain"));
    await calls.until(1, (c) => c === "all ADDED plain");
    const from = cluster.requests.length;
    cluster.delete("configmaps", "plain");
    await calls.until(1, (c) => c === "all DELETED plain");
    assertEquals(readsOf(cluster, "plain", from), 0, "no read for a DELETED without selectors");
  } finally {
    await unselective.stop();
  }
  const selective = new Calls<string>();
  const selecting = demoRegistry(cluster, cluster.url, selective);
  const operator = await startOperator(selecting, { namespaces: ["default"] });
  try {
    cluster.create(demo("chosen"));
    await cluster.waitFor("configmaps", "chosen", finalized);
    const from = cluster.requests.length;
    cluster.delete("configmaps", "chosen");
    await selective.until(1, (c) => c === "event DELETED chosen");
    assert(readsOf(cluster, "chosen", from) >= 1, "a read confirms the deletion");
  } finally {
    await operator.stop();
  }
});
