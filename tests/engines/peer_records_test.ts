/**
 * Kopf's record format of the peering objects (times without a zone, whole-second
 * lifetimes, defaults for missing fields), who pauses whom, the keep-alive timing, the
 * identities, and which peering resource serves the scope.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import {
  detectOwnIdentity,
  findPeeringResource,
  formatLastseen,
  isDead,
  judgePeers,
  keepAliveInterval,
  parseLastseen,
  parsePeers,
  recordLifetime,
} from "../../src/engines/peer_records.ts";
import { Resource } from "../../src/structs/resources.ts";

const NOW = Date.parse("2026-03-04T05:06:07.890Z");

Deno.test("lastseen is written as Python's utcnow().isoformat(): UTC, microseconds, no zone", () => {
  assertEquals(formatLastseen(NOW), "2026-03-04T05:06:07.890000");
  assertEquals(formatLastseen(Date.parse("2026-03-04T05:06:07Z")), "2026-03-04T05:06:07.000000");
});

Deno.test("lastseen is read with or without fractions and zones; no zone means UTC", () => {
  assertEquals(parseLastseen("2026-03-04T05:06:07.890000"), NOW);
  assertEquals(parseLastseen("2026-03-04T05:06:07.890"), NOW);
  assertEquals(parseLastseen("2026-03-04T05:06:07"), NOW - 890);
  assertEquals(parseLastseen("2026-03-04T05:06:07.890123+00:00"), NOW);
  assertEquals(parseLastseen("2026-03-04T05:06:07.89Z"), NOW);
  assertEquals(parseLastseen("2026-03-04T07:06:07.890+02:00"), NOW);
  assertEquals(parseLastseen("2026-03-04 05:06:07.890000"), NOW);
  assertEquals(parseLastseen("yesterday"), undefined);
  assertEquals(parseLastseen(12345), undefined);
  assertEquals(parseLastseen(formatLastseen(NOW)), NOW);
});

Deno.test("peers are read from the status with Kopf's defaults; non-records are skipped", () => {
  const peers = parsePeers({
    "a@host/1": { priority: 10, lifetime: 30, lastseen: "2026-03-04T05:06:00" },
    "b@host/2": {},
    "c@host/3": null,
    "d@host/4": { priority: "7", lifetime: 2.9, lastseen: "garbage" },
  }, NOW);
  assertEquals(peers.map((p) => p.identity), ["a@host/1", "b@host/2", "d@host/4"]);
  const [a, b, d] = peers;
  assertEquals([a.priority, a.lifetime, a.lastseen], [10, 30, Date.parse("2026-03-04T05:06:00Z")]);
  assertEquals(a.deadline, Date.parse("2026-03-04T05:06:30Z"));
  // Missing fields: priority 0, lifetime 60, seen now (so alive).
  assertEquals([b.priority, b.lifetime, b.lastseen, b.deadline], [0, 60, NOW, NOW + 60_000]);
  // Like Kopf's int(): numbers in strings, fractions cut off.
  assertEquals([d.priority, d.lifetime, d.lastseen], [7, 2, NOW]);
  assertEquals(parsePeers(undefined, NOW), []);
  assertEquals(parsePeers(["x"], NOW), []);
});

Deno.test("a freeze's message is read with its record; other fields stay ignored", () => {
  const [frozen, other] = parsePeers({
    "admin@laptop": { priority: 100, lifetime: 600, lastseen: "2026-03-04T05:06:00", message: "x" },
    "future@host/1": { priority: 1, message: 42, unknown: true },
  }, NOW);
  assertEquals([frozen.priority, frozen.message], [100, "x"]);
  assertEquals(other.message, undefined);
  assertEquals(Object.keys(other).includes("unknown"), false);
});

Deno.test("a peer is dead once lastseen + lifetime has passed", () => {
  const [peer] = parsePeers({ p: { lifetime: 10, lastseen: "2026-03-04T05:06:00" } }, NOW);
  assert(!isDead(peer, Date.parse("2026-03-04T05:06:09.999Z")));
  assert(isDead(peer, Date.parse("2026-03-04T05:06:10Z")));
});

Deno.test("higher and equal live priorities pause; lower ones do not; self and the dead are apart", () => {
  const fresh = formatLastseen(NOW);
  const peers = parsePeers({
    me: { priority: 5, lifetime: 60, lastseen: fresh },
    higher: { priority: 6, lifetime: 60, lastseen: fresh },
    same: { priority: 5, lifetime: 60, lastseen: fresh },
    lower: { priority: 4, lifetime: 60, lastseen: fresh },
    deadHigher: { priority: 100, lifetime: 1, lastseen: "2000-01-01T00:00:00" },
  }, NOW);
  const verdict = judgePeers(peers, { identity: "me", priority: 5 }, NOW);
  assertEquals(verdict.higher.map((p) => p.identity), ["higher"]);
  assertEquals(verdict.same.map((p) => p.identity), ["same"]);
  assertEquals(verdict.dead.map((p) => p.identity), ["deadHigher"]);
  const alone = judgePeers(peers, { identity: "higher", priority: 6 }, NOW);
  assertEquals([alone.higher.length, alone.same.length], [0, 0]);
});

Deno.test("keep-alives come well before the record expires", () => {
  assertEquals(recordLifetime({ lifetime: 60 }), 60);
  assertEquals(recordLifetime({ lifetime: 0.3 }), 1);
  assertEquals(recordLifetime({ lifetime: 0 }), 1);
  assertEquals(keepAliveInterval(60, 0), 55);
  assertEquals(keepAliveInterval(60, 1), 50);
  assertEquals(keepAliveInterval(2), 1);
  for (const lifetime of [1, 2, 5, 20, 21, 60, 600]) {
    for (const random of [0, 0.5, 0.999]) {
      const interval = keepAliveInterval(lifetime, random);
      assert(interval > 0 && interval < lifetime, `${lifetime}: ${interval}`);
    }
  }
});

Deno.test("the identity is user@host/start-time/random, or POD_ID when set", () => {
  const pod = Deno.env.get("POD_ID");
  Deno.env.delete("POD_ID");
  try {
    const identity = detectOwnIdentity(NOW);
    assertMatch(identity, /^[^@/]+@[^/]+\/2026-03-04T05:06:07\.890000\/[a-z0-9]{3}$/);
    Deno.env.set("POD_ID", "my-operator-7d9f-xk2p");
    assertEquals(detectOwnIdentity(NOW), "my-operator-7d9f-xk2p");
  } finally {
    if (pod === undefined) Deno.env.delete("POD_ID");
    else Deno.env.set("POD_ID", pod);
  }
});

Deno.test("the peering resource follows the scope; kopf.dev is preferred over kopf.zalando.org", () => {
  const make = (group: string, plural: string, kind: string, namespaced: boolean) =>
    new Resource({ group, version: "v1", plural, kind, namespaced, preferred: true });
  const resources = [
    make("kopf.zalando.org", "kopfpeerings", "KopfPeering", true),
    make("kopf.dev", "kopfpeerings", "KopfPeering", true),
    make("kopf.zalando.org", "clusterkopfpeerings", "ClusterKopfPeering", false),
  ];
  assertEquals(findPeeringResource(resources, false)?.group, "kopf.dev");
  assertEquals(findPeeringResource(resources, true)?.group, "kopf.zalando.org");
  assertEquals(findPeeringResource(resources.slice(0, 2), true), undefined);
});
