/**
 * The peering's part at exit and its waits: the order of the last keep-alive and the
 * farewell, a long-lived peer's pause without a busy loop, and a peering object that
 * appears.
 */
import { parseAllDocuments } from "yaml";
import { assert, assertEquals, assertSettlesWithin, assertStringIncludes } from "../assert.ts";
import { ApiClient, type RequestOptions } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { OperatorSettings } from "../../src/settings/operator_settings.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { formatLastseen } from "../../src/engines/peer_records.ts";
import { Peering } from "../../src/engines/peering.ts";
import { WatchDefectsError } from "../../src/structs/watch_restarts.ts";
import { Resource } from "../../src/structs/resources.ts";
import { deferred, ManualClock, wallClockAt } from "../clocks.ts";
import { silentLogger } from "../../src/reactor/default_logger.ts";
import { RecordingLogger } from "../reactor/recording_logger.ts";

/** The namespaced peering resource of examples/peering.yaml. */
const KOPF_PEERINGS = new Resource({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfpeerings",
  kind: "KopfPeering",
  namespaced: true,
});

/**
 * A fake cluster serving the peering resources of examples/peering.yaml, with the peering
 * object `default` in the namespace `default` if `withObject`.
 */
async function peeringCluster(withObject: boolean): Promise<FakeCluster> {
  const cluster = await FakeCluster.start();
  const manifest = await Deno.readTextFile(new URL("../../examples/peering.yaml", import.meta.url));
  for (const document of parseAllDocuments(manifest)) cluster.create(document.toJSON());
  if (withObject) {
    cluster.create({
      apiVersion: "kopf.dev/v1",
      kind: "KopfPeering",
      metadata: { namespace: "default", name: "default" },
    });
  }
  return cluster;
}

/** A vault that logs in to the fake cluster. */
function vaultOf(cluster: FakeCluster): Vault {
  return new Vault({ relogin: () => Promise.resolve({ fake: cluster.connectionInfo }) });
}

/**
 * A peering whose logger throws where `breaks` says, as the peering reports a peer to make
 * way for: a defect in the code that follows the watch, which the watch's own recovery never
 * sees. Each ERROR line goes to `onError`; `fail` is the peering's own.
 */
function defectivePeering(
  api: ApiClient,
  clock: ManualClock,
  breaks: (message: string) => boolean,
  onError: (message: string) => void,
  fail?: (error: unknown) => void,
): { peering: Peering; logs: RecordingLogger } {
  const logs = new RecordingLogger();
  const logger = Object.assign(Object.create(logs) as RecordingLogger, {
    info(message: string): void {
      logs.info(message);
      if (breaks(message)) throw new TypeError("a logger's defect");
    },
    error(message: string): void {
      logs.error(message);
      onError(message);
    },
  });
  const settings = new OperatorSettings().peering;
  const namespaces = ["default"];
  const peering = new Peering({
    api,
    resource: KOPF_PEERINGS,
    namespaces,
    settings,
    logger,
    clock,
    fail,
  });
  return { peering, logs };
}

Deno.test("a keep-alive in flight at exit finishes before the farewell, so no record outlives the operator", async () => {
  await using cluster = await peeringCluster(true);
  const where = { namespace: "default" };
  const vault = vaultOf(cluster);
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
  await using cluster = await peeringCluster(false);
  cluster.create({
    apiVersion: "kopf.dev/v1",
    kind: "KopfPeering",
    metadata: { namespace: "default", name: "default" },
    status: {
      "other@host": { priority: 100, lifetime: 100_000_000, lastseen: formatLastseen(Date.now()) },
    },
  });
  await using api = new ApiClient(vaultOf(cluster));
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
  await using cluster = await peeringCluster(false);
  const vault = vaultOf(cluster);
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

Deno.test("a defect that breaks the peering's watch is reported, and the peering is watched anew", async () => {
  await using cluster = await peeringCluster(true);
  const where = { namespace: "default" };
  await using api = new ApiClient(vaultOf(cluster));
  // The peering's pauses run on a clock of the test's; its wall time is now's.
  const clock = new ManualClock(Date.now());
  // Broken once, as the peering reports a peer to make way for.
  const reported = deferred<string>();
  let broken = false;
  const { peering } = defectivePeering(api, clock, (message) => {
    if (broken || !message.startsWith("Pausing operations")) return false;
    broken = true;
    return true;
  }, reported.resolve);
  const changes = peering.changes[Symbol.asyncIterator]();
  try {
    peering.start();
    await peering.listed;
    peering.engage();
    assert(!peering.paused);
    const higher = { priority: 100, lifetime: 60, lastseen: formatLastseen(clock.wall()) };
    cluster.patch("kopfpeerings", "default", { status: { "other@host": higher } }, {
      ...where,
      subresource: "status",
    });
    const error = await assertSettlesWithin(reported.promise, 5, "the defect's report");
    assertStringIncludes(
      error,
      'Watching the peering KopfPeering "default" in "default" failed; watching it anew in',
    );
    assertStringIncludes(error, "TypeError: a logger's defect");
    assert(!peering.paused, "not yet: the watch broke before the verdict");
    const paused = changes.next();
    await clock.advance(2); // the first pause is at most 2 s
    const change = await assertSettlesWithin(paused, 5, "the peer seen once watched anew");
    assertEquals(change, { done: false, value: true });
  } finally {
    await peering.stop();
  }
});

Deno.test("a defect that keeps breaking the peering's watch fails the peering, which stops the operator", async () => {
  await using cluster = await peeringCluster(true);
  await using api = new ApiClient(vaultOf(cluster));
  const clock = new ManualClock(Date.now());
  // Broken whenever the peering reports peers to make way for: by each new peer.
  let reported = deferred<string>();
  const failed = deferred<unknown>();
  const { peering, logs } = defectivePeering(
    api,
    clock,
    (message) => message.startsWith("Pausing operations"),
    (message) => reported.resolve(message),
    (error) => failed.resolve(error),
  );
  try {
    peering.start();
    await peering.listed;
    peering.engage();
    for (let n = 1; n <= 5; n++) {
      const higher = { priority: 100, lifetime: 60, lastseen: formatLastseen(clock.wall()) };
      cluster.patch("kopfpeerings", "default", { status: { [`peer-${n}@host`]: higher } }, {
        namespace: "default",
        subresource: "status",
      });
      if (n === 5) break;
      const report = await assertSettlesWithin(reported.promise, 5, `the defect's report ${n}`);
      reported = deferred<string>();
      assertStringIncludes(report, "failed; watching it anew in");
      await clock.advance(10); // the longest pause of the peering's watch
    }
    const error = await assertSettlesWithin(failed.promise, 5, "the peering's failure");
    assert(error instanceof WatchDefectsError);
    assertStringIncludes(
      error.message,
      'Watching the peering KopfPeering "default" in "default" failed 5 times in a row; ' +
        "stopping the operator",
    );
    assertEquals(logs.at("error").length, 5);
  } finally {
    await peering.stop();
  }
});
