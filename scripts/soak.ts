/**
 * The soak: an operator (`scripts/soak/operator.ts`, run by `kopf run` under the minimal
 * Deno permissions that `kopf permissions` plans) against a fake cluster with its faults
 * on — watches dropped every 7 s, 3% of requests failing with 500 and 2% of patches with
 * 503, 429 storms (30% of requests, every other 15 s) with `Retry-After`, 2 ms latency,
 * tokens expiring every 45 s, 1% of the writes' replies lost — and SIGKILLed every 20 s, while this driver
 * creates, updates and deletes N objects, one phase after another.
 *
 *     deno task soak                        # 10,000 objects, kills every 20 s
 *     deno task soak --objects 2000         # fewer objects
 *     deno task soak --kill-every 0 --duration 1800   # 30 minutes without kills: memory
 *     deno task soak --signal term --slow-every 100   # rolling restarts: SIGTERM, slow handlers
 *     deno task soak --event-ttl 3600       # Events kept an hour, as kube-apiserver's default
 *     KOPF_SOAK_LOG=soak.log deno task soak …        # the operator's log kept in a file
 *
 * With `--signal term`, the operator gets SIGTERM instead of SIGKILL (a rolling restart):
 * it must finish and store what runs before it exits, so no handler may run twice at all.
 * `--slow-every N` makes the handlers of every N-th object take 5 s, so that the signals
 * land while handlers run.
 *
 * It prints a table: the changes made, handled, lost (never handled), the runs of handlers
 * that had succeeded (after a SIGKILL: at least once, as expected; otherwise: a defect),
 * stuck finalizers, crashes (exits that were not our kills), the operator's peak RSS, and
 * the fake cluster's RSS (it runs in this process) at the start, at its peak and at the end,
 * with the Events it still holds: they expire after `--event-ttl` seconds (240 by default).
 * With `--duration`, it keeps changing the objects for that long and reports the RSS of
 * both over time — minutes 5–10 (for the cluster: from when its history and its Events are
 * full, if later) against the last five, flat within 10%. Exit code 1 when
 * anything was lost or stuck, or a handler ran twice without a kill.
 *
 * @module
 */
import { parse as parseYaml } from "yaml";
import { FakeCluster } from "../src/testing/mod.ts";
import type { RawBody } from "../src/structs/bodies.ts";
import { planPermissions } from "../src/cli/permissions.ts";
import { v8FlagsArgument } from "../src/cli/runtime_flags.ts";
import { memoryTrend, RssSampler, trendRows, WARM_UP } from "./soak/memory.ts";
import { objectName, type Run, RunLog } from "./soak/runs.ts";

const KIND = "kopfexamples.kopf.dev";
/** The changes the fake cluster keeps for watches to resume from: its largest buffer. */
const HISTORY = 200_000;
const LAST_HANDLED = "kopf.zalando.org/last-handled-configuration";
const OPERATOR = new URL("./soak/operator.ts", import.meta.url).pathname;
const MAIN = new URL("../src/cli/main.ts", import.meta.url).pathname;

interface Options {
  objects: number;
  killEvery: number;
  duration: number;
  phaseTimeout: number;
  /** The signal of the restarts: SIGKILL (a crash), or SIGTERM (a rolling restart). */
  signal: "kill" | "term";
  /** Every how many objects the handlers are slow (0: none). */
  slowEvery: number;
  /** Seconds after their last write when the fake cluster deletes Events. */
  eventTtl: number;
}

function parseOptions(args: readonly string[]): Options {
  const options: Options = {
    objects: 10_000,
    killEvery: 20,
    duration: 0,
    phaseTimeout: 900,
    signal: "kill",
    slowEvery: 0,
    // Shorter than kube-apiserver's hour: the Events reach their steady count within the
    // warm-up, before minute 5, where a long run's memory is first averaged.
    eventTtl: 240,
  };
  const keys: Record<
    string,
    "objects" | "killEvery" | "duration" | "phaseTimeout" | "slowEvery" | "eventTtl"
  > = {
    "--objects": "objects",
    "--kill-every": "killEvery",
    "--duration": "duration",
    "--phase-timeout": "phaseTimeout",
    "--slow-every": "slowEvery",
    "--event-ttl": "eventTtl",
  };
  for (let i = 0; i < args.length; i += 2) {
    if (args[i] === "--signal" && (args[i + 1] === "kill" || args[i + 1] === "term")) {
      options.signal = args[i + 1] as "kill" | "term";
      continue;
    }
    const key = keys[args[i]];
    const value = Number(args[i + 1]);
    if (key === undefined || !Number.isFinite(value) || value < 0) {
      console.error(
        `Unknown or bad option ${args[i]} ${args[i + 1] ?? ""}; use --objects N, ` +
          "--kill-every SECONDS (0: never), --duration SECONDS, --phase-timeout SECONDS, " +
          "--signal kill|term, --slow-every N, --event-ttl SECONDS (0: never).",
      );
      Deno.exit(2);
    }
    options[key] = value;
  }
  return options;
}

/** The operator process, restarted after each kill; its runs and memory are recorded. */
class OperatorProcess {
  readonly runs = new RunLog();
  /** The RSS of each incarnation in turn; the peak of all. */
  readonly rss = new RssSampler();
  incarnations = 0;
  kills = 0;
  crashes = 0;
  #child: Deno.ChildProcess | undefined;
  #killedOnPurpose = false;
  #stopping = false;
  #exited: Promise<void> = Promise.resolve();

  constructor(
    private readonly flags: readonly string[],
    private readonly env: Record<string, string>,
    private readonly signal: Deno.Signal = "SIGKILL",
  ) {}

  start(): void {
    const incarnation = ++this.incarnations;
    this.#killedOnPurpose = false;
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        v8FlagsArgument(),
        ...this.flags,
        MAIN,
        "run",
        "-A",
        "--standalone",
        // With KOPF_SOAK_LOG, KOPF_SOAK_VERBOSE=1 keeps the debug messages too.
        ...(Deno.env.get("KOPF_SOAK_VERBOSE") === "1" ? ["--verbose"] : []),
        OPERATOR,
      ],
      env: this.env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#child = child;
    const reading = (async () => {
      let buffer = "";
      for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
        buffer += chunk;
        let at: number;
        while ((at = buffer.indexOf("\n")) >= 0) {
          const [tag, what, name, value, version, retry] = buffer.slice(0, at).split(" ");
          buffer = buffer.slice(at + 1);
          if (tag === "RUN") this.runs.add(what, name, value, version, retry, incarnation);
        }
      }
    })();
    const errors: string[] = [];
    // KOPF_SOAK_LOG=FILE keeps the operator's whole log there, to look into what went wrong.
    const keep = Deno.env.get("KOPF_SOAK_LOG");
    const stderr = (async () => {
      for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
        if (keep) await Deno.writeTextFile(keep, chunk, { append: true });
        errors.push(chunk);
        if (errors.length > 200) errors.splice(0, 100);
      }
    })();
    this.#exited = (async () => {
      const status = await child.status;
      await Promise.all([reading, stderr]);
      if (!this.#killedOnPurpose && !this.#stopping) {
        this.crashes++;
        console.error(`The operator exited by itself (code ${status.code}):\n${errors.join("")}`);
        if (this.crashes >= 10) {
          console.error("It crashed 10 times: the soak stops here.");
          Deno.exit(1);
        }
        // A pause, as an orchestrator makes one: a crash loop must not spin.
        await new Promise((resolve) => setTimeout(resolve, 2000));
        if (!this.#stopping) this.start();
      }
    })();
    this.rss.start(child.pid);
  }

  async kill(): Promise<void> {
    if (this.#killedOnPurpose) return; // the last one is still stopping gracefully
    this.#killedOnPurpose = true;
    this.kills++;
    try {
      this.#child?.kill(this.signal);
    } catch {
      // Already gone.
    }
    await this.#exited;
    this.start();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    this.rss.stop();
    try {
      this.#child?.kill("SIGTERM");
    } catch {
      // Already gone.
    }
    await this.#exited;
  }
}

function kex(name: string, value: number): RawBody {
  return {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name, namespace: "default" },
    spec: { value },
  };
}

/** Fully handled at this value: the diff-base holds it and no progress is left. */
function handledAt(value: number) {
  return (o: RawBody | undefined) => {
    const annotations = o?.metadata?.annotations ?? {};
    const busy = Object.keys(annotations).some((k) =>
      k.startsWith("kopf.zalando.org/") && k !== LAST_HANDLED
    );
    return !busy && (annotations[LAST_HANDLED] ?? "").includes(`"value":${value}`);
  };
}

/** Do something to every object at a steady pace (about 500 per second). */
async function paced(count: number, action: (name: string) => void): Promise<void> {
  for (let i = 0; i < count; i++) {
    action(objectName(i));
    if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Wait until every object satisfies the predicate or the timeout passes; the laggards. */
async function waitForAll(
  cluster: FakeCluster,
  count: number,
  predicate: (o: RawBody | undefined) => boolean,
  timeout: number,
): Promise<string[]> {
  const late: string[] = [];
  await Promise.all(
    Array.from({ length: count }, (_, i) => objectName(i)).map((name) =>
      cluster.waitFor(KIND, name, predicate, { timeout }).catch(() => late.push(name))
    ),
  );
  return late;
}

/**
 * The fake cluster's trend, judged after its bounded buffers are full — the history of
 * {@link HISTORY} changes, and the Events of one TTL (and its slack of a tenth) — or
 * after minute 5 if that is later; or why it is not judged.
 */
function clusterTrendRows(
  rss: RssSampler,
  historyFullAt: number | undefined,
  eventTtl: number,
): [string, string][] {
  const t0 = rss.samples[0]?.at ?? 0;
  const total = (rss.samples.at(-1)?.at ?? t0) - t0;
  if (total < WARM_UP + 600) return []; // too short to judge any memory
  if (historyFullAt === undefined) {
    return [[
      "fake cluster RSS trend",
      `not judged: its history (${HISTORY} changes) never filled`,
    ]];
  }
  const warmUp = Math.ceil(Math.max(WARM_UP, historyFullAt - t0, eventTtl * 1.1));
  const trend = memoryTrend(rss.samples, warmUp);
  if (trend) return trendRows("fake cluster", trend);
  return [[
    "fake cluster RSS trend",
    `not judged: its buffers were full at ${Math.round(warmUp / 60)} min, too late for two ` +
    "5-minute windows",
  ]];
}

async function main(): Promise<void> {
  const options = parseOptions(Deno.args);
  const n = options.objects;
  const started = performance.now();
  await using cluster = await FakeCluster.start({
    token: "soak-0",
    historySize: HISTORY,
    eventTtl: options.eventTtl,
  });
  cluster.create(
    parseYaml(await Deno.readTextFile(new URL("../examples/crd.yaml", import.meta.url))),
  );
  // The fake cluster lives in this process: its RSS is this process's, from before the
  // operator starts (the driver's own records are kept small for this; see RunLog).
  const clusterRss = new RssSampler();
  clusterRss.start("self");
  // Until its history is full, the cluster grows by design: when that happened, for the
  // trend to be judged on what comes after (each change is one resourceVersion).
  const firstVersion = Number(cluster.resourceVersion);
  let historyFullAt: number | undefined;
  const historyWatch = setInterval(() => {
    if (Number(cluster.resourceVersion) - firstVersion < HISTORY) return;
    historyFullAt = performance.now() / 1000;
    clearInterval(historyWatch);
  }, 1000);
  const kubeconfig = await cluster.writeKubeconfig();
  const permissions = await planPermissions({ kubeconfig, operatorFiles: [OPERATOR] });
  // The soak operator reads its own two variables besides what the framework needs.
  const own = "KOPF_SOAK_SLOW_EVERY,KOPF_SOAK_SLOW_SECONDS";
  const flags = permissions.flags().map((flag) =>
    flag.startsWith("--allow-env=") ? `${flag},${own}` : flag
  );
  if (!flags.some((flag) => flag.startsWith("--allow-env"))) flags.push(`--allow-env=${own}`);
  console.log(`Operator flags: ${flags.join(" ")}`);

  // The faults: all of them at once, all the time (429 storms come and go).
  cluster.faults.dropWatchesEvery(7);
  cluster.faults.failRequests({ share: 0.03, status: 500 });
  cluster.faults.failRequests({ share: 0.02, status: 503, verbs: ["patch"] });
  cluster.faults.latency(2);
  cluster.faults.loseReplies({ share: 0.01 });
  let storm = false;
  const storms = setInterval(() => {
    storm = !storm;
    if (storm) cluster.faults.failRequests({ share: 0.3, status: 429, retryAfter: 1 });
    else {
      cluster.faults.clear(); // all rules go: put back those that are always on
      cluster.faults.dropWatchesEvery(7);
      cluster.faults.latency(2);
      cluster.faults.loseReplies({ share: 0.01 });
      cluster.faults.failRequests({ share: 0.03, status: 500 });
      cluster.faults.failRequests({ share: 0.02, status: 503, verbs: ["patch"] });
    }
  }, 15_000);
  let tokens = 0;
  const expiry = setInterval(async () => {
    cluster.faults.expireToken();
    tokens++;
    await cluster.writeKubeconfig(kubeconfig); // the operator logs in again from it
  }, 45_000);

  const env = {
    ...Deno.env.toObject(),
    KUBECONFIG: kubeconfig,
    NO_COLOR: "1",
    KOPF_SOAK_SLOW_EVERY: String(options.slowEvery),
  };
  const signal = options.signal === "term" ? "SIGTERM" : "SIGKILL";
  const operator = new OperatorProcess(flags, env, signal);
  operator.start();
  const killer = options.killEvery > 0
    ? setInterval(() => void operator.kill(), options.killEvery * 1000)
    : undefined;

  const lost: string[] = [];
  const stuck: string[] = [];
  let changes = 0;
  try {
    // Phase 1: create; wait until each is handled at value 1.
    await paced(n, (name) => (cluster.create(kex(name, 1)), changes++));
    lost.push(...(await waitForAll(cluster, n, handledAt(1), options.phaseTimeout))
      .map((name) => `create ${name}`));
    console.log(`Created and handled: ${n - lost.length} of ${n}.`);
    // Phase 2: update; wait until each is handled at value 2.
    await paced(n, (name) => (cluster.patch(KIND, name, { spec: { value: 2 } }), changes++));
    lost.push(...(await waitForAll(cluster, n, handledAt(2), options.phaseTimeout))
      .map((name) => `update ${name}`));
    console.log("Updated and handled.");
    // With a duration: keep changing the objects (without deleting) for that long.
    let value = 2;
    const deadline = started / 1000 + options.duration;
    while (performance.now() / 1000 < deadline) {
      value++;
      const now = value;
      await paced(n, (name) => (cluster.patch(KIND, name, { spec: { value: now } }), changes++));
      await waitForAll(cluster, n, handledAt(now), options.phaseTimeout);
      console.log(
        `Round ${now - 2} handled at ${Math.round(performance.now() / 1000 - started / 1000)} s.`,
      );
    }
    // Phase 3: delete; wait until each is gone (its finalizer released).
    await paced(n, (name) => (cluster.delete(KIND, name), changes++));
    stuck.push(...await waitForAll(cluster, n, (o) => o === undefined, options.phaseTimeout));
    console.log("Deleted.");
  } finally {
    clearInterval(killer);
    clearInterval(storms);
    clearInterval(expiry);
    clusterRss.stop();
    clearInterval(historyWatch);
    await operator.stop();
  }
  const eventsLeft = cluster.list("events", { allNamespaces: true }).length;

  // What ran, how often, and in which incarnation.
  const byChange = new Map<string, Run[]>();
  for (const run of operator.runs) {
    const key = `${run.what} ${run.name} ${run.what === "delete" ? "-" : run.value}`;
    byChange.set(key, [...(byChange.get(key) ?? []), run]);
  }
  let afterKill = 0;
  let unexplained = 0;
  const twice: string[] = [];
  const rerun: string[] = [];
  for (const [key, runs] of byChange) {
    for (let i = 1; i < runs.length; i++) {
      // A rerun in a new incarnation: the one before was killed before it stored the outcome.
      if (runs[i].incarnation !== runs[i - 1].incarnation) {
        afterKill++;
        rerun.push(`${key} (incarnations ${runs.map((r) => r.incarnation).join(", ")})`);
      } else {
        unexplained++;
        twice.push(`${key} (on versions ${runs.map((r) => `${r.version}#${r.retry}`).join(", ")})`);
      }
    }
  }
  const expected = n * 2 + n; // creates, first updates, deletes (later rounds are extra)
  const neverRan = [];
  for (let i = 0; i < n; i++) {
    const name = objectName(i);
    for (const key of [`create ${name} 1`, `update ${name} 2`, `delete ${name} -`]) {
      if (!byChange.has(key)) neverRan.push(key);
    }
  }
  const minutes = (performance.now() - started) / 60_000;
  const table: [string, string][] = [
    ["objects", String(n)],
    ["changes made", String(changes)],
    ["changes handled (create, first update, delete)", String(expected - neverRan.length)],
    ["lost (never handled)", String(neverRan.length)],
    ["not converged in time", String(lost.length)],
    [
      options.signal === "term"
        ? "duplicate runs after a SIGTERM (none allowed)"
        : "duplicate runs right after a SIGKILL (at least once)",
      String(afterKill),
    ],
    ["duplicate runs without a kill", String(unexplained)],
    ["stuck finalizers", String(stuck.length)],
    ["crashes", String(operator.crashes)],
    [options.signal === "term" ? "SIGTERMs" : "SIGKILLs", String(operator.kills)],
    ["tokens expired", String(tokens)],
    ["operator peak RSS", `${Math.round(operator.rss.peakMb)} MB`],
    [
      "fake cluster RSS: start / peak / end (the driver's process)",
      [clusterRss.startMb, clusterRss.peakMb, clusterRss.endMb].map(Math.round).join(" / ") +
      " MB",
    ],
    [
      `Events left in the cluster (TTL ${options.eventTtl ? `${options.eventTtl} s` : "none"})`,
      String(eventsLeft),
    ],
    ["wall time", `${minutes.toFixed(1)} min`],
  ];
  // The RSS over time, for runs long enough to compare minutes 5–10 with the last five:
  // the operator's only without kills (each restart starts afresh), the cluster's always.
  const operatorTrend = options.killEvery === 0 ? memoryTrend(operator.rss.samples) : undefined;
  if (operatorTrend) table.push(...trendRows("operator", operatorTrend));
  table.push(...clusterTrendRows(clusterRss, historyFullAt, options.eventTtl));
  console.log("\n| figure | value |\n|---|---|");
  for (const [name, value] of table) console.log(`| ${name} | ${value} |`);
  if (neverRan.length > 0) {
    console.log(`Never handled (first 10): ${neverRan.slice(0, 10).join(", ")}`);
  }
  if (options.signal === "term" && rerun.length > 0) {
    console.log(`Run again after a SIGTERM (first 10): ${rerun.slice(0, 10).join(", ")}`);
  }
  if (twice.length > 0) {
    console.log(`Run twice without a kill (first 10): ${twice.slice(0, 10).join(", ")}`);
  }
  // A graceful stop stores what has run: a run repeated after it is a defect too.
  const repeated = options.signal === "term" ? afterKill : 0;
  const failed = neverRan.length > 0 || stuck.length > 0 || unexplained > 0 || lost.length > 0 ||
    repeated > 0;
  Deno.exit(failed ? 1 : 0);
}

if (import.meta.main) await main();
