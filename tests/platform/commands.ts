/**
 * Running child processes from tests: Deno itself (never a global `deno`), node, openssl.
 */

/** What a finished command printed and how it ended. */
export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of {@link run}. */
export interface RunOptions {
  readonly cwd?: string;
  readonly env?: Record<string, string>;
  /** Kill the command and fail after so many seconds (300 by default). */
  readonly timeout?: number;
  /** Text for the command's standard input; none when omitted. */
  readonly stdin?: string;
}

/**
 * Run a command to completion, capturing its output. A command still running after the
 * timeout (e.g. stuck on the network) is killed, and this rejects saying so.
 */
export async function run(
  command: string,
  args: string[],
  options: RunOptions = {},
): Promise<CommandResult> {
  const seconds = options.timeout ?? 300;
  const controller = new AbortController();
  const guard = setTimeout(() => controller.abort(), seconds * 1000);
  const child = new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: { NO_COLOR: "1", ...options.env },
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    signal: controller.signal,
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const output = await child.output().finally(() => clearTimeout(guard));
  const decoder = new TextDecoder();
  if (controller.signal.aborted) {
    throw new Error(
      `${command} ${args.join(" ")} did not finish within ${seconds}s and was killed; ` +
        `its error output:\n${decoder.decode(output.stderr)}`,
    );
  }
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** Run the Deno that runs the tests, with the given arguments. */
export function runDeno(
  args: string[],
  options: RunOptions = {},
): Promise<CommandResult> {
  return run(Deno.execPath(), args, options);
}

/** The project's root directory. */
export const ROOT: string = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");

/** Whether a program answers `<program> <args>` with success (e.g. kubectl is installed). */
export function available(program: string, args: string[]): Promise<boolean> {
  return run(program, args).then((r) => r.code === 0, () => false);
}
