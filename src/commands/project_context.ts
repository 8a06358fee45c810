/**
 * Where a command runs, for the commands that a message suggests: in a Deno project with
 * tasks of its own (the framework's checkout has `demo`, a project of `kopf init` has
 * `fake-cluster`), in a Node project, or elsewhere -- and on which runtime. So a message
 * never tells a user of a Node project, or of a project without that task, to run
 * `deno task demo`.
 *
 * @module
 */
import { directoriesOnPath, readTextFileQuietly } from "../platform/files.ts";
import { denoVersion, mainModule } from "../platform/process.ts";
import { stripJsonComments } from "./build_context.ts";

/** What the suggestions depend on. */
export interface ProjectContext {
  /** The runtime of this process. */
  readonly runtime: "deno" | "node";
  /** The tasks of the current directory's `deno.json` (or `deno.jsonc`), if any. */
  readonly tasks: ReadonlySet<string>;
  /** Whether the current directory holds a `package.json` and no `deno.json`. */
  readonly nodeProject: boolean;
  /** The script that runs `kopf` (its main module), if known. */
  readonly program?: string;
  /**
   * How the user's shell runs Deno: `deno` when one is on `PATH`, else through npx
   * (`npx -y deno@VERSION`), as the README's set-up (Node and npm) brings it. Unset means
   * `deno`.
   */
  readonly deno?: string;
}

/**
 * The Deno version that the project is tested with: what `npx -y deno@...` names when no
 * `deno` is on `PATH` and this process runs on Node (on Deno, its own version is named).
 */
export const TESTED_DENO_VERSION = "2.9.6";

/**
 * Directories that a package runner puts on `PATH` for the one command it runs (npx's
 * cache, `node_modules/.bin`, npm's node-gyp shim): a `deno` there is gone from the
 * user's shell once that command returns, so it does not count as one on `PATH`.
 */
function runnersOwn(dir: string): boolean {
  return /[\\/]_npx[\\/]/.test(dir) || /node_modules[\\/]\.bin[\\/]?$/.test(dir) ||
    /node-gyp-bin[\\/]?$/.test(dir);
}

/** How the user's shell runs Deno: see {@link ProjectContext.deno}. */
export async function denoCommand(): Promise<string> {
  const dirs = (await directoriesOnPath("deno")).filter((dir) => !runnersOwn(dir));
  if (dirs.length > 0) return "deno";
  return `npx -y deno@${denoVersion() ?? TESTED_DENO_VERSION}`;
}

/** The tasks of a `deno.json`'s text; none if it cannot be read as JSON (with comments). */
function tasksOf(text: string | undefined): Set<string> {
  if (text === undefined) return new Set();
  try {
    const tasks = (JSON.parse(stripJsonComments(text)) as { tasks?: unknown }).tasks;
    return new Set(tasks !== null && typeof tasks === "object" ? Object.keys(tasks) : []);
  } catch {
    return new Set();
  }
}

/**
 * The context of this process and a directory (the current one by default, named by
 * relative paths: finding out which it is may need a permission the files do not).
 */
export async function projectContext(dir?: string): Promise<ProjectContext> {
  const read = (name: string) => readTextFileQuietly(dir === undefined ? name : `${dir}/${name}`);
  const deno = (await read("deno.json")) ?? (await read("deno.jsonc"));
  const node = deno === undefined && (await read("package.json")) !== undefined;
  return {
    runtime: denoVersion() === undefined ? "node" : "deno",
    tasks: tasksOf(deno),
    nodeProject: node,
    program: mainModule(),
    deno: await denoCommand(),
  };
}

/**
 * How to run a task of a Deno project in the user's shell: `deno task NAME`, or through
 * npx where no `deno` is on `PATH`.
 */
export function denoTask(context: ProjectContext, task: string): string {
  return `${context.deno ?? "deno"} task ${task}`;
}

/**
 * How to see an operator at work without a cluster, as a clause for the end of a message:
 * the checkout's demo, the project's fake-cluster task, or this `kopf`'s own subcommand.
 */
export function fakeClusterHint(context: ProjectContext): string {
  if (context.tasks.has("demo")) {
    return `or see it all work on an embedded fake cluster: ${denoTask(context, "demo")}`;
  }
  const then = "and point KUBECONFIG at the kubeconfig it names";
  if (context.tasks.has("fake-cluster")) {
    return `or try it on a fake cluster: run \`${denoTask(context, "fake-cluster")}\` ` +
      `in another terminal ${then}`;
  }
  if (context.runtime === "node" || context.nodeProject) {
    return `or try it on a fake cluster: run \`npx kopf fake-cluster\` in another terminal ${then}`;
  }
  const kopf = context.program === undefined
    ? "kopf"
    : `${context.deno ?? "deno"} run --allow-all ${context.program}`;
  return `or try it on a fake cluster: run \`${kopf} fake-cluster\` in another terminal ${then}`;
}
