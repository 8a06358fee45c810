/**
 * `kopf …` in a process of its own, as a user runs it, for the command line's tests: no
 * kubeconfig (the commands that look for one find none), `stdin` piped in if given, and what
 * it printed and its exit code once it ends.
 */

const ROOT = new URL("../../", import.meta.url);
const MAIN = new URL("src/cli/main.ts", ROOT).pathname;

/** How a `kopf` command ended. */
export interface KopfResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run `kopf …` to its end (killed after a minute: a command that never ends fails). */
export async function runKopf(args: readonly string[], stdin?: string): Promise<KopfResult> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    cwd: ROOT.pathname,
    env: { NO_COLOR: "1", KUBECONFIG: "/nonexistent/kubeconfig" },
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
  }
  // A safety net only: a command that never ends fails the test instead of stalling the suite.
  const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const { code, stdout, stderr } = await child.output().finally(() => clearTimeout(guard));
  const text = new TextDecoder();
  return { code, stdout: text.decode(stdout), stderr: text.decode(stderr) };
}
