/**
 * `kopf …` in a process of its own, as a user runs it, for the command line's tests: no
 * kubeconfig (the commands that look for one find none), `stdin` piped in if given, and what
 * it printed and its exit code once it ends.
 */
import { type CommandResult, ROOT, runDeno } from "../platform/commands.ts";

const MAIN = `${ROOT}/src/cli/main.ts`;

/** Run `kopf …` to its end (killed after a minute: a command that never ends fails). */
export function runKopf(args: readonly string[], stdin?: string): Promise<CommandResult> {
  return runDeno(["run", "-A", MAIN, ...args], {
    cwd: ROOT,
    env: { KUBECONFIG: "/nonexistent/kubeconfig" },
    timeout: 60,
    ...(stdin !== undefined ? { stdin } : {}),
  });
}
