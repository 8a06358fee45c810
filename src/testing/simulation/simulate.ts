/**
 * `simulate()`: an operator and a fake cluster in one process, on virtual time, every
 * choice drawn from a seed -- the order of what is in flight, latencies, faults, the legal
 * answers of kube-apiserver that operators get wrong, crashes and restarts. A scenario
 * drives the cluster; invariants judge it once it has settled. A failing seed comes with
 * its trace, and replays exactly.
 *
 * @module
 */
import type { RawBody } from "../../structs/bodies.ts";
import { UsageError } from "../../structs/errors.ts";
import { sleep } from "../../structs/clock.ts";
import { configure } from "../../platform/logging.ts";
import { fileUrlOf } from "../../platform/modules.ts";
import { OperatorRegistry } from "../../intents/registry.ts";
import { executeRun } from "../../commands/run.ts";
import { loadSources, planRun } from "../../commands/run_options.ts";
import { type InProcessCluster, inProcessCluster } from "../fake_cluster/cluster.ts";
import type { FakeCluster } from "../fake_cluster/cluster.ts";
import { SeededRandom } from "./seeded_random.ts";
import { SimulationStallError, VirtualTime } from "./virtual_time.ts";
import { installVirtualGlobals } from "./virtual_globals.ts";
import { Trace } from "./trace.ts";
import { BASE_RATES, faultWeights, type SimulationFaults } from "./simulation_faults.ts";
import { shrinkFaults } from "./shrinking.ts";
import { SimulatedNetwork } from "./network.ts";
import { OperatorProcesses } from "./operator_processes.ts";
import { builtinInvariants, firstBroken, named, type NamedInvariant } from "./invariants.ts";
import { preloadLazyModules } from "../../reactor/lazy_modules.ts";
import type {
  Simulation,
  SimulationFailure,
  SimulationOptions,
  SimulationReport,
} from "./simulation_types.ts";

/** The wall time when every simulated run starts: fixed, so that traces do not depend on the day. */
const EPOCH = Date.UTC(2030, 0, 1);

/** The URL the fake cluster is served at (each operator process reaches it through its own link). */
const CLUSTER_URL = "http://cluster.simulation.invalid";

/** Simulated seconds the operator may take to start, and to stop at the end. */
const START_LIMIT = 600;
const STOP_LIMIT = 900;

/** The methods of the fake cluster's direct API that change it: traced when a scenario calls them. */
const WRITES = new Set(["create", "patch", "replace", "apply", "delete"]);

/**
 * Run the operator under simulation for each seed; see the module.
 *
 * @example A lost update that only some interleavings show
 * ```ts
 * import { simulate } from "@kopf/kopf/testing";
 *
 * const report = await simulate({
 *   operator: "./operator.ts",
 *   seeds: 200,
 *   scenario: async (sim) => {
 *     for (let i = 0; i < 10; i++) {
 *       sim.cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `c${i}` } });
 *     }
 *     await sim.sleep(60);
 *   },
 *   invariants: [
 *     function counted(sim) {
 *       const data = sim.cluster.get("configmaps", "counter")?.data as { count?: string };
 *       return data?.count === "10" ? undefined : `the counter is ${data?.count}, not 10`;
 *     },
 *   ],
 * });
 * for (const failure of report.failures) {
 *   console.log(`seed ${failure.seed}: ${failure.invariant}: ${failure.message}`);
 * }
 * ```
 */
export async function simulate(options: SimulationOptions): Promise<SimulationReport> {
  const seeds = seedsOf(options);
  const settle = options.settle ?? 600;
  if (!(settle >= 0) || !Number.isFinite(settle)) {
    throw new UsageError(`The settle time must be simulated seconds (0 or more), not ${settle}.`);
  }
  if (typeof options.scenario !== "function") {
    throw new UsageError("simulate() needs a scenario: an async function of the simulation.");
  }
  faultWeights(options.faults); // refuse bad switches before anything runs
  await preloadLazyModules(); // a seed's run is the same in a fresh process as after others
  const registryFor = await loaderOf(options.operator);
  const failures: SimulationFailure[] = [];
  let done = 0;
  try {
    for (const seed of seeds) {
      const result = await runSeed(seed, await registryFor(), options, settle);
      done++;
      if (result.failure && options.shrink) {
        const again = (suppress: readonly (keyof SimulationFaults)[]) =>
          registryFor().then((registry) =>
            runSeed(seed, registry, { ...options, suppress }, settle)
          ).then((r) => r.failure);
        const shrunk = await shrinkFaults(
          result.failure,
          options.faults,
          options.suppress ?? [],
          again,
        );
        result.failure = { ...result.failure, shrunk };
      }
      if (result.failure) failures.push(result.failure);
      options.onRun?.({ seed, done, total: seeds.length, ...result });
      if (result.failure && options.stopAtFailure) break;
    }
  } finally {
    configure(); // the last run's trace is no place for the process's next log lines
  }
  return { runs: done, failures };
}

function seedsOf(options: SimulationOptions): number[] {
  const integer = (value: number | undefined, what: string) => {
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
      throw new UsageError(`The ${what} must be a whole number of 0 or more, not ${value}.`);
    }
  };
  integer(options.seed, "seed");
  integer(options.seeds, "number of seeds");
  integer(options.firstSeed, "first seed");
  if (options.seed !== undefined) {
    if (options.seeds !== undefined) {
      throw new UsageError("Give either one seed (seed) or a number of seeds (seeds), not both.");
    }
    return [options.seed];
  }
  const first = options.firstSeed ?? 1;
  return Array.from({ length: options.seeds ?? 1 }, (_, i) => first + i);
}

/**
 * What makes the operator's registry for each seed: the registry given, the function's, or
 * the module's imported afresh (once here already, so that a module that fails to load
 * fails before any seed runs).
 */
async function loaderOf(
  operator: SimulationOptions["operator"],
): Promise<() => Promise<OperatorRegistry>> {
  if (operator instanceof OperatorRegistry) return () => Promise.resolve(operator);
  if (typeof operator === "function") {
    return () => {
      const registry = operator();
      if (!(registry instanceof OperatorRegistry)) {
        throw new UsageError("The simulation's operator function must return an OperatorRegistry.");
      }
      return Promise.resolve(registry);
    };
  }
  const name = String(operator);
  if (name === "") {
    throw new UsageError("simulate() needs the operator: a module path, a function or a registry.");
  }
  const file = name.startsWith("file:") ? name : fileUrlOf(name);
  const load = async () => {
    const registry = new OperatorRegistry();
    await loadSources([{ name, specifier: file, file: !name.startsWith("file:") }], {
      registry,
      fresh: true,
    });
    return registry;
  };
  let first: Promise<OperatorRegistry> | undefined = load();
  await first;
  return () => {
    const registry = first ?? load();
    first = undefined;
    return registry;
  };
}

interface SeedResult {
  failure: SimulationFailure | undefined;
  simulated: number;
  steps: number;
}

/** One seed's run, from nothing to the invariants; the process's globals are restored after. */
async function runSeed(
  seed: number,
  registry: OperatorRegistry,
  options: SimulationOptions,
  settle: number,
): Promise<SeedResult> {
  const random = new SeededRandom(seed);
  const time = new VirtualTime(EPOCH);
  const trace = new Trace(() => time.now());
  const rejections: unknown[] = [];
  const onRejection = (event: PromiseRejectionEvent) => {
    event.preventDefault();
    rejections.push(event.reason);
  };
  const restore = installVirtualGlobals(time, random);
  globalThis.addEventListener?.("unhandledrejection", onRejection);
  let run: SeedRun | undefined;
  try {
    // Drawn first, so that it does not shift the rest of the seed's draws.
    const weight = faultWeights(options.faults).pagedLists;
    const paged = random.chance(Math.min(1, BASE_RATES.pagedLists * weight));
    const streamingLists = !paged || (options.suppress ?? []).includes("pagedLists");
    const cluster = await inProcessCluster(
      { token: "simulated-token", streamingLists },
      CLUSTER_URL,
    );
    for (const resource of options.resources ?? []) cluster.cluster.create(resource);
    run = new SeedRun(seed, registry, options, time, random, trace, cluster, rejections);
    if (!streamingLists) trace.add("fault", "this server lists in pages: no streaming lists");
    try {
      return await run.run(settle);
    } catch (error) {
      // Time that cannot move on is the operator's failure (a busy loop), told with its trace.
      if (!(error instanceof SimulationStallError)) throw error;
      trace.add("check", `the simulation stalls: ${error.message}`);
      const failure = {
        seed,
        invariant: "the simulation stalls",
        message: error.message,
        trace: trace.text(),
      };
      return { failure, simulated: time.now(), steps: time.steps };
    }
  } finally {
    run?.processes.close();
    globalThis.removeEventListener?.("unhandledrejection", onRejection);
    restore();
  }
}

/** The phases of one seed's run, in the world its globals were replaced for. */
class SeedRun {
  readonly net: SimulatedNetwork;
  readonly processes: OperatorProcesses;
  readonly sim: Simulation;
  readonly checks: readonly NamedInvariant[];

  constructor(
    readonly seed: number,
    registry: OperatorRegistry,
    readonly options: SimulationOptions,
    readonly time: VirtualTime,
    random: SeededRandom,
    readonly trace: Trace,
    readonly cluster: InProcessCluster,
    readonly rejections: readonly unknown[],
  ) {
    this.net = new SimulatedNetwork(
      time,
      random,
      trace,
      faultWeights(options.faults),
      cluster.handle,
      () => cluster.cluster.resourceVersion,
      new Set(options.suppress ?? []),
    );
    const plan = planRun([], {
      ...(options.namespaces?.length
        ? { namespace: [...options.namespaces] }
        : { allNamespaces: true }),
      logFormat: "plain",
      verbose: options.verbose ?? false,
    });
    const fake = cluster.cluster;
    const world = {
      url: CLUSTER_URL,
      replicas: options.replicas ?? 1,
      credentials: () => ({ ...fake.connectionInfo, source: "the simulation" }),
      leader: () => leaderOf(fake),
      expireToken: () => void fake.faults.expireToken(),
    };
    this.processes = new OperatorProcesses(
      this.net,
      world,
      (login, signal, onReady) =>
        executeRun(plan, {
          registry,
          settings: options.settings,
          signal,
          writer: (line) => trace.add("log", line),
          login,
          onReady,
          clock: time,
        }),
    );
    this.sim = simulationOf(seed, cluster.cluster, time, random, trace);
    this.checks = named(options.invariants ?? []);
  }

  async run(settle: number): Promise<SeedResult> {
    const { time, processes, options } = this;
    processes.begin();
    if (!(await this.#until(processes.ready, START_LIMIT))) {
      return this.#fail("the operator starts", `it did not serve within ${START_LIMIT} s`);
    }
    const early = processes.failures[0];
    if (early !== undefined) return this.#fail("the operator starts", early);
    const scenario = await this.#scenario();
    if (scenario !== undefined) return scenario;
    // Settling: the storm goes on for half of it, then calm.
    time.schedule(settle / 2, () => {
      this.net.calm = true;
      this.trace.add("check", "no more faults: the operator settles");
    });
    const settled = await this.#runChecking(() => false, time.now() + settle);
    if (settled) return this.#fail(settled.name, `${settled.message} (checked after every step)`);
    const problem = this.#problem();
    if (problem !== undefined) return this.#fail("the operator runs", problem);
    const builtins = options.builtinInvariants === false ? [] : builtinInvariants(
      this.cluster.objects,
    );
    const broken = await firstBroken([...this.checks, ...builtins], this.sim);
    if (broken) return this.#fail(broken.name, broken.message);
    // A graceful stop at the end must work too.
    this.net.calm = true;
    if (!(await this.#until(processes.finish(), time.now() + STOP_LIMIT))) {
      return this.#fail("the operator stops", `it did not stop within ${STOP_LIMIT} s`);
    }
    const late = this.#problem();
    if (late !== undefined) return this.#fail("the operator runs", late);
    return { failure: undefined, simulated: time.now(), steps: time.steps };
  }

  /** The scenario, with the user's invariants after every step if asked; a failure if any. */
  async #scenario(): Promise<SeedResult | undefined> {
    let finished = false;
    let error: unknown;
    Promise.resolve().then(() => this.options.scenario(this.sim)).then(
      () => (finished = true),
      (reason: unknown) => {
        error = reason;
        finished = true;
      },
    );
    const seconds = this.options.scenarioTimeLimit ?? 86_400;
    const stepped = await this.#runChecking(() => finished, this.time.now() + seconds);
    if (stepped) return this.#fail(stepped.name, `${stepped.message} (checked after every step)`);
    if (error !== undefined) return this.#fail("the scenario", `it threw: ${describe(error)}`);
    if (!finished) {
      return this.#fail("the scenario", `it did not finish within ${seconds} s of simulated time`);
    }
    this.trace.add("scenario", "done; the operator settles");
    return undefined;
  }

  /** Whether the promise settles before the time limit (run on virtual time). */
  async #until(promise: Promise<unknown>, limit: number): Promise<boolean> {
    let settled = false;
    promise.then(() => (settled = true), () => (settled = true));
    await this.time.run(() => settled, limit);
    return settled;
  }

  /** Run until done or the limit; with `checkEveryStep`, the first invariant broken on the way. */
  #runChecking(
    done: () => boolean,
    limit: number,
  ): Promise<{ name: string; message: string } | undefined> {
    if (this.options.checkEveryStep && this.checks.length > 0) {
      return runChecking(this.time, done, limit, this.checks, this.sim);
    }
    return this.time.run(done, limit).then(() => undefined);
  }

  /** How the run went wrong outside the invariants: an operator's end, an uncaught error. */
  #problem(): string | undefined {
    return this.processes.failures[0] ?? this.time.uncaught.map(describe)[0] ??
      this.rejections.map((reason) => `an unhandled rejection: ${describe(reason)}`)[0];
  }

  #fail(invariant: string, message: string): SeedResult {
    this.trace.add("check", `${invariant}: ${message}`);
    return {
      failure: { seed: this.seed, invariant, message, trace: this.trace.text() },
      simulated: this.time.now(),
      steps: this.time.steps,
    };
  }
}

/** Run as {@link VirtualTime.run}, with the invariants asked after every step. */
async function runChecking(
  time: VirtualTime,
  done: () => boolean,
  limit: number,
  checks: readonly NamedInvariant[],
  sim: Simulation,
): Promise<{ name: string; message: string } | undefined> {
  let broken: { name: string; message: string } | undefined;
  let checking: Promise<void> | undefined;
  const stop = () => done() || broken !== undefined;
  const steps = time.steps;
  let last = steps;
  await time.run(() => {
    if (stop()) return true;
    if (time.steps !== last && checking === undefined) {
      last = time.steps;
      checking = firstBroken(checks, sim).then((found) => {
        broken = found;
        checking = undefined;
      });
    }
    return false;
  }, limit);
  await checking;
  return broken;
}

/** The pod name of the simulated replica that holds a Lease now, if one does. */
function leaderOf(cluster: FakeCluster): string | undefined {
  for (const lease of cluster.list("leases.coordination.k8s.io")) {
    const holder = (lease as { spec?: { holderIdentity?: unknown } }).spec?.holderIdentity;
    if (typeof holder === "string" && /^operator-\d+$/.test(holder)) return holder;
  }
  return undefined;
}

function describe(error: unknown): string {
  return (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).split(
    "\n",
  )[0];
}

/** The simulation a scenario and the invariants see. */
function simulationOf(
  seed: number,
  cluster: FakeCluster,
  time: VirtualTime,
  random: SeededRandom,
  trace: Trace,
): Simulation {
  const traced = new Proxy(cluster, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (typeof property !== "string" || !WRITES.has(property)) return value.bind(target);
      return (...args: unknown[]) => {
        trace.add("scenario", `${property} ${describeTarget(property, args)}`);
        return value.apply(target, args);
      };
    },
  });
  return {
    cluster: traced,
    seed,
    now: () => time.now(),
    sleep: (seconds: number) => sleep(seconds, undefined, time).then(() => {}),
    random: () => random.next(),
    log: (text: string) => trace.add("scenario", text),
  };
}

/** What a direct-API call of a scenario names, for the trace. */
function describeTarget(method: string, args: unknown[]): string {
  const [first, second] = args;
  if (method === "create" || method === "replace" || method === "apply") {
    const body = first as RawBody;
    const meta = body?.metadata ?? {};
    const name = meta.name ?? `${meta.generateName ?? ""}*`;
    return `${body?.kind} ${meta.namespace ? `${meta.namespace}/` : ""}${name}`;
  }
  return `${typeof first === "string" ? first : JSON.stringify(first)} ${String(second)}`;
}
