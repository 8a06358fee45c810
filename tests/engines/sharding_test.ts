/**
 * The pure parts of sharding: which shard an object is in, and which member owns a shard
 * (rendezvous hashing with bounded loads: the same everywhere, even, and moving little).
 */
import { assert, assertEquals } from "../assert.ts";
import { assignShards, fnv1a, shardOf } from "../../src/engines/sharding.ts";

Deno.test("FNV-1a matches the published 32-bit test vectors", () => {
  assertEquals(fnv1a(""), 0x811c9dc5);
  assertEquals(fnv1a("a"), 0xe40c292c);
  assertEquals(fnv1a("foobar"), 0xbf9cf968);
});

Deno.test("an object's shard follows its uid, and the objects spread over the shards", () => {
  const body = (uid: string, name = "x") => ({ metadata: { uid, name, namespace: "ns" } });
  assertEquals(shardOf(body("u-1", "a"), 7), shardOf(body("u-1", "b"), 7));
  const counts = new Array(6).fill(0);
  for (let i = 0; i < 6000; i++) counts[shardOf(body(crypto.randomUUID()), 6)]++;
  for (const count of counts) assert(count > 800 && count < 1200, String(counts));
  // Without a uid yet (not created), the namespace and name decide.
  assertEquals(shardOf({ metadata: { name: "n", namespace: "ns" } }, 5), fnv1a("ns/n") % 5);
});

Deno.test("every member computes the same owners, whatever the order of the members", () => {
  const members = ["pod-a", "pod-b", "pod-c"];
  const owners = assignShards(12, members);
  assertEquals(assignShards(12, [...members].reverse()), owners);
  assertEquals(assignShards(12, [...members, "pod-b"]), owners, "duplicates count once");
  assert(owners.every((owner) => members.includes(owner)));
  assertEquals(assignShards(4, []), []);
});

Deno.test("the shares are even: each member gets the count divided by the members, rounded", () => {
  for (let members = 1; members <= 6; members++) {
    const names = Array.from({ length: members }, (_, i) => `replica-${i}`);
    for (let count = 1; count <= 24; count++) {
      const loads = new Map<string, number>();
      for (const owner of assignShards(count, names)) {
        loads.set(owner, (loads.get(owner) ?? 0) + 1);
      }
      for (const load of loads.values()) {
        assert(
          load === Math.floor(count / members) || load === Math.ceil(count / members),
          `${count} shards over ${members} members: ${[...loads.values()]}`,
        );
      }
      if (count >= members) assertEquals(loads.size, members, "nobody is left out");
    }
  }
});

Deno.test("a member leaving: its shards go to the others, and most of theirs stay", () => {
  const members = ["replica-0", "replica-1", "replica-2", "replica-3"];
  const count = 64;
  const before = assignShards(count, members);
  const after = assignShards(count, members.filter((m) => m !== "replica-1"));
  let stayed = 0;
  let kept = 0;
  for (let shard = 0; shard < count; shard++) {
    assert(after[shard] !== "replica-1");
    if (before[shard] === "replica-1") continue;
    kept++;
    if (after[shard] === before[shard]) stayed++;
  }
  assert(stayed >= kept * 0.75, `${stayed} of the survivors' ${kept} shards stayed`);
});
