/**
 * Peers' suites as a judge: the tests other people wrote for real clusters, run unchanged
 * against a fake cluster of ours — the Python client's e2e tests (kubernetes-client/python,
 * `kubernetes/e2e_test/`) and `@kubernetes/client-node`'s integration tests
 * (kubernetes-client/javascript, `src/test/integration/`). Their code stays where the user
 * keeps it (it is not ours to copy, and CI cannot fetch it); see docs/testing.md, "Peers'
 * suites", for how to get them and which failures are expected.
 *
 *     deno task peer-suites --python ~/src/python-client
 *     deno task peer-suites --client-node-tests ~/src/javascript/src/test/integration \
 *         --client-node ~/tmp/client-node   # where `npm install @kubernetes/client-node tsx` ran
 *     deno task peer-suites --python ~/src/python-client --only watch --verbose
 *
 * Each suite gets a fresh fake cluster on a free loopback port, over HTTPS with a bearer
 * token, and finds it through `KUBECONFIG`: how the suites look for a cluster is all that
 * is adapted. It prints PASS/FAIL/SKIP per test and a summary per suite; exit code 1 when
 * a test failed, 2 on a bad command line.
 *
 * @module
 */
import { FakeCluster } from "../src/testing/mod.ts";
import { parsePeerOptions, type PeerOptions, USAGE } from "./peer_suites/options.ts";
import { resultLine, summaryLine, type TestResult } from "./peer_suites/results.ts";
import {
  collectArgs,
  parseCollected,
  parseCollectionErrors,
  parsePytestSummary,
  PATH_PLUGIN,
  pathPluginSource,
  runArgs,
} from "./peer_suites/python.ts";
import { DRIVER_SOURCE, failureReason, testModulesOf } from "./peer_suites/client_node.ts";

/** What a child process printed, and whether it succeeded in time. */
interface Finished {
  readonly success: boolean;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

async function run(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; timeout: number; verbose: boolean },
): Promise<Finished> {
  const signal = AbortSignal.timeout(options.timeout * 1000);
  const child = new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: options.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal,
  }).spawn();
  const { success, stdout, stderr } = await child.output();
  const text = {
    stdout: new TextDecoder().decode(stdout),
    stderr: new TextDecoder().decode(stderr),
  };
  if (options.verbose) console.log(`${text.stdout}${text.stderr}`);
  return { success, timedOut: signal.aborted, ...text };
}

/** Run `suite` against a fresh fake cluster, with its kubeconfig's path. */
async function withCluster<T>(suite: (kubeconfig: string) => Promise<T>): Promise<T> {
  await using cluster = await FakeCluster.start({ tls: true });
  const kubeconfig = await cluster.writeKubeconfig();
  return await suite(kubeconfig);
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/** The `kubernetes/e2e_test` directory of a copy of the Python client. */
async function pythonTestsOf(dir: string): Promise<string | undefined> {
  const base = dir.replace(/\/+$/, "");
  for (const candidate of [`${base}/kubernetes/e2e_test`, base]) {
    if (candidate.endsWith("kubernetes/e2e_test") && await isFile(`${candidate}/base.py`)) {
      return await Deno.realPath(candidate);
    }
  }
  return undefined;
}

async function runPython(dir: string, options: PeerOptions): Promise<TestResult[] | string> {
  const tests = await pythonTestsOf(dir);
  if (!tests) {
    return `${dir} holds no kubernetes/e2e_test/base.py: give a copy of kubernetes-client/python.`;
  }
  const root = tests.replace(/\/kubernetes\/e2e_test$/, "");
  const plugins = await Deno.makeTempDir({ prefix: "peer-suites-python-" });
  try {
    await Deno.writeTextFile(
      `${plugins}/${PATH_PLUGIN}.py`,
      pathPluginSource(`${root}/kubernetes`),
    );
    return await withCluster(async (kubeconfig) => {
      // From the copy's root, as its tests read their YAML files from there; with
      // PYTHONSAFEPATH, as `python -m` would otherwise put that root first on the path, where
      // a whole repository's own `kubernetes/` would shadow the installed client.
      const pytest = (args: string[]) =>
        run(options.pythonBin, args, {
          cwd: root,
          env: {
            PYTHONSAFEPATH: "1",
            KUBECONFIG: kubeconfig,
            PYTHONPATH: plugins,
            PYTHONDONTWRITEBYTECODE: "1",
            // Wide enough that the summary keeps each failure's reason whole.
            COLUMNS: "1000",
          },
          timeout: options.timeout,
          verbose: options.verbose,
        });
      const collected = await pytest(collectArgs(root, options.only));
      const ids = parseCollected(collected.stdout);
      // A module that fails to import (a client too old for it) is one failure, not silence.
      const results = parseCollectionErrors(collected.stdout);
      for (const result of results) console.log(resultLine(result));
      if (ids.length === 0 && results.length === 0) {
        return `pytest found no tests:\n${collected.stdout.slice(-2000)}${
          collected.stderr.slice(-2000)
        }`;
      }
      // One pytest per test: a test that waits forever (for a pod to run) cannot hold up
      // the rest, and its timeout is its own.
      for (const id of ids) {
        const finished = await pytest(runArgs(root, id));
        // Named by the collected id: a skip's summary line names only its file and line.
        const found: TestResult[] = parsePytestSummary(finished.stdout).map((result) => ({
          ...result,
          name: id,
        }));
        if (found.length === 0) {
          found.push({
            name: id,
            outcome: "fail",
            reason: finished.timedOut
              ? `timed out after ${options.timeout} s`
              : lastLine(`${finished.stdout}\n${finished.stderr}`),
          });
        }
        for (const result of found) console.log(resultLine(result));
        results.push(...found);
      }
      return results;
    });
  } finally {
    await Deno.remove(plugins, { recursive: true });
  }
}

function lastLine(text: string): string {
  return text.split("\n").map((line) => line.trim()).filter((line) => line).at(-1) ?? "no output";
}

/** The integration tests' directory, given it or a copy of the repository. */
async function clientNodeTestsOf(dir: string): Promise<string | undefined> {
  const base = dir.replace(/\/+$/, "");
  for (const candidate of [base, `${base}/src/test/integration`]) {
    if (await isFile(`${candidate}/index.ts`)) return await Deno.realPath(candidate);
  }
  return undefined;
}

/** The temporary tree where the tests find the installed package as `../../index.js`. */
async function clientNodeTree(tests: string, prefix: string): Promise<string> {
  const dist = await Deno.realPath(`${prefix}/node_modules/@kubernetes/client-node/dist`);
  const tree = await Deno.makeTempDir({ prefix: "peer-suites-client-node-" });
  await Deno.symlink(await Deno.realPath(`${prefix}/node_modules`), `${tree}/node_modules`);
  await Deno.writeTextFile(`${tree}/package.json`, '{ "type": "module" }\n');
  await Deno.mkdir(`${tree}/src/test/integration`, { recursive: true });
  for await (const entry of Deno.readDir(dist)) {
    if (entry.name !== "test") {
      await Deno.symlink(`${dist}/${entry.name}`, `${tree}/src/${entry.name}`);
    }
  }
  for await (const entry of Deno.readDir(tests)) {
    if (entry.isFile) {
      await Deno.copyFile(`${tests}/${entry.name}`, `${tree}/src/test/integration/${entry.name}`);
    }
  }
  await Deno.writeTextFile(`${tree}/driver.mjs`, DRIVER_SOURCE);
  return tree;
}

async function runClientNode(options: PeerOptions): Promise<TestResult[] | string> {
  const tests = await clientNodeTestsOf(options.clientNodeTests!);
  if (!tests) {
    return `${options.clientNodeTests} holds no index.ts: give client-node's src/test/integration.`;
  }
  if (!await isFile(`${options.clientNode}/node_modules/@kubernetes/client-node/package.json`)) {
    return `${options.clientNode} has no node_modules/@kubernetes/client-node: run ` +
      "npm install @kubernetes/client-node@VERSION tsx there first.";
  }
  const tree = await clientNodeTree(tests, options.clientNode!);
  try {
    const modules = testModulesOf(await Deno.readTextFile(`${tests}/index.ts`))
      .filter((name) => !options.only || name.includes(options.only));
    const results: TestResult[] = [];
    for (const name of modules) {
      // A fresh cluster per module: what one leaves behind cannot fail the next.
      const finished = await withCluster((kubeconfig) =>
        run(options.nodeBin, ["--import", "tsx", "driver.mjs", `src/test/integration/${name}.ts`], {
          cwd: tree,
          env: { KUBECONFIG: kubeconfig },
          timeout: options.timeout,
          verbose: options.verbose,
        })
      );
      const reason = finished.timedOut
        ? `timed out after ${options.timeout} s`
        : failureReason(finished.stderr);
      const result: TestResult = finished.success
        ? { name, outcome: "pass" }
        : { name, outcome: "fail", reason };
      console.log(resultLine(result));
      results.push(result);
    }
    return results;
  } finally {
    await Deno.remove(tree, { recursive: true });
  }
}

/** The summary of a suite whose tests were printed as they ended; false if any failed. */
function report(suite: string, results: TestResult[] | string): boolean {
  if (typeof results === "string") {
    console.error(`${suite}: ${results}`);
    return false;
  }
  console.log(summaryLine(suite, results));
  return results.every((result) => result.outcome !== "fail");
}

async function main(args: readonly string[]): Promise<number> {
  const options = parsePeerOptions(args);
  if (typeof options === "string") {
    console.error(options);
    return 2;
  }
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  let ok = true;
  for (const dir of options.python) {
    ok = report(`python e2e (${dir})`, await runPython(dir, options)) && ok;
  }
  if (options.clientNode !== undefined) {
    const results = await runClientNode(options);
    ok = report(`client-node integration (${options.clientNodeTests})`, results) && ok;
  }
  return ok ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
