/**
 * The operator's processes in a simulated run: one runs at a time; it may crash (as on
 * SIGKILL: its link is cut and its memory is gone with it) or be stopped gracefully, and a
 * new one starts a few seconds later — with nothing of the old one but the objects it
 * wrote, as a restarted pod.
 *
 * @module
 */
import { BASE_RATES } from "./simulation_faults.ts";
import type { SimulatedNetwork } from "./network.ts";
import { OperatorLink } from "./operator_link.ts";
import { serveInProcess } from "../../platform/in_process_http.ts";
import { AsyncContext } from "../../platform/async_context.ts";
import type { ConnectionInfo } from "../../structs/credentials.ts";

/**
 * The process whose code runs now: requests go through its link. A flow of calls keeps its
 * process (timers, promises), so a client made by one process and used by the next is the
 * next one's — and a dead process's code that still runs reaches nothing.
 */
const currentProcess = new AsyncContext<OperatorLink>();

/** Runs one operator process, logged in with the credentials, until the signal aborts. */
export type OperatorStarter = (
  credentials: ConnectionInfo,
  signal: AbortSignal,
  onReady: () => void,
) => Promise<void>;

interface Process {
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
  #current: Process | undefined;
  readonly #all: Process[] = [];
  /** Requests from outside any process (a scenario's own client): never cut. */
  readonly #outside: OperatorLink;
  #unserve: (() => void) | undefined;
  readonly #chaos: (() => void)[] = [];
  #readyOnce!: () => void;
  /** Resolves once the first process serves (or has ended). */
  readonly ready: Promise<void> = new Promise((resolve) => (this.#readyOnce = resolve));
  /** How processes ended that were not meant to: one line each. */
  readonly failures: string[] = [];
  #finished = false;

  constructor(
    readonly net: SimulatedNetwork,
    /** The URL the cluster is served at, for all processes. */
    readonly url: string,
    readonly starter: OperatorStarter,
  ) {
    this.#outside = new OperatorLink(net, 0, () => false);
  }

  /** The credentials every process logs in with. */
  get connectionInfo(): ConnectionInfo {
    return { server: this.url, defaultNamespace: "default", source: "the simulation" };
  }

  /** Start the first process, and the random crashes and restarts. */
  begin(): void {
    this.#unserve = serveInProcess(
      this.url,
      (request) => (currentProcess.get() ?? this.#outside).handle(request),
    );
    this.#start();
    this.#armCrash();
    this.#armRestart();
  }

  /** Stop the current process gracefully, start none again; resolves when all have ended. */
  async finish(): Promise<void> {
    this.#finished = true;
    for (const cancel of this.#chaos.splice(0)) cancel();
    const current = this.#current;
    if (current !== undefined && !current.ended) {
      current.dismissed = true;
      this.net.trace.add("operator", `process ${current.link.process} is stopped at the end`);
      current.stop.abort();
    }
    await Promise.all(this.#all.map((p) => p.done));
  }

  /** Whether every process has ended. */
  get ended(): boolean {
    return this.#all.every((p) => p.ended);
  }

  /** Stop serving the cluster (after {@link finish}). */
  close(): void {
    this.#unserve?.();
    this.#unserve = undefined;
  }

  #start(): void {
    if (this.#finished) return;
    const number = ++this.#count;
    const link: OperatorLink = new OperatorLink(
      this.net,
      number,
      () => this.#current?.link === link && this.#crashAfterWrite(),
    );
    const stop = new AbortController();
    const process: Process = {
      link,
      stop,
      dismissed: false,
      ended: false,
      done: Promise.resolve(),
    };
    this.#current = process;
    this.#all.push(process);
    this.net.trace.add("operator", `process ${number} starts`);
    const info = this.connectionInfo;
    process.done = currentProcess.run(link, () =>
      this.starter(info, stop.signal, () => {
        this.net.trace.add("operator", `process ${number} serves`);
        this.#readyOnce();
      })).then(
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
    const why = error === undefined
      ? "it stopped by itself"
      : (error instanceof Error ? error.message : String(error)).split("\n")[0];
    this.net.trace.add("operator", `process ${number} ended on its own: ${why}`);
    this.failures.push(`The operator (process ${number}) ended on its own: ${why}`);
  }

  /** A crash right after a write landed, if the seed says so now. */
  #crashAfterWrite(): boolean {
    if (!this.net.roll("crashes", BASE_RATES.crashAfterWrite)) return false;
    this.#crash("right after a write landed");
    return true;
  }

  /** Kill the current process as SIGKILL would, and start another a few seconds later. */
  #crash(when: string): void {
    const process = this.#current;
    if (process === undefined || process.ended || process.dismissed) return;
    process.dismissed = true;
    this.net.trace.add("fault", `process ${process.link.process} crashes ${when}`);
    process.link.sever();
    process.stop.abort();
    this.#current = undefined;
    this.#later(() => this.#start());
  }

  /** Stop the current process gracefully (SIGTERM), and start another once it has ended. */
  #restart(): void {
    const process = this.#current;
    if (process === undefined || process.ended || process.dismissed) return;
    process.dismissed = true;
    this.net.trace.add("fault", `process ${process.link.process} is stopped gracefully`);
    process.stop.abort();
    this.#current = undefined;
    process.done.then(() => this.#later(() => this.#start()));
  }

  #later(fn: () => void): void {
    const [low, high] = BASE_RATES.restartDelay;
    this.#chaos.push(this.net.time.schedule(this.net.random.between(low, high), fn));
  }

  #armCrash(): void {
    const after = this.net.after("crashes", BASE_RATES.crashEvery);
    if (after === undefined) return;
    this.#chaos.push(this.net.time.schedule(after, () => {
      if (this.net.calm) return;
      this.#crash("at a random moment");
      this.#armCrash();
    }));
  }

  #armRestart(): void {
    const after = this.net.after("restarts", BASE_RATES.restartEvery);
    if (after === undefined) return;
    this.#chaos.push(this.net.time.schedule(after, () => {
      if (this.net.calm) return;
      this.#restart();
      this.#armRestart();
    }));
  }
}
