/**
 * The operator's processes in a simulated run: one per replica (one replica by default).
 * A process may crash (as on SIGKILL: its link is cut and its memory is gone with it) or be
 * stopped gracefully, and its replica starts a new one a few seconds later -- with nothing of
 * the old one but the objects it wrote, as a container restarted in its pod (whose name, the
 * process's identity among its peers, it keeps). With several replicas, the leader may be
 * stopped on purpose: another takes the leadership over.
 *
 * @module
 */
import type { ConnectionInfo } from "../../structs/credentials.ts";
import { serveInProcess } from "../../platform/in_process_http.ts";
import { AsyncContext } from "../../platform/async_context.ts";
import { withHostIdentity } from "../../platform/host_identity.ts";
import { BASE_RATES } from "./simulation_faults.ts";
import type { SimulatedNetwork } from "./network.ts";
import { OperatorLink } from "./operator_link.ts";

/**
 * The process whose code runs now: requests go through its link. A flow of calls keeps its
 * process (timers, promises), so a client made by one process and used by the next is the
 * next one's -- and a dead process's code that still runs reaches nothing.
 */
const currentProcess = new AsyncContext<OperatorLink>();

/** Runs one operator process, logged in by `login`, until the signal aborts. */
export type OperatorStarter = (
  login: () => Promise<ConnectionInfo>,
  signal: AbortSignal,
  onReady: () => void,
) => Promise<void>;

/** What the processes need of the simulated world beyond the network. */
export interface ProcessWorld {
  /** The URL the cluster is served at, for all processes. */
  readonly url: string;
  /** How many replicas run at once. */
  readonly replicas: number;
  /** The credentials to log in with now (a token may have expired meanwhile). */
  readonly credentials: () => ConnectionInfo;
  /** The pod name of the replica that holds a Lease of the cluster now, if any. */
  readonly leader: () => string | undefined;
  /** Issue a new token; the old one gets 401s from now on. */
  readonly expireToken: () => void;
}

interface Process {
  /** The replica's pod name: its identity among peers, kept across restarts. */
  readonly pod: string;
  readonly link: OperatorLink;
  readonly stop: AbortController;
  /** Killed (crashed), or stopped on purpose: how it ends is then no failure. */
  dismissed: boolean;
  ended: boolean;
  done: Promise<void>;
}

/** See the module. */
export class OperatorProcesses {
  #count = 0;
  /** The live process of each replica (none between a crash and the restart). */
  readonly #live = new Map<string, Process>();
  readonly #all: Process[] = [];
  /** Requests from outside any process (a scenario's own client): never cut. */
  readonly #outside: OperatorLink;
  #unserve: (() => void) | undefined;
  readonly #chaos: (() => void)[] = [];
  #readyOnce!: () => void;
  /** Resolves once a first process serves (or has ended). */
  readonly ready: Promise<void> = new Promise((resolve) => (this.#readyOnce = resolve));
  /** How processes ended that were not meant to: one line each. */
  readonly failures: string[] = [];
  #finished = false;

  constructor(
    readonly net: SimulatedNetwork,
    readonly world: ProcessWorld,
    readonly starter: OperatorStarter,
  ) {
    this.#outside = new OperatorLink(net, 0, () => false);
  }

  /** Start a process per replica, and the random crashes, restarts and token expiries. */
  begin(): void {
    this.#unserve = serveInProcess(
      this.world.url,
      (request) => (currentProcess.get() ?? this.#outside).handle(request),
    );
    for (let i = 1; i <= this.world.replicas; i++) this.#start(`operator-${i}`);
    this.#every(
      "crashes",
      BASE_RATES.crashEvery,
      () => this.#crash(this.#pick(), "at a random moment"),
    );
    this.#every("restarts", BASE_RATES.restartEvery, () => this.#restart(this.#pick()));
    this.#every("tokenExpiry", BASE_RATES.tokenExpiryEvery, () => {
      this.net.trace.add("fault", "the token expires: requests with it get 401 from now on");
      this.world.expireToken();
    });
    if (this.world.replicas > 1) {
      this.#every("takeovers", BASE_RATES.takeoverEvery, () => {
        const leader = this.world.leader();
        const process = leader === undefined ? undefined : this.#live.get(leader);
        if (process !== undefined) this.#restart(process, "the leader");
      });
    }
  }

  /** Stop every live process gracefully, start none again; resolves when all have ended. */
  async finish(): Promise<void> {
    this.#finished = true;
    for (const cancel of this.#chaos.splice(0)) cancel();
    for (const process of this.#live.values()) {
      process.dismissed = true;
      this.net.trace.add("operator", `process ${process.link.process} is stopped at the end`);
      process.stop.abort();
    }
    this.#live.clear();
    await Promise.all(this.#all.map((p) => p.done));
  }

  /** Stop serving the cluster (after {@link finish}). */
  close(): void {
    this.#unserve?.();
    this.#unserve = undefined;
  }

  #start(pod: string): void {
    if (this.#finished) return;
    const number = ++this.#count;
    const link: OperatorLink = new OperatorLink(
      this.net,
      number,
      () => this.#live.get(pod)?.link === link && this.#crashAfterWrite(pod),
    );
    const stop = new AbortController();
    const process: Process = {
      pod,
      link,
      stop,
      dismissed: false,
      ended: false,
      done: Promise.resolve(),
    };
    this.#live.set(pod, process);
    this.#all.push(process);
    this.net.trace.add("operator", `process ${number} starts (${pod})`);
    const login = () => Promise.resolve(this.world.credentials());
    const identity = { pod, user: "simulation", host: "simulation" };
    process.done = currentProcess.run(
      link,
      () =>
        withHostIdentity(identity, () =>
          this.starter(login, stop.signal, () => {
            this.net.trace.add("operator", `process ${number} serves`);
            this.#readyOnce();
          })),
    )
      .then(
        () => this.#ended(process, undefined),
        (error: unknown) => this.#ended(process, error),
      );
  }

  #ended(process: Process, error: unknown): void {
    process.ended = true;
    this.#readyOnce();
    const number = process.link.process;
    if (process.dismissed) {
      this.net.trace.add("operator", `process ${number} has ended`);
      return;
    }
    if (this.#live.get(process.pod) === process) this.#live.delete(process.pod);
    const why = error === undefined
      ? "it stopped by itself"
      : (error instanceof Error ? error.message : String(error)).split("\n")[0];
    this.net.trace.add("operator", `process ${number} ended on its own: ${why}`);
    this.failures.push(`The operator (process ${number}) ended on its own: ${why}`);
  }

  /** A live process chosen by the seed, if any. */
  #pick(): Process | undefined {
    const live = [...this.#live.values()];
    return live.length === 0 ? undefined : live[this.net.random.below(live.length)];
  }

  /** A crash right after a write landed, if the seed says so now. */
  #crashAfterWrite(pod: string): boolean {
    if (!this.net.roll("crashes", BASE_RATES.crashAfterWrite)) return false;
    this.#crash(this.#live.get(pod), "right after a write landed");
    return true;
  }

  /** Kill the process as SIGKILL would; its replica starts another a few seconds later. */
  #crash(process: Process | undefined, when: string): void {
    if (process === undefined || process.ended || process.dismissed) return;
    process.dismissed = true;
    this.net.trace.add("fault", `process ${process.link.process} crashes ${when}`);
    process.link.sever();
    process.stop.abort();
    this.#live.delete(process.pod);
    this.#later(() => this.#start(process.pod));
  }

  /** Stop the process gracefully (SIGTERM); its replica starts another once it has ended. */
  #restart(process: Process | undefined, what = "process"): void {
    if (process === undefined || process.ended || process.dismissed) return;
    process.dismissed = true;
    this.net.trace.add("fault", `${what} (process ${process.link.process}) is stopped gracefully`);
    process.stop.abort();
    this.#live.delete(process.pod);
    process.done.then(() => this.#later(() => this.#start(process.pod)));
  }

  #later(fn: () => void): void {
    const [low, high] = BASE_RATES.restartDelay;
    this.#chaos.push(this.net.time.schedule(this.net.random.between(low, high), fn));
  }

  /** Do `fn` at random moments, this many seconds apart on average, while the storm lasts. */
  #every(
    fault: "crashes" | "restarts" | "takeovers" | "tokenExpiry",
    mean: number,
    fn: () => void,
  ) {
    const after = this.net.after(fault, mean);
    if (after === undefined) return;
    this.#chaos.push(this.net.time.schedule(after, () => {
      if (this.net.calm || this.#finished) return;
      if (this.net.strikes(fault)) fn();
      this.#every(fault, mean, fn);
    }));
  }
}
