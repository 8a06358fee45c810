/**
 * Reads that decide for an object compare its uid: the object itself, or nothing when it
 * is gone — a namesake made under its name since included, which the failing form names.
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import { ApiClient } from "../../src/client/api.ts";
import { APINotFoundError } from "../../src/client/api_errors.ts";
import { readSameObject, readSameObjectOrFail } from "../../src/client/same_objects.ts";
import { Vault } from "../../src/client/vault.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { configmaps as CONFIGMAPS } from "../fixtures/discovered.ts";

Deno.test("the same object, nothing for a deleted one or a namesake, a 404 naming both uids", async () => {
  await using cluster = await FakeCluster.start();
  const vault = new Vault();
  vault.populate({ test: cluster.connectionInfo });
  await using api = new ApiClient(vault);
  const make = () =>
    cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" }, data: {} });
  const first = make();
  cluster.patch("configmaps", "x", { data: { k: "v" } });
  const now = await readSameObject(api, CONFIGMAPS, first);
  assertEquals(now?.data, { k: "v" }, "the object as it is now");
  cluster.delete("configmaps", "x");
  assertEquals(await readSameObject(api, CONFIGMAPS, first), undefined, "deleted");
  const namesake = make();
  assert(namesake.metadata?.uid !== first.metadata?.uid);
  assertEquals(await readSameObject(api, CONFIGMAPS, first), undefined, "a namesake");
  assertEquals(
    (await readSameObject(api, CONFIGMAPS, namesake))?.metadata?.uid,
    namesake.metadata?.uid,
  );
  const error = await assertRejects(
    () => readSameObjectOrFail(api, CONFIGMAPS, first),
    APINotFoundError,
  );
  assertStringIncludes(error.message, String(first.metadata?.uid));
  assertStringIncludes(error.message, String(namesake.metadata?.uid));
  // Without a uid to compare, whatever has the name is it.
  const { uid: _, ...nameOnly } = first.metadata!;
  assertEquals(
    (await readSameObject(api, CONFIGMAPS, { metadata: nameOnly }))?.metadata?.uid,
    namesake.metadata?.uid,
  );
});
