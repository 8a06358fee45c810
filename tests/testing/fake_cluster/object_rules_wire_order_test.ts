/**
 * The order of an object's members as kube-apiserver writes them: a custom resource is a map
 * to Go's `encoding/json`, which sorts every object's keys -- in answers, listings and watch
 * events alike, whatever order the client wrote them in.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assert, assertEquals } from "../../assert.ts";
import { exampleCrd } from "./helpers.ts";

const KEX = "/apis/kopf.dev/v1/namespaces/default/kopfexamples";

/** The members of every object of the JSON text, in the order written, keys only. */
function keyOrders(text: string): string[][] {
  const orders: string[][] = [];
  JSON.parse(text, function (this: unknown, _key, value) {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      orders.push(Object.keys(value));
    }
    return value;
  });
  return orders;
}

function sorted(text: string): boolean {
  return keyOrders(text).every((keys) => keys.join("\u0000") === [...keys].sort().join("\u0000"));
}

async function send(cluster: FakeCluster, method: string, path: string, body?: unknown) {
  const response = await fetch(cluster.url + path, {
    method,
    headers: {
      "content-type": method === "PATCH" ? "application/merge-patch+json" : "application/json",
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert(response.ok, `${method} ${path}: ${response.status}`);
  return await response.text();
}

Deno.test("a custom resource comes with every object's members sorted, as Go writes a map", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(exampleCrd());
  const watch = await fetch(`${cluster.url}${KEX}?watch=true&resourceVersion=1`);
  const created = await send(cluster, "POST", KEX, {
    spec: { field: "x", free: { zeta: 1, alpha: { z: 1, a: 2 } } },
    metadata: { namespace: "default", name: "one", labels: { b: "1", a: "2" } },
    kind: "KopfExample",
    apiVersion: "kopf.dev/v1",
  });
  assert(sorted(created), created);
  assertEquals(keyOrders(created).at(-1), ["apiVersion", "kind", "metadata", "spec"]);
  const patched = await send(cluster, "PATCH", `${KEX}/one`, {
    spec: { free: { middle: true } },
    metadata: { annotations: { z: "1", a: "2" } },
  });
  assert(sorted(patched), patched);
  assert(sorted(await send(cluster, "GET", `${KEX}/one`)));
  const listed = await send(cluster, "GET", KEX);
  assert(sorted(JSON.stringify(JSON.parse(listed).items)), listed);
  const dryRun = await send(cluster, "PATCH", `${KEX}/one?dryRun=All`, { spec: { new: 1 } });
  assert(sorted(dryRun), dryRun);
  const reader = watch.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (text.split("\n").length < 3) text += (await reader.read()).value ?? "";
  const [added, modified] = text.split("\n");
  for (const line of [added, modified]) {
    assert(line.startsWith('{"type":'), line);
    assert(sorted(JSON.stringify(JSON.parse(line).object)), line);
  }
  await reader.cancel();
});
