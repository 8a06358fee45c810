/**
 * Built-in objects typed by their plural names, where a test or a child handler names them:
 * what the first-day user wrote compiles with no cast and no type argument.
 */
import { assertEquals } from "../assert.ts";
import { kopf, type RawBody, type RawMeta } from "../../mod.ts";
import { FakeCluster } from "../../src/testing/mod.ts";

Deno.test("FakeCluster.get/list/waitFor type a ConfigMap named by its plural", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "x" },
    data: { message: "hello" },
  });
  const message: string | undefined = cluster.get("configmaps", "x")?.data?.message;
  const all: (string | undefined)[] = cluster.list("configmaps").map((cm) => cm.data?.message);
  const waited = await cluster.waitFor("configmaps", "x", (cm) => cm?.data?.message === "hello");
  const secret = cluster.get("secrets", "absent")?.data?.password;
  const raw: RawBody | undefined = cluster.get("configmaps", "x"); // still a raw body
  assertEquals(message, "hello");
  assertEquals(all.includes("hello"), true);
  assertEquals(waited?.data?.message, "hello");
  assertEquals(secret, undefined);
  assertEquals(raw?.metadata?.name, "x");
});

Deno.test("kopf.on.child types the child from the child resource", () => {
  const registry = new kopf.OperatorRegistry();
  const seen: (string | undefined)[] = [];
  kopf.on.child("kopfexamples", "configmaps", { registry }, function repair({ child }) {
    seen.push(child.data?.message); // a string: the ConfigMap's data
  });
  interface Widget {
    metadata?: RawMeta;
    spec?: { size?: number };
  }
  kopf.on.child("kopfexamples", kopf.resource<Widget>("widgets"), {
    registry,
    id: "widget",
  }, ({ child }) => {
    const size: number | undefined = child.spec?.size;
    return size;
  });
  kopf.on.child("kopfexamples", "deployments.apps", { registry, id: "app" }, ({ child }) => {
    const replicas: unknown = child.spec?.replicas; // the generic body: JSON values
    return replicas;
  });
  assertEquals(seen, []);
});
