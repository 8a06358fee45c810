/**
 * Running child processes from tests: Deno itself (never a global `deno`), node, openssl.
 */

/** What a finished command printed and how it ended. */
export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run a command to completion, capturing its output. */
export async function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CommandResult> {
  const output = await new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: { NO_COLOR: "1", ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** Run the Deno that runs the tests, with the given arguments. */
export function runDeno(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CommandResult> {
  return run(Deno.execPath(), args, options);
}

/** The project's root directory. */
export const ROOT: string = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
