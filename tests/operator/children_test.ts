/**
 * `kopf.on.child`: a change to an owned object runs its parent's child handler — the child
 * whole, its event, the parent's arguments — while objects owned by others, or by nobody,
 * trigger nothing and are not even sent (the children's watch selects by the owner-kind
 * label that `kopf.adopt()` sets, and carries metadata only).
 */
import { assert, assertEquals } from "../assert.ts";
import { kopf } from "../../mod.ts";
import { on } from "../../src/intents/registration.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import type { FakeCluster } from "../../src/testing/fake_cluster/mod.ts";
import { createObject } from "../../src/client/objects.ts";
import { currentOperatorClient } from "../../src/engines/operator_client.ts";
import { Resource } from "../../src/structs/resources.ts";
import {
  Calls,
  clusterRegistry,
  handled,
  kex,
  LOGS,
  startCluster,
  whileRunning,
} from "./harness.ts";

const OWNER_KIND = "kopf.zalando.org/owner-kind";
const CONFIGMAPS = new Resource({
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
});

/** A ConfigMap made a child of the parent, as a handler would with kopf.adopt(). */
function childOf(parent: RawBody, data: Record<string, string>): RawBody {
  const name = String(parent.metadata?.name);
  const child: RawBody = { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data };
  kopf.adopt(child, { owner: parent as never });
  return child;
}

/** The list and watch requests of configmaps so far, with their label selectors. */
function childRequests(cluster: FakeCluster): (string | null)[] {
  return cluster.requests
    .filter((r) => r.path.endsWith("/configmaps") && (r.verb === "list" || r.verb === "watch"))
    .map((r) => new URLSearchParams(r.query).get("labelSelector"));
}

Deno.test("a child edited or deleted runs its parent's child handler, which repairs it", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const seen = new Calls<string>();
  on.create("kopfexamples", { registry }, function make({ body }) {
    const child = childOf(body as unknown as RawBody, { wanted: "yes" });
    cluster.create(child);
  });
  on.child("kopfexamples", "configmaps", { registry }, function repair(kwargs) {
    const { name, child, childEvent, spec } = kwargs;
    seen.add(`${name} ${childEvent} ${child.metadata.name} data=${JSON.stringify(child.data)}`);
    const wanted = { wanted: "yes" };
    if (childEvent === "DELETED") {
      cluster.create(childOf(kwargs.body as unknown as RawBody, wanted));
    } else if (JSON.stringify(child.data) !== JSON.stringify(wanted)) {
      cluster.patch(
        "configmaps",
        String(child.metadata.name),
        { data: { ...wanted, drift: null } },
        {
          namespace: "default",
        },
      );
    }
    return { repaired: childEvent, field: spec.field };
  });
  // Not children of ours: nobody's, and another kind's (labelled as adopt() would).
  const plain = cluster.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "plain", namespace: "default" },
  });
  cluster.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "foreign",
      namespace: "default",
      labels: { [OWNER_KIND]: "ConfigMap" },
      ownerReferences: [{
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "plain",
        uid: String(plain.metadata?.uid),
        controller: true,
      }],
    },
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("p1"));
    await cluster.waitFor("kopfexamples", "p1", handled);
    const child = (await cluster.waitFor("configmaps", "p1", (b) => b !== undefined, {
      namespace: "default",
    }))!;
    assertEquals(child.metadata?.labels?.[OWNER_KIND], "KopfExample.kopf.dev");
    await seen.until(1); // its creation
    cluster.patch("configmaps", "p1", { data: { wanted: "yes", drift: "x" } }, {
      namespace: "default",
    });
    await cluster.waitFor(
      "configmaps",
      "p1",
      (b) =>
        (b?.data as Record<string, string> | undefined)?.drift === undefined &&
        seen.count((s) => s.includes("drift")) > 0,
      {
        namespace: "default",
      },
    );
    cluster.delete("configmaps", "p1", { namespace: "default" });
    await seen.until(1, (s) => s.includes("DELETED"));
    await cluster.waitFor("configmaps", "p1", (b) => b !== undefined, { namespace: "default" });
    // The foreign and the plain ConfigMaps change: nothing runs.
    cluster.patch("configmaps", "foreign", { data: { a: "1" } }, { namespace: "default" });
    cluster.patch("configmaps", "plain", { data: { a: "1" } }, { namespace: "default" });
    await cluster.waitFor(
      "kopfexamples",
      "p1",
      (b) =>
        (b?.status as { repair?: { repaired?: string } })?.repair?.repaired === "ADDED" ||
        (b?.status as { repair?: { repaired?: string } })?.repair?.repaired === "MODIFIED",
    );
  });
  assertEquals(seen.list[0], 'p1 ADDED p1 data={"wanted":"yes"}', "the child whole, fetched");
  assert(seen.list.some((s) => s.startsWith("p1 MODIFIED p1") && s.includes('"drift":"x"')));
  assert(seen.list.some((s) => s.startsWith("p1 DELETED p1")), "the deletion");
  assert(!seen.list.some((s) => s.includes("foreign") || s.includes("plain")));
  // Every list and watch of configmaps selected the children of KopfExamples only.
  const selectors = childRequests(cluster);
  assert(selectors.length >= 1);
  for (const selector of selectors) {
    assertEquals(selector, `${OWNER_KIND}=KopfExample.kopf.dev`);
  }
  assert(LOGS.some((line) => line.includes("by the label kopf.adopt() sets; metadata only")));
});

Deno.test("a child deleted while its watch was down reaches its parent's handler as its child", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const seen = new Calls<string>();
  on.create("kopfexamples", { registry }, function make({ body }) {
    cluster.create(childOf(body as unknown as RawBody, { wanted: "yes" }));
  });
  on.child("kopfexamples", "configmaps", { registry }, function repair(kwargs) {
    const { name, child, childEvent } = kwargs;
    const owners = child.metadata.ownerReferences?.map((ref) => ref.name).join(",");
    seen.add(`${name} ${childEvent} ${child.metadata.name} owned by ${owners}`);
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("p1"));
    await seen.until(1); // its creation
    // Deleted while no watch runs, and its history gone: the watch lists again (410), and
    // the deletion is known from the listing only, without the child's last state.
    cluster.faults.dropWatches();
    cluster.delete("configmaps", "p1", { namespace: "default" });
    cluster.faults.compact();
    await seen.until(1, (s) => s.includes("DELETED"));
  });
  assert(seen.list.includes("p1 DELETED p1 owned by p1"), seen.list.join("\n"));
});

Deno.test("child handlers are retried after temporary errors; permanent ones stop them", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const attempts = new Calls<string>();
  on.child(
    "kopfexamples",
    "configmaps",
    { registry, backoff: 0.1 },
    function flaky({ retry, child }) {
      attempts.add(`${child.metadata.name} ${retry}`);
      if (child.metadata.name === "c-temp" && retry < 2) {
        throw new kopf.TemporaryError("not yet", {
          delay: 0.1,
        });
      }
      if (child.metadata.name === "c-perm") throw new kopf.PermanentError("never");
      return { retries: retry };
    },
  );
  const parent = cluster.create(kex("p2"));
  await whileRunning(registry, async () => {
    await cluster.waitFor("kopfexamples", "p2", (b) => b !== undefined);
    const temp = childOf(parent, {});
    temp.metadata!.name = "c-temp";
    delete temp.metadata!.generateName;
    cluster.create(temp);
    await cluster.waitFor(
      "kopfexamples",
      "p2",
      (b) => (b?.status as { flaky?: { retries?: number } })?.flaky?.retries === 2,
    );
    const perm = childOf(parent, {});
    perm.metadata!.name = "c-perm";
    cluster.create(perm);
    await attempts.until(1, (a) => a.startsWith("c-perm"));
    // A later change of another child runs again, and the permanent one is not retried.
    cluster.patch("configmaps", "c-temp", { data: { b: "2" } }, { namespace: "default" });
    await attempts.until(4, (a) => a.startsWith("c-temp"));
  });
  assertEquals(attempts.list.filter((a) => a.startsWith("c-temp")).slice(0, 3), [
    "c-temp 0",
    "c-temp 1",
    "c-temp 2",
  ]);
  assertEquals(attempts.count((a) => a.startsWith("c-perm")), 1);
});

Deno.test("on.child refuses selector keywords and a missing child resource", () => {
  const registry = new kopf.OperatorRegistry({ onWarning: () => {} });
  let message = "";
  try {
    kopf.on.child("kopfexamples", { registry } as never, () => {});
  } catch (error) {
    message = (error as Error).message;
  }
  assert(message.includes("name the parent and the child resources"), message);
  try {
    kopf.on.child("kopfexamples", "configmaps", { registry, kind: "X" } as never, () => {});
  } catch (error) {
    message = (error as Error).message;
  }
  assert(message.includes('option "kind" is not accepted by kopf.on.child'), message);
});

Deno.test("unlabelled children count only with `unlabelled`; childLabels filter the child", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const seen = new Calls<string>();
  on.child("kopfexamples", "configmaps", {
    registry,
    unlabelled: true,
    childLabels: { tier: kopf.PRESENT },
  }, function anyChild({ child, childEvent }) {
    seen.add(`${child.metadata.name} ${childEvent}`);
  });
  const parent = cluster.create(kex("p3"));
  await whileRunning(registry, async () => {
    await cluster.waitFor("kopfexamples", "p3", (b) => b !== undefined);
    // Owned, but made by another tool: no owner-kind label.
    const owned = (name: string, labels: Record<string, string>): RawBody => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name,
        namespace: "default",
        labels,
        ownerReferences: [{
          apiVersion: "kopf.dev/v1",
          kind: "KopfExample",
          name: "p3",
          uid: String(parent.metadata?.uid),
          controller: true,
        }],
      },
    });
    cluster.create(owned("untiered", {}));
    cluster.create(owned("tiered", { tier: "a" }));
    await seen.until(1);
    // A later change of it comes after anything of the earlier one would have.
    cluster.patch("configmaps", "tiered", { data: { a: "1" } }, { namespace: "default" });
    await seen.until(2);
  });
  assertEquals(seen.list, ["tiered ADDED", "tiered MODIFIED"]);
  const selectors = childRequests(cluster);
  assert(selectors.length >= 1);
  for (const selector of selectors) assertEquals(selector, null, "unlabelled: no selector");
});

for (const how of ["createObject()", "kopf.apply()"] as const) {
  Deno.test(`a child made by ${how} and deleted while its watch cannot list still reaches its parent`, async () => {
    await using cluster = await startCluster();
    const registry = clusterRegistry(cluster);
    const seen = new Calls<string>();
    const made = new Calls<string>();
    on.create("kopfexamples", { registry }, async function make({ body, name }) {
      const child: RawBody = { apiVersion: "v1", kind: "ConfigMap", metadata: { name } };
      if (how === "kopf.apply()") {
        await kopf.apply(child);
      } else {
        kopf.adopt(child, { owner: body as never });
        await createObject(currentOperatorClient()!.api, CONFIGMAPS, child);
      }
      made.add(String(name));
    });
    on.child("kopfexamples", "configmaps", { registry }, function repair(kwargs) {
      const { name, child, childEvent } = kwargs;
      seen.add(`${name} ${childEvent} ${child.metadata.name}`);
    });
    // The children's watch cannot list from the start: it never shows the child.
    cluster.faults.failRequests({
      share: 1,
      status: 500,
      verbs: ["list", "watch"],
      resources: ["configmaps"],
    });
    await whileRunning(registry, async () => {
      cluster.create(kex("p1"));
      await made.until(1);
      cluster.delete("configmaps", "p1", { namespace: "default" });
      cluster.faults.clear();
      // Its first complete listing has no such child: known from its creation, it is gone.
      await seen.until(1, (s) => s.includes("DELETED"));
      // With its watch up, a child made is told of once: its watch's ADDED is the same state.
      cluster.create(kex("p2"));
      await made.until(2);
      await seen.until(1, (s) => s.startsWith("p2 ADDED"));
      cluster.patch("configmaps", "p2", { data: { changed: "yes" } }, { namespace: "default" });
      await seen.until(1, (s) => s.startsWith("p2 MODIFIED"));
    });
    assertEquals(seen.list, ["p1 DELETED p1", "p2 ADDED p2", "p2 MODIFIED p2"]);
  });
}
