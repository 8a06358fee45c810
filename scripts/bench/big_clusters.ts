/**
 * Big clusters: what the operator does when a served resource has a great many objects, each
 * figure beside the one it is compared with, from one run. Every run has a fresh fake cluster
 * and the operator in a process of its own (`support/big_operator.ts`), so that its memory is
 * measured apart from the cluster's. What the server sent is the fake cluster's
 * `cluster.traffic` (list items, GETs and watch events, counted as they are queued on the
 * connection; the responses to writes are not counted).
 *
 * - **Selectors**: 100,000 pods in 4 namespaces, 1,000 of them labelled `app=watched`; an
 *   operator whose create and update handlers filter `labels: { app: "watched" }` (sent to the
 *   server as a label selector) against the same handlers filtering with a `when` callback
 *   (every pod sent, filtered in the operator), and the same operator serving the same
 *   namespaces empty (its idle footprint). Once the watched pods are handled, 100 of them and
 *   100 others get a new label: changes. Figures: the pods sent, whether every list and watch
 *   of pods carried the selector, the peak RSS above the idle one and its ratio, and whether
 *   both made the same handler calls for the same pods.
 * - **Metadata only**: 10,000 ConfigMaps with one value of 100 KB each; a create and an
 *   update handler registered with `metadataOnly: true` against the same without it (and the
 *   idle footprint). Their results derive from the metadata, and from the whole object (read
 *   with `fetchBody()`) for one ConfigMap in 1,000; 100 ConfigMaps get a new label. Figures:
 *   the bytes sent, the peak RSS above the idle one, whether the results are the same, and
 *   the fake cluster's own time and memory.
 * - **Live events first**: 100,000 KopfExamples exist when an operator with one create handler
 *   starts; 20 more are created while it works through them, spread over that time. Figures:
 *   creation → handler start of those 20 (p50, p99), against the time the whole backlog took.
 * - **Shards**: `kopf run --shards N` replicas (`support/shard_operator.ts`), 1 and 2 of them,
 *   handling 10,000 KopfExamples created once each holds its shard. Figure: the objects sent
 *   to all replicas together, against one replica's — each still receives every object.
 *
 *     deno task bench big_clusters
 *     KOPF_BENCH_BIG_SCALE=0.1 deno task bench big_clusters     # a tenth of every count
 *     KOPF_BENCH_BIG_PARTS=selectors,live deno task bench big_clusters
 *
 * At full size it takes about 3 minutes on 2 cores (5 when they are busy with other work),
 * and this process — the fake cluster — peaks at about 8 GB: it holds 1 GB of ConfigMaps, and
 * in the whole objects' run the diff-base annotations that the operator writes (holding the
 * data again) and the history of those changes. `KOPF_BENCH_BIG_SCALE` scales every count
 * (pods, watched pods, changes, ConfigMaps, existing and sharded objects; not the 20 live ones);
 * `KOPF_BENCH_BIG_CONFIGMAPS` and `KOPF_BENCH_BIG_CONFIGMAP_KB` set the ConfigMaps' count and
 * size apart; `KOPF_BENCH_BIG_SHARDS` the shard counts (`1,2`); `KOPF_BENCH_BIG_PARTS` (a
 * comma-separated list of `selectors`, `metadata`, `live`, `shards`) runs only those parts.
 * Every wait is bounded: a run that does not finish in time fails with what it waited for.
 */
import { parse as parseYaml } from "yaml";
import type { BenchFigure, BenchSection } from "./types.ts";
import type { RawBody } from "../../mod.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import type { ServedRequest, TrafficCounts } from "../../src/testing/fake_cluster/mod.ts";
import { OPERATOR_V8_FLAGS, v8FlagsArgument } from "../../src/cli/runtime_flags.ts";
import { ChildProcess, now, rssMb } from "./support/process.ts";
import { RequestCounter } from "./support/requests.ts";
import { percentile } from "./support/stats.ts";
import { shardsHeld, startShardReplicas } from "./support/shard_replicas.ts";

const ROOT = new URL("../../", import.meta.url);
const OPERATOR = new URL("scripts/bench/support/big_operator.ts", ROOT).pathname;
const SCALE = Number(Deno.env.get("KOPF_BENCH_BIG_SCALE") ?? 1);
const PARTS = (Deno.env.get("KOPF_BENCH_BIG_PARTS") ?? "selectors,metadata,live,shards").split(",");
const scaled = (count: number, least = 1) => Math.max(least, Math.round(count * SCALE));

const POD = { apiVersion: "v1", kind: "Pod" };
const PODS = scaled(100_000, 100);
const WATCHED = scaled(1_000, 10);
const CHANGES = scaled(100, 5);
const POD_NAMESPACES = ["big-0", "big-1", "big-2", "big-3"];
const SELECTOR = "app=watched";
const SELECTORS_RSS_TARGET = 0.25;

const KEX = { apiVersion: "kopf.dev/v1", kind: "KopfExample" };
const EXISTING = scaled(100_000, 100);
const LIVE = 20;
const LIVE_P99_TARGET_MS = 1_000;

/** Seconds allowed for a wait over this many objects (at least a minute). */
const allowance = (objects: number) => Math.max(60, Math.ceil(objects / 200));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const thousands = (n: number) => n.toLocaleString("en");
const megabytes = (bytes: number) =>
  bytes >= 1e8 ? `${(bytes / 1e6).toFixed(0)} MB` : `${(bytes / 1e6).toFixed(1)} MB`;
const percent = (ratio: number) =>
  ratio < 0.01 ? `${(ratio * 100).toFixed(2)}%` : `${(ratio * 100).toFixed(1)}%`;

/** The operator's process, its output lines passed to `onLine`; stopped when disposed. */
class Operator implements AsyncDisposable {
  readonly child: ChildProcess;
  readonly spawned = now();
  readonly exited: Promise<never>;
  #ready = false;
  readonly #pump: Promise<void>;

  constructor(url: string, mode: string, namespaces: string[], onLine: (line: string) => void) {
    const child = new ChildProcess([
      v8FlagsArgument(OPERATOR_V8_FLAGS),
      OPERATOR,
      url,
      mode,
      namespaces.join(","),
    ]);
    this.child = child;
    this.exited = child.process.status.then((status) => {
      throw new Error(`The operator (${mode}) exited with code ${status.code}.`);
    });
    this.exited.catch(() => {}); // raised only where awaited
    this.#pump = (async () => {
      try {
        for (;;) {
          const line = await child.expect("");
          if (line === "READY") this.#ready = true;
          else onLine(line);
        }
      } catch {
        // the output ended: the process is gone
      }
    })();
  }

  get ready(): boolean {
    return this.#ready;
  }

  get pid(): number {
    return this.child.pid;
  }

  /** Wait until `check()` holds, polling; fails after `seconds` or if the operator exits. */
  async until(check: () => boolean, seconds: number, what: string): Promise<void> {
    const deadline = Date.now() + seconds * 1000;
    while (!check()) {
      if (Date.now() > deadline) {
        throw new Error(`Timed out after ${seconds} s waiting for ${what}.`);
      }
      await Promise.race([sleep(50), this.exited]);
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await stopWithin(this.child);
    await this.#pump;
  }
}

/** Stop a child with SIGTERM; with SIGKILL if it is still there after `seconds`. */
async function stopWithin(child: ChildProcess, seconds = 30): Promise<void> {
  child.kill("SIGTERM");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) =>
    timer = setTimeout(() => resolve("late"), seconds * 1000)
  );
  const end = await Promise.race([child.process.status, late]);
  clearTimeout(timer);
  if (end === "late") {
    console.error(`A child process ignored SIGTERM for ${seconds} s: killed.`);
    child.kill("SIGKILL");
    await child.process.status;
  }
}

/** The fake cluster's requests that match, all of them: its log keeps only the newest. */
class RequestTap implements Disposable {
  readonly matched: ServedRequest[] = [];
  #last: ServedRequest | undefined;
  readonly #timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly cluster: FakeCluster,
    private readonly predicate: (request: ServedRequest) => boolean,
  ) {
    this.#timer = setInterval(() => this.drain(), 50);
  }

  drain(): void {
    const log = this.cluster.requests;
    const from = this.#last ? log.lastIndexOf(this.#last) + 1 : 0;
    for (let i = from; i < log.length; i++) {
      if (this.predicate(log[i])) this.matched.push(log[i]);
    }
    this.#last = log[log.length - 1] ?? this.#last;
  }

  [Symbol.dispose](): void {
    clearInterval(this.#timer);
    this.drain();
  }
}

// --- Selectors ---------------------------------------------------------------------------

/**
 * A pod as a Deployment's ReplicaSet makes it, about 500 bytes of JSON as served — without
 * its owner reference: the fake cluster's garbage collector would delete it, its owner
 * missing.
 */
function pod(i: number, watched: boolean): RawBody {
  const app = watched ? "watched" : `app-${i % 97}`;
  return {
    ...POD,
    metadata: {
      name: `${app}-5d4f8b7c9-${i.toString(36).padStart(5, "0")}`,
      namespace: POD_NAMESPACES[Math.floor((i * POD_NAMESPACES.length) / PODS)],
      labels: { app, "pod-template-hash": "5d4f8b7c9" },
    },
    spec: {
      containers: [{
        name: "app",
        image: `registry.example.com/team/${app}:1.4.2`,
        ports: [{ containerPort: 8080, protocol: "TCP" }],
        resources: { requests: { cpu: "100m", memory: "128Mi" } },
      }],
      nodeName: `node-${i % 50}`,
      restartPolicy: "Always",
      serviceAccountName: "default",
    },
  };
}

type PodsMode = "idle" | "labels" | "callback";

interface PodsRun {
  mode: PodsMode;
  /** Peak RSS of the operator process, MB. */
  peak: number;
  /** Seconds from the spawn to ready. */
  ready: number;
  /** Seconds from the spawn until the watched pods were all handled. */
  handled: number;
  /** `<handler> <namespace>/<name>`, in the order called. */
  calls: string[];
  /** The operator's list and watch requests of pods. */
  requests: ServedRequest[];
  /** The operator's successful writes to pods. */
  writes: number;
  /** Its one-object lists of pods, for the version to watch from. */
  versionLists: number;
  /** What the server sent of pods. */
  traffic: TrafficCounts | undefined;
}

async function podsRun(mode: PodsMode): Promise<PodsRun> {
  await using cluster = await FakeCluster.start();
  for (const name of POD_NAMESPACES) {
    cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
  }
  const watched: RawBody[] = [];
  const others: RawBody[] = [];
  if (mode !== "idle") {
    const every = Math.floor(PODS / WATCHED);
    for (let i = 0; i < PODS; i++) {
      const body = cluster.create(pod(i, i % every === 0 && watched.length < WATCHED));
      (body.metadata?.labels?.app === "watched" ? watched : others).push(body);
    }
  }
  using tap = new RequestTap(cluster, (r) => /\/pods(\/|$)/.test(r.path));
  const calls: string[] = [];
  const created = new Set<string>();
  const updated = new Set<string>();
  await using operator = new Operator(
    cluster.url,
    mode === "idle" ? "labels" : mode,
    POD_NAMESPACES,
    (line) => {
      const [h, handler, key] = line.split(" ");
      if (h !== "H") return;
      calls.push(line);
      (handler === "create" ? created : updated).add(key);
    },
  );
  const limit = allowance(mode === "callback" ? PODS : WATCHED);
  await operator.until(() => operator.ready, limit, `the operator (${mode}) to be ready`);
  const ready = (now() - operator.spawned) / 1000;
  if (mode === "idle") {
    await sleep(3_000); // a few seconds of serving: its watches, timers and collections
    const peak = rssMb(operator.pid).peak;
    return {
      mode,
      peak,
      ready,
      handled: 0,
      calls,
      requests: [],
      writes: 0,
      versionLists: 0,
      traffic: undefined,
    };
  }
  await operator.until(
    () => created.size >= WATCHED,
    limit,
    `the ${WATCHED} watched pods to be handled (${created.size} so far)`,
  );
  const handled = (now() - operator.spawned) / 1000;
  // Changes: a new label on some watched pods (their update handler runs) and on as many
  // others (which only the callback's operator receives).
  const step = Math.floor(watched.length / CHANGES);
  for (let i = 0; i < CHANGES; i++) {
    for (const body of [watched[i * step], others[i * step]]) {
      const { name, namespace } = body.metadata!;
      cluster.patch("pods", name!, { metadata: { labels: { rev: "2" } } }, { namespace });
    }
  }
  await operator.until(
    () => updated.size >= CHANGES,
    allowance(CHANGES),
    `the ${CHANGES} changed watched pods to be handled (${updated.size} so far)`,
  );
  await sleep(2_000); // anything more that would come (it should not)
  const peak = rssMb(operator.pid).peak;
  tap.drain();
  const traffic = cluster.traffic.resources["pods"];
  const requests = tap.matched.filter((r) => r.verb === "list" || r.verb === "watch");
  // What may be sent: one event per successful write, and the one-object lists that ask
  // for the current version (one per watch).
  const writes = tap.matched.filter((r) => r.verb === "patch" && r.status < 300).length;
  const versionLists =
    requests.filter((r) => new URLSearchParams(r.query).get("limit") === "1").length;
  return { mode, peak, ready, handled, calls, requests, writes, versionLists, traffic };
}

function selectorsFigures(idle: PodsRun, labels: PodsRun, callback: PodsRun): BenchFigure[] {
  const selectorOf = (r: ServedRequest) => new URLSearchParams(r.query).get("labelSelector");
  const selected = labels.requests.filter((r) => selectorOf(r) === SELECTOR);
  const lists = labels.requests.filter((r) => r.verb === "list").length;
  const watches = labels.requests.length - lists;
  const unselected = callback.requests.filter((r) => selectorOf(r) !== null).length;
  const above = (run: PodsRun) => run.peak - idle.peak;
  const ratio = above(labels) / above(callback);
  const same = JSON.stringify([...labels.calls].sort()) ===
    JSON.stringify([...callback.calls].sort());
  const n = `${thousands(PODS)} pods, ${thousands(WATCHED)} watched`;
  const allowed = WATCHED + CHANGES + labels.writes + labels.versionLists;
  return [
    transferFigure(
      `${n}: pods sent to the operator`,
      { what: "label filter", traffic: labels.traffic },
      { what: "callback filter", traffic: callback.traffic },
      `≤ ${thousands(allowed)}: the watched pods, their ${CHANGES} changes, the ` +
        `operator's ${thousands(labels.writes)} writes, ${labels.versionLists} one-object lists`,
      (labels.traffic?.objects ?? Infinity) <= allowed,
    ),
    {
      name: `${n}: pod lists and watches with labelSelector=${SELECTOR}`,
      value: `${selected.length} of ${labels.requests.length} (${lists} lists, ${watches} ` +
        `watches) with the label filter; ${unselected} of ${callback.requests.length} with ` +
        `the callback filter`,
      target: "all with the label filter",
      ok: labels.requests.length > 0 && selected.length === labels.requests.length,
    },
    {
      name: `${n}: operator peak RSS above the idle one (${idle.peak.toFixed(0)} MB)`,
      value: `label filter ${above(labels).toFixed(0)} MB (${labels.peak.toFixed(0)}), ` +
        `callback filter ${above(callback).toFixed(0)} MB (${callback.peak.toFixed(0)}): ` +
        `${(ratio * 100).toFixed(0)}%`,
      target: `≤ ${SELECTORS_RSS_TARGET * 100}%`,
      ok: ratio <= SELECTORS_RSS_TARGET,
    },
    {
      name: `${n}: spawn → ready, → the watched pods handled`,
      value: `label filter ${labels.ready.toFixed(1)} s, ${labels.handled.toFixed(1)} s; ` +
        `callback filter ${callback.ready.toFixed(1)} s, ${callback.handled.toFixed(1)} s`,
    },
    {
      name: `${n}: handler calls, ${thousands(CHANGES)} + ${thousands(CHANGES)} pods changed`,
      value: `label filter ${labels.calls.length}, callback filter ${callback.calls.length}: ` +
        (same ? "the same calls for the same pods" : "DIFFERENT"),
      target: `the same ${WATCHED + CHANGES}`,
      ok: same && labels.calls.length === WATCHED + CHANGES,
    },
  ];
}

/** Objects and bytes sent, one way against another, as a figure. */
function transferFigure(
  name: string,
  one: { what: string; traffic: TrafficCounts | undefined },
  other: { what: string; traffic: TrafficCounts | undefined },
  target: string,
  ok: boolean,
): BenchFigure {
  const describe = ({ what, traffic }: typeof one) =>
    traffic === undefined ? `${what}: nothing` : `${what} ${thousands(traffic.objects)} objects ` +
      `in ${megabytes(traffic.bytes)} (${thousands(traffic.lists.items)} in ` +
      `${traffic.lists.count} list responses, ${thousands(traffic.watchEvents.count)} in ` +
      `watch events, ${thousands(traffic.gets.count)} GETs)`;
  const ratio = (key: "objects" | "bytes") =>
    percent((one.traffic?.[key] ?? 0) / (other.traffic?.[key] ?? 1));
  return {
    name,
    value: `${describe(one)}; ${describe(other)}: ${ratio("objects")} of the objects, ` +
      `${ratio("bytes")} of the bytes`,
    target,
    ok,
  };
}

async function selectors(): Promise<BenchFigure[]> {
  const idle = await podsRun("idle");
  const labels = await podsRun("labels");
  const callback = await podsRun("callback");
  return selectorsFigures(idle, labels, callback);
}

// --- Metadata only -----------------------------------------------------------------------

const CONFIGMAP = { apiVersion: "v1", kind: "ConfigMap" };
const CONFIGMAPS = Number(Deno.env.get("KOPF_BENCH_BIG_CONFIGMAPS") ?? scaled(10_000, 100));
const CONFIGMAP_KB = Number(Deno.env.get("KOPF_BENCH_BIG_CONFIGMAP_KB") ?? 100);
const CONFIGMAP_CHANGES = scaled(100, 5);
const CONFIGMAP_NAMESPACE = "big-configmaps";
const METADATA_BYTES_TARGET = 0.05;
const METADATA_RSS_TARGET = 0.3;

/** A ConfigMap with one value of `CONFIGMAP_KB` KB, its own; every 1,000th to inspect. */
function configMap(i: number): RawBody {
  const stamp = String(i).padStart(8, "0");
  return {
    ...CONFIGMAP,
    metadata: {
      name: `settings-${stamp}`,
      namespace: CONFIGMAP_NAMESPACE,
      labels: { tier: `t${i % 3}`, ...(i % 1_000 === 0 ? { inspect: "yes" } : {}) },
      annotations: { "bench.kopf.dev/digest": `sha256:${stamp}${(i * 2654435761 >>> 0)}` },
    },
    data: { "settings.json": stamp.repeat((CONFIGMAP_KB * 1024) / stamp.length) },
  };
}

type ConfigMapsMode = "idle" | "metadata" | "bodies";

interface ConfigMapsRun {
  mode: ConfigMapsMode;
  /** Peak RSS of the operator process, MB. */
  peak: number;
  /** Seconds from the spawn until all were handled (their creation). */
  handled: number;
  /** `H <handler> <namespace>/<name> <result>`, in the order called. */
  calls: string[];
  /** What the server sent of ConfigMaps. */
  traffic: TrafficCounts | undefined;
  /** The fake cluster's process: seconds to create the objects, RSS after, RSS at the end. */
  cluster: { seconds: number; rss: number; rssAtEnd: number };
}

async function configMapsRun(mode: ConfigMapsMode): Promise<ConfigMapsRun> {
  await using cluster = await FakeCluster.start();
  cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: CONFIGMAP_NAMESPACE } });
  const began = now();
  const names: string[] = [];
  for (let i = 0; i < (mode === "idle" ? 0 : CONFIGMAPS); i++) {
    names.push(cluster.create(configMap(i)).metadata!.name!);
  }
  const made = { seconds: (now() - began) / 1000, rss: rssMb(Deno.pid).now };
  const calls: string[] = [];
  const created = new Set<string>();
  const updated = new Set<string>();
  await using operator = new Operator(
    cluster.url,
    mode === "idle" ? "metadata" : mode,
    [CONFIGMAP_NAMESPACE],
    (line) => {
      const [h, handler, key] = line.split(" ");
      if (h !== "H") return;
      calls.push(line);
      (handler === "create" ? created : updated).add(key);
    },
  );
  const limit = allowance(CONFIGMAPS * CONFIGMAP_KB / 10);
  await operator.until(() => operator.ready, limit, `the operator (${mode}) to be ready`);
  const run = { mode, calls, traffic: undefined, handled: 0 };
  if (mode === "idle") {
    await sleep(3_000); // a few seconds of serving
    const rss = rssMb(Deno.pid).now;
    return { ...run, peak: rssMb(operator.pid).peak, cluster: { ...made, rssAtEnd: rss } };
  }
  await operator.until(
    () => created.size >= CONFIGMAPS,
    limit,
    `the ${CONFIGMAPS} ConfigMaps to be handled (${created.size} so far)`,
  );
  const handled = (now() - operator.spawned) / 1000;
  // Changes: a new label (their update handlers run, in both ways of watching).
  const step = Math.floor(CONFIGMAPS / CONFIGMAP_CHANGES);
  for (let i = 0; i < CONFIGMAP_CHANGES; i++) {
    const patch = { metadata: { labels: { rev: "2" } } };
    cluster.patch("configmaps", names[i * step], patch, { namespace: CONFIGMAP_NAMESPACE });
  }
  await operator.until(
    () => updated.size >= CONFIGMAP_CHANGES,
    allowance(CONFIGMAP_CHANGES),
    `the ${CONFIGMAP_CHANGES} changed ConfigMaps to be handled (${updated.size} so far)`,
  );
  await sleep(2_000); // anything more that would come (it should not)
  return {
    ...run,
    handled,
    peak: rssMb(operator.pid).peak,
    traffic: cluster.traffic.resources["configmaps"],
    cluster: { ...made, rssAtEnd: rssMb(Deno.pid).now },
  };
}

function metadataFigures(
  idle: ConfigMapsRun,
  metadata: ConfigMapsRun,
  bodies: ConfigMapsRun,
): BenchFigure[] {
  const bytes = (metadata.traffic?.bytes ?? Infinity) / (bodies.traffic?.bytes ?? 1);
  const above = (run: ConfigMapsRun) => run.peak - idle.peak;
  const ratio = above(metadata) / above(bodies);
  const same = JSON.stringify([...metadata.calls].sort()) ===
    JSON.stringify([...bodies.calls].sort());
  const n = `${thousands(CONFIGMAPS)} ConfigMaps of ${CONFIGMAP_KB} KB`;
  const expected = CONFIGMAPS + CONFIGMAP_CHANGES;
  return [
    transferFigure(
      `${n}: ConfigMaps sent to the operator`,
      { what: "metadataOnly", traffic: metadata.traffic },
      { what: "whole objects", traffic: bodies.traffic },
      `≤ ${percent(METADATA_BYTES_TARGET)} of the bytes`,
      bytes <= METADATA_BYTES_TARGET,
    ),
    {
      name: `${n}: operator peak RSS above the idle one (${idle.peak.toFixed(0)} MB)`,
      value: `metadataOnly ${above(metadata).toFixed(0)} MB (${metadata.peak.toFixed(0)}), ` +
        `whole objects ${above(bodies).toFixed(0)} MB (${bodies.peak.toFixed(0)}): ` +
        `${(ratio * 100).toFixed(0)}%`,
      target: `≤ ${METADATA_RSS_TARGET * 100}%`,
      ok: ratio <= METADATA_RSS_TARGET,
    },
    {
      name: `${n}: spawn → all handled`,
      value: `metadataOnly ${metadata.handled.toFixed(1)} s, whole objects ` +
        `${bodies.handled.toFixed(1)} s`,
    },
    {
      name: `${n}: handler results, ${CONFIGMAP_CHANGES} ConfigMaps changed`,
      value: `metadataOnly ${metadata.calls.length}, whole objects ${bodies.calls.length}: ` +
        (same ? "the same results for the same objects" : "DIFFERENT"),
      target: `the same ${thousands(expected)}`,
      ok: same && metadata.calls.length === expected,
    },
    {
      name: `${n}: the fake cluster (this process)`,
      value: `created in ${bodies.cluster.seconds.toFixed(1)} s; RSS ` +
        `${bodies.cluster.rss.toFixed(0)} MB then, ${bodies.cluster.rssAtEnd.toFixed(0)} MB ` +
        `after the whole objects' run, ${metadata.cluster.rssAtEnd.toFixed(0)} MB after the ` +
        `metadataOnly one`,
    },
  ];
}

async function metadataOnly(): Promise<BenchFigure[]> {
  const idle = await configMapsRun("idle");
  const metadata = await configMapsRun("metadata");
  const bodies = await configMapsRun("bodies");
  return metadataFigures(idle, metadata, bodies);
}

// --- Live events first -------------------------------------------------------------------

async function liveFirst(): Promise<BenchFigure[]> {
  await using cluster = await FakeCluster.start({ historySize: 4 * EXISTING + 1_000 });
  const crd = new URL("examples/crd.yaml", ROOT);
  cluster.create(parseYaml(await Deno.readTextFile(crd)) as RawBody);
  for (let i = 0; i < EXISTING; i++) {
    cluster.create({ ...KEX, metadata: { name: `old-${i}`, namespace: "default" } });
  }
  const counter = new RequestCounter(cluster);
  const drainer = setInterval(() => counter.drain(), 50);
  using _drainer = { [Symbol.dispose]: () => clearInterval(drainer) };
  await using operator = new Operator(cluster.url, "live", ["default"], () => {});
  // The new objects are created as the handling of the old ones passes each 1/21st of them.
  const created = new Map<string, number>();
  let progress = { handled: 0, at: now() };
  await operator.until(
    () => {
      counter.drain();
      const handled = counter.statusPatched.size;
      if (handled > progress.handled) progress = { handled, at: now() };
      if (now() - progress.at > 60_000) {
        throw new Error(`The operator stalled at ${handled} of ${EXISTING + LIVE} objects.`);
      }
      const next = created.size;
      if (next < LIVE && handled >= ((next + 1) * EXISTING) / (LIVE + 1)) {
        const name = `new-${next}`;
        created.set(name, now());
        cluster.create({ ...KEX, metadata: { name, namespace: "default" } });
      }
      return created.size === LIVE && handled >= EXISTING + LIVE;
    },
    allowance(EXISTING) * 2,
    "all objects, old and new, to be handled",
  );
  const peak = rssMb(operator.pid).peak;
  const started = (body: RawBody) =>
    (body.status as { createFn?: { started?: number } } | undefined)?.createFn?.started;
  const objects = cluster.list(KEX);
  const latencies = objects.filter((o) => created.has(o.metadata!.name!))
    .map((o) => started(o)! - created.get(o.metadata!.name!)!).sort((a, b) => a - b);
  const lastOld = Math.max(
    ...objects.filter((o) => !created.has(o.metadata!.name!)).map((o) => started(o) ?? 0),
  );
  const backlog = (lastOld - operator.spawned) / 1000;
  const p99 = percentile(latencies, 99);
  const n = `${thousands(EXISTING)} existing objects`;
  counter.drain();
  const sent = cluster.traffic.resources["kopfexamples.kopf.dev"];
  const writes = counter.writesTo.get("objects") ?? 0;
  return [
    {
      name: `${n}: ${LIVE} created meanwhile, creation → handler start`,
      value: `p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, ` +
        `while the backlog took ${backlog.toFixed(1)} s (spawn → the last existing ` +
        `object's handler start; operator peak RSS ${peak.toFixed(0)} MB)`,
      target: `p99 ≤ ${thousands(LIVE_P99_TARGET_MS)} ms`,
      ok: latencies.length === LIVE && p99 <= LIVE_P99_TARGET_MS,
    },
    {
      name: `${n}: KopfExamples sent to the operator`,
      value: `${thousands(sent.objects)} objects in ${megabytes(sent.bytes)} ` +
        `(${thousands(sent.watchEvents.count)} in watch events, ${sent.lists.items} in ` +
        `${sent.lists.count} one-object lists, ${thousands(sent.gets.count)} GETs), where the ` +
        `objects and the events of the operator's ${thousands(writes)} writes are ` +
        `${thousands(EXISTING + LIVE + writes)}: the changes made during the listing are ` +
        `queued on its stream too, besides the live watch`,
    },
  ];
}

// --- Shards ------------------------------------------------------------------------------

const SHARD_OBJECTS = scaled(10_000, 100);
const SHARD_COUNTS = (Deno.env.get("KOPF_BENCH_BIG_SHARDS") ?? "1,2").split(",").map(Number);

interface ShardsRun {
  shards: number;
  /** What the server sent of KopfExamples, to all replicas together. */
  objects: TrafficCounts;
  /** And of Leases (the shards' coordination). */
  leases: TrafficCounts | undefined;
  seconds: number;
}

/** `kopf run --shards N` replicas handling objects created once each holds its shard. */
async function shardsRun(shards: number): Promise<ShardsRun> {
  await using cluster = await FakeCluster.start({ historySize: 4 * SHARD_OBJECTS + 1_000 });
  const crd = parseYaml(await Deno.readTextFile(new URL("examples/crd.yaml", ROOT))) as RawBody;
  cluster.create(crd);
  const kubeconfig = await cluster.writeKubeconfig();
  const replicas = startShardReplicas(kubeconfig, shards);
  const exited = Promise.race(replicas.map((r, i) =>
    r.process.status.then((status) => {
      throw new Error(`Replica ${i} of ${shards} exited with code ${status.code}.`);
    })
  ));
  exited.catch(() => {});
  const until = async (check: () => boolean, seconds: number, what: string) => {
    const deadline = Date.now() + seconds * 1000;
    while (!check()) {
      if (Date.now() > deadline) {
        throw new Error(`Timed out after ${seconds} s waiting for ${what}.`);
      }
      await Promise.race([sleep(100), exited]);
    }
  };
  try {
    const watching = () =>
      cluster.openWatches > 0 &&
      cluster.requests.filter((r) => r.verb === "watch" && r.path.endsWith("/kopfexamples"))
          .length >= shards;
    await until(watching, 60, "every replica to watch the objects");
    if (shards > 1) {
      await until(() => shardsHeld(cluster, shards), 60, "every replica to hold a shard");
    }
    const started = now();
    for (let i = 0; i < SHARD_OBJECTS; i++) {
      cluster.create({ ...KEX, metadata: { name: `obj-${i}`, namespace: "default" } });
      if (i % 100 === 99) await sleep(0);
    }
    const handled = () =>
      cluster.list(KEX).filter((body) =>
        (body.status as { create?: { by?: string } } | undefined)?.create?.by !== undefined
      ).length;
    let count = 0;
    await until(
      () => (count = handled()) === SHARD_OBJECTS,
      allowance(SHARD_OBJECTS) * shards,
      `every object to be handled (${count} of ${SHARD_OBJECTS} so far)`,
    );
    const seconds = (now() - started) / 1000;
    await sleep(2_000); // the echoes of the last writes
    const traffic = cluster.traffic.resources;
    return {
      shards,
      objects: traffic["kopfexamples.kopf.dev"],
      leases: traffic["leases.coordination.k8s.io"],
      seconds,
    };
  } finally {
    // Bounded, then drained (stop() reads what is left of the output).
    await Promise.all(replicas.map((r) => stopWithin(r).then(() => r.stop())));
  }
}

async function shardsFigures(): Promise<BenchFigure[]> {
  const runs: ShardsRun[] = [];
  for (const shards of SHARD_COUNTS) runs.push(await shardsRun(shards));
  const single = runs.find((run) => run.shards === 1) ?? runs[0];
  return runs.map((run) => ({
    name: `${thousands(SHARD_OBJECTS)} objects, ${run.shards} shard(s) = replica(s): sent to ` +
      `all replicas`,
    value: `${thousands(run.objects.objects)} objects in ${megabytes(run.objects.bytes)}, ` +
      `${thousands(Math.round(run.objects.objects / run.shards))} per replica, ` +
      `×${(run.objects.objects / single.objects.objects).toFixed(2)} of one replica's; ` +
      `leases ${thousands(run.leases?.objects ?? 0)} objects; all handled in ` +
      `${run.seconds.toFixed(1)} s`,
  }));
}

export const section: BenchSection = {
  title: "Big clusters: selectors from filters, metadata only, live events first, shards",
  async run(): Promise<BenchFigure[]> {
    const figures: BenchFigure[] = [];
    if (PARTS.includes("selectors")) figures.push(...await selectors());
    if (PARTS.includes("metadata")) figures.push(...await metadataOnly());
    if (PARTS.includes("live")) figures.push(...await liveFirst());
    if (PARTS.includes("shards")) figures.push(...await shardsFigures());
    return figures;
  },
};
