/**
 * Names made from `generateName`: five characters of the API server's alphabet, each
 * uniformly random, and a taken name generated anew (8 names in all, as API servers since
 * 1.31 do) before a create is refused as AlreadyExists.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { builtinTypes } from "../../../src/catalog/builtin_types.ts";
import { Catalog } from "../../../src/testing/fake_cluster/catalog.ts";
import { ApiError } from "../../../src/testing/fake_cluster/errors.ts";
import {
  GENERATE_NAME_ATTEMPTS,
  randomSuffix,
} from "../../../src/testing/fake_cluster/metadata.ts";
import { Objects } from "../../../src/testing/fake_cluster/objects.ts";
import type { Target } from "../../../src/testing/fake_cluster/targets.ts";
import { Store } from "../../../src/testing/fake_cluster/store.ts";
import {
  assert,
  assertEquals,
  assertMatch,
  assertStringIncludes,
  assertThrows,
} from "../../assert.ts";
import { call, configMap } from "./helpers.ts";

const ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

function configMapsIn(namespace: string): { objects: Objects; target: Target } {
  const catalog = new Catalog();
  for (const type of builtinTypes()) catalog.put(type);
  const objects = new Objects(catalog, new Store({ historySize: 100 }));
  const nsType = catalog.get("", "namespaces")!;
  objects.create({ type: nsType, version: nsType.versions[0] }, { metadata: { name: namespace } });
  const type = catalog.get("", "configmaps")!;
  return { objects, target: { type, version: type.versions[0], namespace } };
}

Deno.test("generated suffixes: five characters, every one of the alphabet equally likely", () => {
  const counts = new Map<string, number>();
  const suffixes = 40_000;
  for (let i = 0; i < suffixes; i++) {
    const suffix = randomSuffix();
    assertMatch(suffix, /^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    for (const char of suffix) counts.set(char, (counts.get(char) ?? 0) + 1);
  }
  // Chi-squared over 26 degrees of freedom: uniform draws stay below 80 but once in ~10^7
  // runs; a byte taken modulo 27 (13 characters 11% likelier) scores about 550.
  const expected = (suffixes * 5) / ALPHABET.length;
  let chi2 = 0;
  for (const char of ALPHABET) chi2 += ((counts.get(char) ?? 0) - expected) ** 2 / expected;
  assert(chi2 < 80, `chi-squared ${chi2.toFixed(1)}: ${JSON.stringify([...counts])}`);
});

Deno.test("a taken generated name is generated anew, up to 8 names; then 409 AlreadyExists", () => {
  const { objects, target } = configMapsIn("default");
  const first = objects.create(target, { metadata: { generateName: "x-" } });
  let calls = 0;
  objects.nameSuffix = () => "bbbbb";
  assertEquals((first.metadata as { name: string }).name.length, "x-".length + 5);
  objects.create(target, { metadata: { generateName: "x-" } });

  // Seven collisions, then a free name: the create succeeds with it.
  objects.nameSuffix = () => ++calls < GENERATE_NAME_ATTEMPTS ? "bbbbb" : "ccccc";
  const retried = objects.create(target, { metadata: { generateName: "x-" } });
  assertEquals([(retried.metadata as { name: string }).name, calls], ["x-ccccc", 8]);

  // Eight collisions: refused, and no ninth name is tried.
  calls = 0;
  objects.nameSuffix = () => (calls++, "bbbbb");
  const error = assertThrows(
    () => objects.create(target, { metadata: { generateName: "x-" } }),
    ApiError,
  );
  assertEquals([error.code, error.reason, calls], [409, "AlreadyExists", GENERATE_NAME_ATTEMPTS]);
});

Deno.test("a generateName longer than 58 characters is cut so that the name fits in 63", () => {
  const { objects, target } = configMapsIn("default");
  const prefix = "p".repeat(70);
  const created = objects.create(target, { metadata: { generateName: prefix } });
  const name = (created.metadata as { name: string }).name;
  assertEquals(name.length, 63);
  assertEquals(name.slice(0, 58), prefix.slice(0, 58));
});

Deno.test("20,000 creates with one generateName all succeed with distinct names", async () => {
  // Without retries, 20,000 names of 27^5 collide about 14 times (none: 1 run in 10^6).
  await using cluster = await FakeCluster.start({ historySize: 100 });
  const names = new Set<string>();
  for (let i = 0; i < 20_000; i++) {
    const created = cluster.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { generateName: "kopf-event-", namespace: "default" },
    });
    names.add(created.metadata!.name!);
  }
  assertEquals(names.size, 20_000);
});

Deno.test("finalizers and label keys are qualified names; orphan and foregroundDeletion exclude each other", async () => {
  await using cluster = await FakeCluster.start();
  const CMS = "/api/v1/namespaces/default/configmaps";
  const refused = async (method: string, path: string, body: unknown, text: string) => {
    const reply = await call(cluster, method, path, body, {
      "content-type": method === "PATCH" ? "application/merge-patch+json" : "application/json",
    });
    assertEquals([reply.status, reply.body.reason], [422, "Invalid"], JSON.stringify(reply.body));
    assertStringIncludes(reply.body.message, text);
  };
  await refused(
    "POST",
    CMS,
    configMap("a", {}, { finalizers: ["kopf.dev/ok", "not a name"] }),
    `metadata.finalizers: Invalid value: "not a name": name part must consist of alphanumeric characters`,
  );
  await refused(
    "POST",
    CMS,
    configMap("a", {}, { finalizers: ["orphan", "foregroundDeletion"] }),
    `metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set`,
  );
  await refused(
    "POST",
    CMS,
    configMap("a", {}, { labels: { ["k".repeat(64)]: "v" } }),
    `metadata.labels: Invalid value: "${"k".repeat(64)}": name part must be no more than 63 bytes`,
  );
  await refused(
    "POST",
    CMS,
    configMap("a", {}, { annotations: { [`${"p".repeat(254)}/k`]: "v" } }),
    "prefix part must be no more than 253 bytes",
  );

  // Names that kube-apiserver accepts pass, and an update is checked as a create is.
  const ok = { finalizers: ["kopf.zalando.org/KopfFinalizerMarker", "orphan"] };
  assertEquals((await call(cluster, "POST", CMS, configMap("a", {}, ok))).status, 201);
  await refused(
    "PATCH",
    `${CMS}/a`,
    { metadata: { finalizers: ["kopf.dev/"] } },
    `metadata.finalizers: Invalid value: "kopf.dev/": name part must be non-empty`,
  );

  // A selector's label key is held to the same rule: a 400.
  const listed = await call(cluster, "GET", `${CMS}?labelSelector=${"k".repeat(64)}%3Dv`);
  assertEquals(listed.status, 400);
});

Deno.test("owner references name a version, kind, name and uid; no Event; one controller at most", async () => {
  await using cluster = await FakeCluster.start();
  const CMS = "/api/v1/namespaces/default/configmaps";
  const ref = (extra: Record<string, unknown>) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    name: "owner",
    uid: "0b7a1c1e-0000-4000-8000-000000000001",
    ...extra,
  });
  const refused = async (refs: unknown[], text: string) => {
    const reply = await call(cluster, "POST", CMS, configMap("a", {}, { ownerReferences: refs }));
    assertEquals([reply.status, reply.body.reason], [422, "Invalid"], JSON.stringify(reply.body));
    assertStringIncludes(reply.body.message, text);
  };
  await refused(
    [ref({ apiVersion: "apps/" })],
    `metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty`,
  );
  await refused(
    [ref({ uid: "" })],
    `metadata.ownerReferences.uid: Invalid value: "": must not be empty`,
  );
  await refused(
    [ref({ kind: "" })],
    `metadata.ownerReferences.kind: Invalid value: "": must not be empty`,
  );
  await refused(
    [ref({ kind: "Event" })],
    "/v1, Kind=Event is disallowed from being an owner",
  );
  await refused(
    [ref({ controller: true }), ref({ name: "other", controller: true })],
    `Only one reference can have Controller set to true. Found "true" in references for ConfigMap/owner and ConfigMap/other`,
  );
  const ok = [ref({ controller: true }), ref({ apiVersion: "apps/v1", kind: "Deployment" })];
  const created = await call(cluster, "POST", CMS, configMap("a", {}, { ownerReferences: ok }));
  assertEquals(created.status, 201, JSON.stringify(created.body));
});
