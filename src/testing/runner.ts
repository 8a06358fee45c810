/**
 * `KopfRunner`: runs an operator in the background of a test, exactly as `kopf run`
 * would with the same arguments, but inside the test's process -- so the test can share
 * objects, memos and registries with it, and see its output, exit code and error.
 *
 * ```ts
 * import { FakeCluster, KopfRunner } from "@kopf/kopf/testing";
 *
 * // operator.ts: kopf.on.create("configmaps", ({ name, logger }) => logger.info(`Seen ${name}`));
 * Deno.test("the operator handles a new object", async () => {
 *   await using cluster = await FakeCluster.start();
 *   await using runner = await KopfRunner.start(["run", "-A", "operator.ts"], { cluster });
 *   cluster.create({
 *     apiVersion: "v1",
 *     kind: "ConfigMap",
 *     metadata: { name: "example", namespace: "default" },
 *   });
 *   await runner.waitForOutput("Seen example");
 *   await runner.stop();
 *   if (runner.exitCode !== 0) throw new Error(runner.output);
 * });
 * ```
 *
 * @module
 */
import { KopfError, UsageError } from "../structs/errors.ts";
import { Command, CommanderError } from "@commander-js/extra-typings";
import { writeStderrLine } from "../platform/stderr.ts";
import type { ConnectionInfo } from "../structs/credentials.ts";
import type { Memo } from "../structs/memos.ts";
import type { OperatorSettings } from "../settings/operator_settings.ts";
import { OperatorRegistry } from "../intents/registry.ts";
import { oneLine } from "../reactor/running.ts";
import { runCommand } from "../commands/run.ts";
import { exitCodeFor, exitCodeOf, failureText } from "../commands/usage.ts";
import { addWitness, outputTail, removeWitness } from "./failure_reports.ts";

/** Where the runner's operator logs in: a `FakeCluster`, or anything with credentials. */
export interface ConnectionSource {
  /** The credentials to use now (read again on every login). */
  readonly connectionInfo: ConnectionInfo;
}

/** Options of {@link KopfRunner.start}. */
export interface KopfRunnerOptions {
  /**
   * The registry the operator's files register their handlers on, and the operator
   * serves. A new, empty one by default (files are imported afresh for it).
   */
  readonly registry?: OperatorRegistry;
  /** The operator's settings. */
  readonly settings?: OperatorSettings;
  /** The operator's memo. */
  readonly memo?: Memo;
  /**
   * Log into this cluster (e.g. a `FakeCluster`) unless the registry has login handlers
   * of its own; without it, the operator finds credentials as `kopf run` does. With it,
   * the operator's own calls of `kopf.loginWithDefaults()` and `kopf.loginWithKubeconfig()`
   * (for clients of its handlers) log into this cluster too, and a `FakeCluster`'s failed
   * `waitFor()` shows the operator's last lines.
   */
  readonly cluster?: ConnectionSource;
  /** Seconds to wait for the operator to start or to stop (10 by default). */
  readonly timeout?: number;
  /** Whether {@link KopfRunner.stop} throws the operator's error, if any (yes by default). */
  readonly reraise?: boolean;
  /** Also print the output to stderr as it comes (for debugging tests). */
  readonly echo?: boolean;
}

/**
 * The runner's operator did not do what the test waited for in time: it did not start,
 * print an expected line, or stop.
 */
export class KopfRunnerError extends KopfError {
  /** The error's name. */
  override name = "KopfRunnerError";
}

/** Options of {@link KopfRunner.waitForOutput}. */
export interface WaitForOutputOptions {
  /** Give up after so many seconds (10 by default). */
  readonly timeout?: number;
}

interface Waiter {
  readonly matches: (line: string) => boolean;
  /** Called with the first matching line, or with `undefined` when the operator ends. */
  readonly resolve: (line: string | undefined) => void;
}

/** The address of the source's API server, if it says one. */
function serverOf(source: ConnectionSource | undefined): string | undefined {
  try {
    const server = source?.connectionInfo?.server;
    return typeof server === "string" ? server : undefined;
  } catch {
    return undefined; // a source that cannot say it now: its operator fails to log in
  }
}

function describePattern(pattern: string | RegExp): string {
  return typeof pattern === "string" ? JSON.stringify(pattern) : String(pattern);
}

/**
 * An operator running in the background of a test; see the module's description.
 *
 * @example Run an operator file as `kopf run` would, and wait for what it logs
 * ```ts
 * import { FakeCluster, KopfRunner } from "@kopf/kopf/testing";
 *
 * Deno.test("the operator greets new config maps", async () => {
 *   await using cluster = await FakeCluster.start();
 *   await using runner = await KopfRunner.start(["run", "-A", "operator.ts"], { cluster });
 *   cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "hello" } });
 *   await runner.waitForOutput(/Handler '.+' succeeded/);
 * });
 * ```
 */
export class KopfRunner implements AsyncDisposable {
  readonly #lines: string[] = [];
  readonly #waiters = new Set<Waiter>();
  readonly #controller = new AbortController();
  readonly #timeout: number;
  readonly #reraise: boolean;
  readonly #command: string;
  /** The API server of the `cluster` option, whose failed waits show this runner's lines. */
  readonly #server: string | undefined;
  #done: Promise<void> | undefined;
  /** The error that a thrown message has already shown (see {@link report}). */
  #reported: unknown;
  #exitCode: number | undefined;
  #error: unknown;
  #finished = false;
  #ready = false;

  private constructor(args: readonly string[], options: KopfRunnerOptions) {
    this.#timeout = options.timeout ?? 10;
    this.#reraise = options.reraise ?? true;
    this.#command = ["kopf", ...args].join(" ");
    this.#server = serverOf(options.cluster);
    if (!(this.#timeout > 0)) {
      throw new UsageError(
        `KopfRunner needs a positive timeout in seconds, not ${options.timeout}`,
      );
    }
  }

  /**
   * Start `kopf <args>` (e.g. `["run", "-A", "path/to/operator.ts"]`) in the background;
   * resolves once the operator serves, or once it has ended (look at {@link exitCode}
   * and {@link error} then). Throws when it does neither within the timeout.
   */
  static async start(
    args: readonly string[],
    options: KopfRunnerOptions = {},
  ): Promise<KopfRunner> {
    if (!Array.isArray(args) || args.some((a) => typeof a !== "string")) {
      throw new UsageError(
        'KopfRunner.start() needs the command line as strings, e.g. ["run", "-A", "operator.ts"].',
      );
    }
    const runner = new KopfRunner(args, options);
    const registry = options.registry ?? new OperatorRegistry();
    const cluster = options.cluster;
    const echo = options.echo ?? false;
    const write = (text: string) => {
      for (const line of text.replace(/\n$/, "").split("\n")) runner.#line(line, echo);
    };
    let started!: () => void;
    const ready = new Promise<void>((resolve) => (started = resolve));
    const program = new Command("kopf")
      .exitOverride()
      .configureOutput({ writeOut: write, writeErr: write });
    const run = runCommand({
      registry,
      settings: options.settings,
      memo: options.memo,
      signal: runner.#controller.signal,
      writer: (line) => runner.#line(line, echo),
      fresh: options.registry === undefined,
      login: cluster ? () => Promise.resolve(cluster.connectionInfo) : undefined,
      onReady: () => {
        runner.#ready = true;
        started();
      },
    }).exitOverride().configureOutput({ writeOut: write, writeErr: write });
    program.addCommand(run);
    runner.#done = program.parseAsync([...args], { from: "user" }).then(
      () => runner.#finish(0, undefined),
      (error: unknown) => {
        if (error instanceof CommanderError) {
          // commander's own usage errors (an unknown flag, ...) are usage errors too: code 2.
          const code = exitCodeOf(error);
          runner.#finish(code, code === 0 ? undefined : error);
        } else {
          write(failureText(args[0] ?? "", error));
          runner.#finish(exitCodeFor(error), error);
        }
      },
    ).finally(started);
    if (runner.#server !== undefined) addWitness(runner.#server, runner);
    const timedOut = await runner.#within(ready);
    if (timedOut && !runner.#finished) {
      const report = runner.report();
      await runner.stop().catch(() => undefined);
      throw new KopfRunnerError(
        `The operator did not start within ${runner.#timeout}s.\n${report}`,
      );
    }
    return runner;
  }

  /** Every line of output so far: log lines and command-line messages, in order. */
  get lines(): readonly string[] {
    return this.#lines;
  }

  /** The output so far as one text, a line per line. */
  get output(): string {
    return this.#lines.map((line) => line + "\n").join("");
  }

  /** The exit code once the operator has ended (0 for a clean stop); `undefined` before. */
  get exitCode(): number | undefined {
    return this.#exitCode;
  }

  /** The error the operator ended with, if any. */
  get error(): unknown {
    return this.#error;
  }

  /** Whether the operator started serving. */
  get ready(): boolean {
    return this.#ready;
  }

  /** Whether the operator is still running. */
  get running(): boolean {
    return !this.#finished;
  }

  /**
   * Wait until a line of output contains the text (or matches the expression) -- one seen
   * already or a future one; resolves with that line. Rejects after the timeout, and if
   * the operator ends without printing it.
   */
  waitForOutput(pattern: string | RegExp, options: WaitForOutputOptions = {}): Promise<string> {
    const matches = typeof pattern === "string"
      ? (line: string) => line.includes(pattern)
      : (line: string) => pattern.test(line);
    const seen = this.#lines.find(matches);
    if (seen !== undefined) return Promise.resolve(seen);
    const seconds = options.timeout ?? 10;
    const what = describePattern(pattern);
    const ended = () =>
      new KopfRunnerError(`The operator has ended without printing ${what}.\n${this.report()}`);
    if (this.#finished) return Promise.reject(ended());
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(
          new KopfRunnerError(
            `No output line with ${what} within ${seconds}s.\n${this.report()}`,
          ),
        );
      }, seconds * 1000);
      const waiter: Waiter = {
        matches,
        resolve: (line) => {
          clearTimeout(timer);
          this.#waiters.delete(waiter);
          if (line === undefined) reject(ended());
          else resolve(line);
        },
      };
      this.#waiters.add(waiter);
    });
  }

  /**
   * Stop the operator gracefully and wait for it to end. Throws the operator's error (or
   * a timeout) unless started with `reraise: false`.
   */
  async stop(): Promise<void> {
    await this.#stop();
    if (this.#reraise && this.#error !== undefined) throw this.#error;
  }

  /**
   * Stops the operator at the end of an `await using` block, and throws its error as
   * {@link stop} does -- unless a failed wait has already shown it in its message: when
   * the block itself fails too, Deno reports both as one `SuppressedError` without
   * either message. When it throws, the operator's last lines go to stderr first (the
   * test's output), for the same reason.
   */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.#stop();
    if (!this.#reraise || this.#error === undefined || this.#error === this.#reported) return;
    writeStderrLine(`KopfRunner: the operator failed.\n${this.report()}`);
    throw this.#error;
  }

  /**
   * What the operator is doing and its last lines of output (at most 20 lines and 4 KB):
   * what the runner's errors say about it, and a `FakeCluster`'s failed `waitFor()`.
   */
  report(): string {
    let state = "is still running";
    if (this.#finished) {
      this.#reported = this.#error;
      const why = this.#error === undefined ? "" : `: ${oneLine(this.#error)}`;
      state = `has ended with exit code ${this.#exitCode}${why}`;
    } else if (!this.#ready) state = "has not started serving yet";
    const tail = this.#lines.length === 0 ? " It printed nothing." : ` Its last lines:\n` +
      outputTail(this.#lines);
    return `The operator (${this.#command}) ${state}.${tail}`;
  }

  async #stop(): Promise<void> {
    this.#controller.abort();
    const timedOut = await this.#within(this.#done ?? Promise.resolve());
    if (timedOut) {
      this.#finish(
        1,
        new KopfRunnerError(
          `The operator did not stop within ${this.#timeout}s.\n${this.report()}`,
        ),
      );
    }
    if (this.#server !== undefined) removeWitness(this.#server, this);
  }

  #line(line: string, echo: boolean): void {
    this.#lines.push(line);
    if (echo) writeStderrLine(line);
    for (const waiter of [...this.#waiters]) {
      if (waiter.matches(line)) waiter.resolve(line);
    }
  }

  #finish(code: number, error: unknown): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#exitCode = code;
    this.#error = error;
    for (const waiter of [...this.#waiters]) waiter.resolve(undefined);
  }

  /** Wait for the promise at most the timeout; `true` when the time ran out. */
  async #within(promise: Promise<unknown>): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), this.#timeout * 1000);
    });
    try {
      return await Promise.race([promise.then(() => false, () => false), expired]);
    } finally {
      clearTimeout(timer);
    }
  }
}
