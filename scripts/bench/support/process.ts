/**
 * Helpers for benchmarks that run a controller in a child process: its output line by line,
 * its memory and CPU time from `/proc` (Linux), and timestamps comparable across processes.
 *
 * Kept in a folder of its own so that the bench driver, which takes every file directly in
 * `scripts/bench/` for a section, does not take it for one.
 */

/** Milliseconds since the epoch, sub-millisecond and comparable across processes. */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

/** The lines of a text stream, as they come; a last line without a newline too. */
export async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let rest = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    const text = rest + chunk;
    let start = 0;
    for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", start)) {
      yield text.slice(start, at);
      start = at + 1;
    }
    rest = text.slice(start);
  }
  if (rest) yield rest;
}

/**
 * The process's peak (VmHWM) and current (VmRSS) resident memory, in MB (Linux); of the
 * current, what is anonymous (heaps, stacks) and what is mapped files (the executable's
 * code and data touched).
 */
export function rssMb(pid: number): { peak: number; now: number; anon: number; file: number } {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const mb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]) / 1024;
  return { peak: mb("VmHWM"), now: mb("VmRSS"), anon: mb("RssAnon"), file: mb("RssFile") };
}

/**
 * The user and system CPU time of `/proc/<pid>/stat` (fields 14 and 15, all threads of the
 * process, in clock ticks). The command name (field 2) is in parentheses and may hold spaces
 * and parentheses itself, so the fields are counted from the last `)`.
 */
export function parseProcStat(text: string): { utime: number; stime: number } {
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (the state), so field n is fields[n - 3].
  return { utime: Number(fields[11]), stime: Number(fields[12]) };
}

let ticks: number | undefined;

/** Clock ticks per second (`getconf CLK_TCK`; 100, the Linux default, if it cannot be asked). */
export async function clockTicks(): Promise<number> {
  if (ticks === undefined) {
    try {
      const output = await new Deno.Command("getconf", { args: ["CLK_TCK"], stderr: "null" })
        .output();
      const value = Number(new TextDecoder().decode(output.stdout).trim());
      ticks = output.success && value > 0 ? value : 100;
    } catch {
      ticks = 100;
    }
  }
  return ticks;
}

/** The process's CPU time so far (user + system, all threads), in seconds (Linux). */
export async function cpuSeconds(pid: number): Promise<number> {
  const { utime, stime } = parseProcStat(await Deno.readTextFile(`/proc/${pid}/stat`));
  return (utime + stime) / await clockTicks();
}

/**
 * The process's CPU time so far split by thread (Linux, `/proc/<pid>/task/<tid>/stat`), in
 * seconds: its main thread's (the one whose id is the process's: the script's, for
 * `deno run`) and the others' (for Deno, V8's helpers -- optimizing compilers, concurrent
 * garbage collection -- and the runtime's I/O threads). A thread that ended meanwhile is not
 * counted.
 */
export async function threadCpuSeconds(pid: number): Promise<{ main: number; others: number }> {
  let main = 0;
  let others = 0;
  for await (const task of Deno.readDir(`/proc/${pid}/task`)) {
    let text: string;
    try {
      text = await Deno.readTextFile(`/proc/${pid}/task/${task.name}/stat`);
    } catch {
      continue; // the thread ended since the listing
    }
    const { utime, stime } = parseProcStat(text);
    if (task.name === String(pid)) main += utime + stime;
    else others += utime + stime;
  }
  const ticks = await clockTicks();
  return { main: main / ticks, others: others / ticks };
}

/** Options of {@link ChildProcess}. */
export interface ChildProcessOptions {
  /** Environment variables added to the child's. */
  env?: Record<string, string>;
  /** Where the child's stderr goes: ours (the default), or a pipe read by the caller. */
  stderr?: "inherit" | "piped";
  /** Another program to run with `args` as they are, instead of `deno run -A <args…>`. */
  program?: string;
  /**
   * Called with each line of stdout as it is read: true if it took the line (e.g. V8's
   * trace of a collection, see `gc_trace.ts`), which {@link ChildProcess.expect} then skips.
   */
  onLine?: (line: string) => boolean;
  /**
   * Run it under coreutils' `stdbuf -oL`: what the runtime prints through C's stdio (V8's
   * `--trace-gc`) then comes in whole lines. Without it, that output is buffered in blocks
   * and spliced into the script's own lines, where a `READY` may be lost mid-line.
   */
  wholeLines?: boolean;
}

/**
 * A `deno run -A` child process (or another program's) whose stdout is read line by line,
 * for the words it prints at milestones (`READY`, …). Stopped with SIGTERM when disposed.
 */
export class ChildProcess implements AsyncDisposable {
  readonly process: Deno.ChildProcess;
  /** The lines read and not yet looked at by {@link expect}. */
  readonly #unread: string[] = [];
  #ended = false;
  #wake: (() => void) | undefined;
  readonly #reading: Promise<void>;

  /** Run `deno run -A <args…>` (`args` include the module and its arguments). */
  constructor(args: string[], options: ChildProcessOptions = {}) {
    const program = options.program ?? Deno.execPath();
    const command = options.program === undefined ? ["run", "-A", ...args] : args;
    this.process = new Deno.Command(options.wholeLines ? "stdbuf" : program, {
      args: options.wholeLines ? ["-oL", program, ...command] : command,
      stdin: "null",
      stdout: "piped",
      stderr: options.stderr ?? "inherit",
      env: { NO_COLOR: "1", ...options.env },
    }).spawn();
    this.#reading = this.#read(options.onLine);
  }

  get pid(): number {
    return this.process.pid;
  }

  /**
   * Read stdout as it comes, whether or not anyone waits for a line: a child that prints
   * more than a pipe holds (V8's traces, say) must not stop at its next print.
   */
  async #read(onLine: ((line: string) => boolean) | undefined): Promise<void> {
    try {
      for await (const line of lines(this.process.stdout)) {
        if (onLine?.(line)) continue;
        this.#unread.push(line);
        this.#wake?.();
      }
    } catch {
      // The stream broke: the child is gone, as at its end.
    } finally {
      this.#ended = true;
      this.#wake?.();
    }
  }

  /** Wait for a line of stdout starting with `prefix` (earlier lines are skipped); return it. */
  async expect(prefix: string): Promise<string> {
    for (;;) {
      for (let line = this.#unread.shift(); line !== undefined; line = this.#unread.shift()) {
        if (line.startsWith(prefix)) return line;
      }
      if (this.#ended) throw new Error(`The child process ended before printing ${prefix}.`);
      await new Promise<void>((resolve) => this.#wake = resolve);
      this.#wake = undefined;
    }
  }

  /** Send a signal, if the process is still there. */
  kill(signal: Deno.Signal): void {
    try {
      this.process.kill(signal);
    } catch {
      // already gone
    }
  }

  /** Stop it with SIGTERM and wait until it has exited and its output is read. */
  async stop(): Promise<void> {
    this.kill("SIGTERM");
    await this.process.status;
    await this.#reading;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}

/**
 * The environment for a Deno child whose V8 flags differ from the other children's: a
 * `DENO_DIR` of its own. V8 accepts a cached module's compiled code only from a process with
 * the same flags, and Deno then writes it anew, so children with other flags taking turns in
 * one cache would compile every module at every start -- a cost none of them pays alone. The
 * shared cache's folders (the npm packages, the emitted JavaScript) are linked into it; its
 * databases (the compiled code's among them) are its own, made by its first start. The
 * directory is named for the flags in the temporary directory and kept, so that the next run
 * finds its code compiled; it is made once per process.
 */
export function codeCacheApart(flags: readonly string[]): Promise<Record<string, string>> {
  const key = flags.join(" ");
  let made = apart.get(key);
  if (made === undefined) apart.set(key, made = makeCacheApart(flags));
  return made;
}

/** The environments {@link codeCacheApart} made in this process, by their flags. */
const apart = new Map<string, Promise<Record<string, string>>>();

async function makeCacheApart(flags: readonly string[]): Promise<Record<string, string>> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(flags.join(" "))),
  );
  const name = Array.from(digest.subarray(0, 6), (b) => b.toString(16).padStart(2, "0")).join("");
  const dir = `${Deno.env.get("TMPDIR") ?? "/tmp"}/kopf-bench-deno-dir-${name}`;
  const output = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
  const shared = (JSON.parse(new TextDecoder().decode(output.stdout)) as { denoDir: string })
    .denoDir;
  await Deno.mkdir(dir, { recursive: true });
  for await (const entry of Deno.readDir(shared)) {
    // Only folders: a database linked alone would get journal files of its own here.
    if (!entry.isDirectory) continue;
    await Deno.symlink(`${shared}/${entry.name}`, `${dir}/${entry.name}`).catch((error) => {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    });
  }
  return { DENO_DIR: dir };
}
