import { assert, assertEquals } from "../assert.ts";
import {
  isAtLeastVersion,
  isNewerVersion,
  objectKey,
  resourceObjectKey,
} from "../../src/structs/identities.ts";
import { Resource } from "../../src/structs/resources.ts";

Deno.test("an object's key is its uid, else namespace/name (an empty uid counts as none)", () => {
  assertEquals(objectKey({ metadata: { uid: "u1", name: "a", namespace: "n" } }), "u1");
  assertEquals(objectKey({ metadata: { uid: "", name: "a", namespace: "n" } }), "n/a");
  assertEquals(objectKey({ metadata: { name: "a" } }), "/a");
  assertEquals(objectKey({}), "/");
});

Deno.test("integer versions compare as numbers, whatever their lengths", () => {
  assert(isNewerVersion("10", "9"));
  assert(!isNewerVersion("9", "10"));
  assert(isNewerVersion("19", "18"));
  assert(!isNewerVersion("18", "18"));
  assert(isNewerVersion("100000000000000000000001", "100000000000000000000000"));
  assert(isNewerVersion("0010", "9"), "leading zeros do not confuse the comparison");
  assert(!isNewerVersion("009", "10"));
  assert(isNewerVersion("1000000000000000000000000", "999"), "longer, no leading zero: larger");
  assert(!isNewerVersion("999", "1000000000000000000000000"));
  assert(isNewerVersion("5", "0") && !isNewerVersion("0", "5"));
});

Deno.test("versions that are not integers are only ever equal", () => {
  assert(!isNewerVersion("abd", "abc"));
  assert(!isNewerVersion("abc", "1"));
  assert(!isNewerVersion(undefined, "1"));
  assert(!isNewerVersion("1", undefined));
  assert(isAtLeastVersion("abc", "abc"));
  assert(!isAtLeastVersion("abd", "abc"));
  assert(isAtLeastVersion("11", "9"));
  assert(!isAtLeastVersion(undefined, "1"));
});

Deno.test("objects of different resources with one uid have different keys among all", () => {
  const pods = new Resource({ group: "", version: "v1", plural: "pods" });
  const kex = new Resource({ group: "kopf.dev", version: "v1", plural: "kopfexamples" });
  assert(resourceObjectKey(pods, "u1") !== resourceObjectKey(kex, "u1"));
  assertEquals(resourceObjectKey(pods, "u1"), resourceObjectKey(pods, "u1"));
});
