/**
 * The pure parts of peering: Kopf's record format (times without a zone, whole-second
 * lifetimes, defaults for missing fields), who pauses whom, and the keep-alive timing;
 * and the order of the last keep-alive and the farewell at exit.
 */
import { parseAllDocuments } from "yaml";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { ApiClient, type RequestOptions } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { OperatorSettings } from "../../src/settings/operator_settings.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import {
  detectOwnIdentity,
  findPeeringResource,
  formatLastseen,
  isDead,
  judgePeers,
  keepAliveInterval,
  parseLastseen,
  parsePeers,
  Peering,
  recordLifetime,
} from "../../src/engines/peering.ts";
import { Resource } from "../../src/structs/resources.ts";
import { wallClockAt } from "../clocks.ts";
import { silentLogger } from "../../src/reactor/default_logger.ts";

const NOW = Date.parse("2026-03-04T05:06:07.890Z");

/** The namespaced peering resource of examples/peering.yaml. */
const KOPF_PEERINGS = new Resource({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfpeerings",
  kind: "KopfPeering",
  namespaced: true,
});

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

Deno.test("a keep-alive in flight at exit finishes before the farewell, so no record outlives the operator", async () => {
  await using cluster = await FakeCluster.start();
  const manifest = await Deno.readTextFile(new URL("../../examples/peering.yaml", import.meta.url));
  for (const document of parseAllDocuments(manifest)) cluster.create(document.toJSON());
  const where = { namespace: "default" };
  cluster.create({
    apiVersion: "kopf.dev/v1",
    kind: "KopfPeering",
    metadata: { namespace: "default", name: "default" },
  });
  const vault = new Vault({ relogin: () => Promise.resolve({ fake: cluster.connectionInfo }) });
  await using real = new ApiClient(vault);
  // Once `slow` is set, keep-alives reach the server late — after a client that gave up on
  // them has gone on (as on a busy API server): the server applies them all the same.
  let slow = false;
  const late: Promise<unknown>[] = [];
  const request = (method: string, path: string, options: RequestOptions = {}) => {
    const status = (options.body as { status?: Record<string, unknown> } | undefined)?.status;
    const keepAlive = method === "PATCH" && Object.values(status ?? {}).some((v) => v !== null);
    if (!slow || !keepAlive) return real.request(method, path, options);
    const { signal, ...rest } = options;
    const applied = new Promise((resolve) => setTimeout(resolve, 300))
      .then(() => real.request(method, path, rest));
    late.push(applied.catch(() => {}));
    return new Promise((resolve, reject) => {
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      applied.then(resolve, reject);
    });
  };
  const api = new Proxy(real, {
    get(target, property) {
      if (property === "request") return request;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const settings = new OperatorSettings().peering;
  settings.lifetime = 2;
  const peering = new Peering({
    api,
    resource: KOPF_PEERINGS,
    namespaces: ["default"],
    settings,
    logger: silentLogger,
  });
  const records = () =>
    Object.keys((cluster.get("kopfpeerings", "default", where)?.status ?? {}) as object);
  try {
    peering.start();
    await peering.listed;
    peering.engage();
    await cluster.waitFor("kopfpeerings", "default", () => records().length === 1, where);
    slow = true;
    const deadline = Date.now() + 5000;
    while (late.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assertEquals(late.length, 1, "no keep-alive was sent");
  } finally {
    await peering.stop();
  }
  await Promise.all(late);
  assertEquals(records(), []);
});

Deno.test("a peer whose record lives for years pauses the operator without a busy loop", async () => {
  await using cluster = await FakeCluster.start();
  const manifest = await Deno.readTextFile(new URL("../../examples/peering.yaml", import.meta.url));
  for (const document of parseAllDocuments(manifest)) cluster.create(document.toJSON());
  cluster.create({
    apiVersion: "kopf.dev/v1",
    kind: "KopfPeering",
    metadata: { namespace: "default", name: "default" },
    status: {
      "other@host": { priority: 100, lifetime: 100_000_000, lastseen: formatLastseen(Date.now()) },
    },
  });
  const vault = new Vault({ relogin: () => Promise.resolve({ fake: cluster.connectionInfo }) });
  await using api = new ApiClient(vault);
  let looks = 0;
  const peering = new Peering({
    api,
    resource: KOPF_PEERINGS,
    namespaces: ["default"],
    settings: new OperatorSettings().peering,
    logger: silentLogger,
    clock: wallClockAt(() => (looks++, Date.now())),
  });
  try {
    peering.start();
    await peering.listed;
    peering.engage();
    assert(peering.paused);
    const before = looks;
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert(looks - before < 10, `the peers were looked at ${looks - before} times in 300ms`);
  } finally {
    await peering.stop();
  }
});

Deno.test("a peering object that appears gets the own record at once, not with the next keep-alive", async () => {
  await using cluster = await FakeCluster.start();
  const manifest = await Deno.readTextFile(new URL("../../examples/peering.yaml", import.meta.url));
  for (const document of parseAllDocuments(manifest)) cluster.create(document.toJSON());
  const vault = new Vault({ relogin: () => Promise.resolve({ fake: cluster.connectionInfo }) });
  await using api = new ApiClient(vault);
  const settings = new OperatorSettings().peering;
  settings.mandatory = true; // 60 seconds of lifetime: the next keep-alive is ~50s away
  const peering = new Peering({
    api,
    resource: KOPF_PEERINGS,
    namespaces: ["default"],
    settings,
    logger: silentLogger,
  });
  try {
    peering.start();
    await peering.listed;
    peering.engage();
    assert(peering.paused, "paused while the mandatory object is absent");
    // The first keep-alive found nothing to write to.
    await cluster.waitForRequest((r) => r.method === "PATCH" && r.status === 404);
    cluster.create({
      apiVersion: "kopf.dev/v1",
      kind: "KopfPeering",
      metadata: { namespace: "default", name: "default" },
    });
    const deadline = Date.now() + 3000;
    const recorded = () =>
      Object.keys(
        (cluster.get("kopfpeerings", "default", { namespace: "default" })?.status ?? {}) as object,
      );
    while (recorded().length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assertEquals(recorded(), [peering.identity]);
    assert(!peering.paused);
  } finally {
    await peering.stop();
  }
});
