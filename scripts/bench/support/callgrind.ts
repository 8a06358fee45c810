/**
 * Counting the instructions a child process executes, with Valgrind's callgrind: the child
 * runs under `valgrind --tool=callgrind` with its instrumentation off (at about a tenth of
 * its speed rather than a fiftieth) until it is switched on (`callgrind_control -i on`), and a
 * dump (`callgrind_control -d`) writes what was counted since to a file whose `totals:` line
 * holds the instructions (`Ir`) of all the process's threads, in user space.
 *
 * @module
 */

/** Whether Valgrind and its callgrind_control are installed; a line saying how if not. */
export async function callgrindProblem(): Promise<string | undefined> {
  for (const program of ["valgrind", "callgrind_control"]) {
    try {
      const { success } = await new Deno.Command(program, {
        args: ["--version"],
        stdout: "null",
        stderr: "null",
      }).output();
      if (!success) return `${program} --version failed`;
    } catch {
      return `${program} is not installed (Debian: apt-get install valgrind)`;
    }
  }
  return undefined;
}

/**
 * The arguments of `valgrind` that run `program args…` with callgrind, its instrumentation
 * off until switched on, its dumps written to `out` (callgrind adds `.1`, `.2`, … per dump)
 * and its own report to `log` (the child's stderr stays the program's). Code that a JIT
 * writes and rewrites (V8's) is checked for changes, as it must be.
 */
export function callgrindArgs(
  out: string,
  log: string,
  program: string,
  args: readonly string[],
  more: readonly string[] = [],
): string[] {
  return [
    "--tool=callgrind",
    "--smc-check=all-non-file",
    "--instr-atstart=no",
    `--callgrind-out-file=${out}`,
    `--log-file=${log}`,
    ...more,
    program,
    ...args,
  ];
}

/** Run `callgrind_control` with `args` for the process `pid`; throws if it fails. */
export async function callgrindControl(pid: number, ...args: string[]): Promise<void> {
  const { success, stderr } = await new Deno.Command("callgrind_control", {
    args: [...args, String(pid)],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!success) {
    throw new Error(
      `callgrind_control ${args.join(" ")} ${pid} failed: ${new TextDecoder().decode(stderr)}`,
    );
  }
}

/** The instructions counted in a callgrind dump: its `totals:` (or `summary:`) line. */
export function callgrindTotal(dump: string): number | undefined {
  const match = /^(?:totals|summary):\s+(\d+)/m.exec(dump);
  return match === null ? undefined : Number(match[1]);
}
