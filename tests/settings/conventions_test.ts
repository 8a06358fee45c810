import { assertEquals } from "../assert.ts";
import { makeKeys, makeV1Key, makeV2Key } from "../../src/settings/conventions.ts";
import { KEY_FIXTURES } from "./key_fixtures.ts";

Deno.test("V1 and V2 annotation keys equal Python Kopf's, with hashing of long ids", () => {
  for (const [prefix, id, v2, v1] of KEY_FIXTURES) {
    assertEquals(makeV2Key(prefix, id), v2, `V2 of ${id} under ${prefix}`);
    assertEquals(makeV1Key(prefix, id), v1, `V1 of ${id} under ${prefix}`);
  }
});

Deno.test("both key forms are used when they differ, V2 first; one when they match", () => {
  const long = "update_fn/spec.field/sub-handler-with-a-long-name";
  assertEquals(makeKeys("kopf.zalando.org", long, true), [
    "kopf.zalando.org/update_fn.spec.field.sub-handler-with-a-long-name",
    "kopf.zalando.org/update_fn.spec.field.sub-handler-with-a-F08YxQ",
  ]);
  assertEquals(makeKeys("kopf.zalando.org", long, false), [
    "kopf.zalando.org/update_fn.spec.field.sub-handler-with-a-long-name",
  ]);
  assertEquals(makeKeys("kopf.zalando.org", "create_fn", true), ["kopf.zalando.org/create_fn"]);
});

Deno.test("ReplicaSets owned by Deployments get -ofDRS keys, others do not", () => {
  const rs = {
    kind: "ReplicaSet",
    metadata: { ownerReferences: [{ kind: "Deployment", name: "d" }] },
  };
  assertEquals(makeKeys("kopf.zalando.org", "fn", true, rs), ["kopf.zalando.org/fn-ofDRS"]);
  assertEquals(makeKeys("kopf.zalando.org", "fn", true, { kind: "ReplicaSet" }), [
    "kopf.zalando.org/fn",
  ]);
});
