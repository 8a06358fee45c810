/**
 * The Node path as a user takes it: the build packs a tarball, npm installs it (with its
 * dependencies, from the registry) into a new Node project, and the npm package's README
 * runs there as written — its operator tested with `FakeCluster` and `KopfRunner` from
 * `@kopf/kopf/testing` under `node --test`, its API client of `@kopf/kopf/client`, its
 * command line of `@kopf/kopf/cli`, and the `kopf` binary — under the machine's Node and
 * under the oldest Node the package supports, taken from the npm package `node`.
 *
 * npm's cache lives in the test's temporary directory, shared by its installs. Skipped,
 * saying so, when npm or its registry cannot be reached.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { ROOT, run, runDeno } from "../platform/commands.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { NODE_ENGINES, NPM_README, tarballNameOf } from "../../scripts/build_npm.ts";

/** Why npm cannot be used here, or `undefined` when it can. */
async function npmUnreachable(): Promise<string | undefined> {
  try {
    const ping = await run("npm", ["ping"], { timeout: 60 });
    if (ping.code === 0) return undefined;
    const lines = ping.stderr.trim().split("\n");
    return `npm ping failed: ${lines.find((l) => l.startsWith("npm error")) ?? lines.at(-1)}`;
  } catch (error) {
    return `npm is not runnable: ${error instanceof Error ? error.message : String(error)}`;
  }
}

const unreachable = await npmUnreachable();
if (unreachable !== undefined) {
  console.warn(`Skipping the npm tarball test: ${unreachable} (it installs from the registry).`);
}

/** The oldest Node the package supports, from `engines` (`>=20.18.1` → `20.18.1`). */
const MINIMUM_NODE = /^>=(\d+\.\d+\.\d+)$/.exec(NODE_ENGINES)![1];

/** The ```js blocks of a markdown text that start with `// FILE`, by file name. */
function scriptsOf(markdown: string): Map<string, string> {
  const scripts = new Map<string, string>();
  for (const m of markdown.matchAll(/^```js\n\/\/ (\S+)\n([\s\S]*?)^```$/gm)) {
    scripts.set(m[1], `// ${m[1]}\n${m[2]}`);
  }
  return scripts;
}

/** The shell lines of a markdown text's ```sh blocks. */
function shellLinesOf(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap((m) => m[1].split("\n"));
}

Deno.test({
  name: "the packed tarball installs into a Node project, and its README runs there",
  ignore: unreachable !== undefined,
  fn: async (t) => {
    const denoJson = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
    const readme = await Deno.readTextFile(`${ROOT}/${NPM_README}`);
    const tarballName = tarballNameOf(denoJson);
    const tmp = await Deno.makeTempDir({ prefix: "kopf-npm-tarball-" });
    const npmEnv = {
      npm_config_cache: `${tmp}/npm-cache`,
      npm_config_audit: "false",
      npm_config_fund: "false",
      npm_config_update_notifier: "false",
    };
    try {
      await t.step("the README installs as this test does: the build's tarball", () => {
        const lines = shellLinesOf(readme);
        assert(lines.some((l) => /deno@[\d.]+ task build:npm --pack\b/.test(l)), lines.join("\n"));
        const install = lines.find((l) => l.startsWith("npm install "));
        assert(install?.endsWith(`/dist/${tarballName}`), `the README installs ${install}`);
        assertStringIncludes(readme, `Node ≥ ${MINIMUM_NODE}`);
      });

      const built = await runDeno(
        ["run", "-A", `${ROOT}/scripts/build_npm.ts`, "--outdir", `${tmp}/dist/npm`, "--pack"],
        { env: npmEnv },
      );
      assertEquals(built.code, 0, built.stderr);
      const tarball = `${tmp}/dist/${tarballName}`;
      assertStringIncludes(
        built.stdout,
        `install it into a Node project with: npm install ${tarball}`,
      );

      // The project and the oldest supported Node, installed side by side.
      const app = `${tmp}/app`;
      await Deno.mkdir(app);
      await Deno.writeTextFile(`${app}/package.json`, '{ "name": "app", "private": true }\n');
      const [installed, nodeInstalled] = await Promise.all([
        run("npm", ["install", tarball], { cwd: app, env: npmEnv }),
        run("npm", ["install", "--prefix", `${tmp}/node`, `node@${MINIMUM_NODE}`], {
          cwd: tmp,
          env: npmEnv,
        }),
      ]);
      assertEquals(installed.code, 0, installed.stderr);
      assertEquals(nodeInstalled.code, 0, nodeInstalled.stderr);

      await t.step("npm installs a copy with the package's README, not a link", async () => {
        const installedDir = `${app}/node_modules/@kopf/kopf`;
        assertEquals((await Deno.lstat(installedDir)).isSymlink, false);
        assertEquals(await Deno.readTextFile(`${installedDir}/README.md`), readme);
        const manifest = JSON.parse(await Deno.readTextFile(`${app}/package.json`));
        assertEquals(manifest.dependencies["@kopf/kopf"], `file:../dist/${tarballName}`);
      });

      const scripts = scriptsOf(readme);
      assertEquals(
        [...scripts.keys()].sort(),
        ["kopf.mjs", "list-configmaps.mjs", "operator.mjs", "operator.test.mjs"],
      );
      // Node 20 cannot parse `await using`; running the scripts there shows it too.
      assertEquals([...scripts.values()].filter((code) => code.includes("await using")), []);
      for (const [name, code] of scripts) await Deno.writeTextFile(`${app}/${name}`, code);

      const machineNode = (await run("node", ["--version"])).stdout.trim();
      const minimumBin = `${tmp}/node/node_modules/.bin`;
      const nodes: [string, string | undefined][] = [
        [machineNode, undefined],
        [`v${MINIMUM_NODE}`, minimumBin],
      ];
      for (const [version, path] of nodes) {
        await t.step(`the README's examples run under Node ${version}`, async () => {
          // The chosen Node first on the PATH, for the `kopf` binary's `env node` too.
          const env: Record<string, string> = path === undefined
            ? {}
            : { PATH: `${path}:${Deno.env.get("PATH")}` };
          await readmeRunsUnder(app, version, env, denoJson.version);
        });
      }
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

/** The README's examples, run in the project `app` under the Node that `env` puts first. */
async function readmeRunsUnder(
  app: string,
  version: string,
  env: Record<string, string>,
  packageVersion: string,
): Promise<void> {
  const node = (args: string[], more: Record<string, string> = {}) =>
    run("node", args, { cwd: app, env: { ...env, ...more } });
  assertEquals((await node(["--version"])).stdout.trim(), version);

  // The operator's test: FakeCluster and KopfRunner of the installed /testing entry.
  const tested = await node(["--test", "--test-reporter=tap", "operator.test.mjs"]);
  assertEquals(tested.code, 0, tested.stdout + tested.stderr);
  assertStringIncludes(tested.stdout, "# pass 1");
  assertStringIncludes(tested.stdout, "# fail 0");

  // The API client of /client, against a cluster served by this process.
  await using cluster = await FakeCluster.start();
  for (const name of ["alpha", "beta"]) {
    cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name } });
  }
  const kubeconfig = await cluster.writeKubeconfig();
  const listed = await node(["list-configmaps.mjs"], { KUBECONFIG: kubeconfig });
  assertEquals([listed.code, listed.stdout], [0, "alpha\nbeta\n"], listed.stderr);

  // The command line of /cli, and the binary npm linked.
  const cli = await node(["kopf.mjs", "--version"]);
  assertEquals([cli.code, cli.stdout.trim()], [0, packageVersion], cli.stderr);
  const bin = await run(`${app}/node_modules/.bin/kopf`, ["--version"], { cwd: app, env });
  assertEquals([bin.code, bin.stdout.trim()], [0, packageVersion], bin.stderr);
}
