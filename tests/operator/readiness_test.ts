/**
 * The operator's readiness: `onReady` fires only after the initial listings, so objects
 * created afterwards arrive as watch events; a resource without its CRD does not hold it.
 */
import { assertEquals } from "../assert.ts";
import { on } from "../../src/intents/registration.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { Calls, clusterRegistry, kex, startCluster, whileRunning } from "./harness.ts";

Deno.test("an object created right after onReady arrives as a watch event", async () => {
  await using cluster = await startCluster();
  cluster.create(kex("old"));
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.event("kopfexamples", { registry }, ({ type, name }) => calls.add(`${type} ${name}`));
  await whileRunning(registry, async () => {
    cluster.create(kex("new"));
    await calls.until(2);
  });
  assertEquals(calls.list.toSorted(), ["ADDED new", "null old"]);
});

Deno.test("a served resource whose CRD is absent does not hold the readiness", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm", namespace: "default" },
  });
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.event("kopfexamples", { registry }, ({ name }) => calls.add(`kex ${name}`));
  on.event("configmaps", { registry }, ({ type, name }) => calls.add(`${type} ${name}`));
  // whileRunning fails the test if the operator does not become ready in time.
  await whileRunning(registry, async () => {
    await calls.until(1);
  });
  assertEquals(calls.list, ["null cm"]);
});
