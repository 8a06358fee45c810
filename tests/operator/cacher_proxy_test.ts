/**
 * The proxy that sends watches' `DELETED` events as kube-apiserver's cacher does: in front
 * of a server that sends the new state of an object that stopped matching, the client gets
 * the previous content at the new resourceVersion; everything else passes unchanged.
 */
import { assertEquals } from "../assert.ts";
import { CacherProxy } from "./cacher_proxy.ts";

const state = (rv: string, labels?: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "x", uid: "u-1", resourceVersion: rv, ...(labels ? { labels } : {}) },
  data: { k: rv },
});

Deno.test("a DELETED with the new state is sent with the previous content at its version", async () => {
  const lines = [
    { type: "ADDED", object: state("1", { app: "demo" }) },
    { type: "MODIFIED", object: state("2", { app: "demo" }) },
    { type: "DELETED", object: state("3") }, // the new state, as a naive server sends it
    { type: "BOOKMARK", object: { kind: "ConfigMap", metadata: { resourceVersion: "4" } } },
  ].map((line) => JSON.stringify(line) + "\n").join("");
  await using upstream = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => new Response(new URL(request.url).search.includes("watch") ? lines : "{}"),
  );
  await using proxy = new CacherProxy(`http://127.0.0.1:${upstream.addr.port}`);
  const response = await fetch(`${proxy.url}/api/v1/configmaps?watch=true`);
  const events = (await response.text()).trim().split("\n").map((l) => JSON.parse(l));
  assertEquals(events.map((e) => e.type), ["ADDED", "MODIFIED", "DELETED", "BOOKMARK"]);
  assertEquals(events[2].object.metadata, {
    ...state("2", { app: "demo" }).metadata,
    resourceVersion: "3",
  });
  assertEquals(events[2].object.data, { k: "2" });
  assertEquals(events[3].object.metadata.resourceVersion, "4");
  const plain = await fetch(`${proxy.url}/api/v1/configmaps`);
  assertEquals(await plain.text(), "{}", "a request that is no watch passes unchanged");
});
