/**
 * Running a short-lived command and collecting its output, on Deno and on Node: used
 * for credential plugins (`exec` in kubeconfigs).
 *
 * @module
 */

/** What to run. */
export interface CommandOptions {
  /** The program: a path, or a name looked up in `PATH`. */
  command: string;
  /** Its arguments. */
  args?: readonly string[];
  /** Extra environment variables, added to the inherited environment. */
  env?: Readonly<Record<string, string>>;
  /** Stop the command after this many seconds. */
  timeout?: number;
}

/** What a finished command produced. */
export interface CommandOutput {
  /** The exit code (`null` when it was killed by a signal). */
  code: number | null;
  /** Its standard output, as UTF-8 text. */
  stdout: string;
  /** Its standard error, as UTF-8 text. */
  stderr: string;
  /** Whether it was stopped because of the timeout. */
  timedOut: boolean;
}

/** The error when a command cannot be started at all (e.g. it does not exist). */
export class CommandStartError extends Error {
  override name = "CommandStartError";
}

/** Run a command to completion, with no standard input, and collect its output. */
export async function runCommand(options: CommandOptions): Promise<CommandOutput> {
  return typeof Deno !== "undefined" ? await runWithDeno(options) : await runWithNode(options);
}

async function runWithDeno(options: CommandOptions): Promise<CommandOutput> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = options.timeout === undefined ? undefined : setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeout * 1000);
  try {
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(options.command, {
        args: [...(options.args ?? [])],
        env: { ...(options.env ?? {}) },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        signal: controller.signal,
      }).spawn();
    } catch (e) {
      throw new CommandStartError(`Cannot run ${options.command}: ${(e as Error).message}`);
    }
    const result = await child.output();
    const decoder = new TextDecoder();
    return {
      code: result.signal ? null : result.code,
      stdout: decoder.decode(result.stdout),
      stderr: decoder.decode(result.stderr),
      timedOut,
    };
  } finally {
    clearTimeout(timer);
  }
}

async function runWithNode(options: CommandOptions): Promise<CommandOutput> {
  // Loaded on Node only, when a command runs: Deno programs never load `node:child_process`.
  const { spawn } = await import("node:child_process");
  return await new Promise((resolve, reject) => {
    const child = spawn(options.command, [...(options.args ?? [])], {
      env: {
        ...(globalThis as { process?: { env?: Record<string, string> } }).process?.env,
        ...(options.env ?? {}),
      },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: options.timeout === undefined ? undefined : options.timeout * 1000,
    });
    const out: Uint8Array[] = [];
    const err: Uint8Array[] = [];
    child.stdout?.on("data", (chunk: Uint8Array) => out.push(chunk));
    child.stderr?.on("data", (chunk: Uint8Array) => err.push(chunk));
    child.on("error", (e) => {
      reject(new CommandStartError(`Cannot run ${options.command}: ${e.message}`));
    });
    child.on("close", (code, signal) => {
      const decoder = new TextDecoder();
      const join = (parts: Uint8Array[]) => decoder.decode(concat(parts));
      resolve({
        code: signal ? null : code,
        stdout: join(out),
        stderr: join(err),
        timedOut: signal !== null && child.killed,
      });
    });
  });
}

function concat(parts: Uint8Array[]): Uint8Array {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const result = new Uint8Array(total);
  let offset = 0;
  for (const p of parts) {
    result.set(p, offset);
    offset += p.length;
  }
  return result;
}
