/**
 * The image of a `kopf init --local` project, without Docker: the recipe that
 * `deno task manifests --dockerfile` prints is carried out step by step on a copy of the
 * build context laid out as the image's file system would be — every `COPY` source exists
 * in the context, the Deno configuration resolves inside it, the `RUN` that writes the
 * entry runs as it is, `deno check` stands for `deno compile`'s type check, and the
 * entry runs with the recipe's permission flags and handles an object. The project's own
 * directory is moved away meanwhile, so that nothing can reach back into it; and the
 * checkout's path appears in no setting that the build reads.
 */
import { parse } from "yaml";
import type { RawBody } from "../../mod.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { contextEscapes } from "../../src/commands/build_context.ts";
import { ENTRY_FILE } from "../../src/commands/dockerfile_recipe.ts";
import { run } from "../platform/commands.ts";
import { assert, assertEquals } from "../assert.ts";
import { quote } from "../doc_quotes.ts";

const ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
const MAIN = `${ROOT}/src/cli/main.ts`;

/** The build stage of a Dockerfile: its instructions, continuation lines joined. */
function buildStage(dockerfile: string): { instruction: string; rest: string }[] {
  const joined = dockerfile.replace(/\\\n/g, " ").split("\n")
    .map((line) => line.trim()).filter((line) => line !== "" && !line.startsWith("#"));
  const stages = joined.join("\n").split(/^(?=FROM )/m);
  return stages[0].split("\n").map((line) => {
    const [instruction, ...rest] = line.split(" ");
    return { instruction, rest: rest.join(" ") };
  });
}

/** The deno.json files of a directory tree (workspace members included). */
async function denoConfigs(dir: string): Promise<string[]> {
  const { stdout } = await run("find", [
    dir,
    "-name",
    "deno.json",
    "-not",
    "-path",
    "*/node_modules/*",
  ]);
  return stdout.trim().split("\n").filter(Boolean);
}

Deno.test("a kopf init --local project's Dockerfile builds from its own directory", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "kopf-init-image-" });
  try {
    const init = await run(Deno.execPath(), ["run", "-A", MAIN, "init", "myop", "--local", ROOT], {
      cwd: tmp,
      timeout: 120,
    });
    assertEquals(init.code, 0, init.stderr);
    const context = `${tmp}/myop`;
    const recipe = await run(Deno.execPath(), ["task", "manifests", "--dockerfile"], {
      cwd: context,
      timeout: 120,
    });
    assertEquals(recipe.code, 0, recipe.stderr);
    const steps = buildStage(recipe.stdout);

    // Lay the image out: WORKDIR, then each COPY of the build stage from the context.
    const image = `${tmp}/image`;
    const workdir = steps.find((s) => s.instruction === "WORKDIR")?.rest;
    assert(workdir?.startsWith("/"), recipe.stdout);
    const app = `${image}${workdir}`;
    await Deno.mkdir(app, { recursive: true });
    const copies = steps.filter((s) => s.instruction === "COPY");
    assert(copies.length > 0, recipe.stdout);
    for (const { rest } of copies) {
      const [destination, ...sources] = rest.split(" ").reverse();
      for (const source of sources) {
        const from = `${context}/${source}`;
        assert((await Deno.stat(from).catch(() => undefined)) !== undefined, `COPY ${source}`);
        const to = destination.startsWith("/") ? `${image}${destination}` : `${app}/${destination}`;
        const copied = await run("cp", ["-a", `${from}/.`, to]);
        assertEquals(copied.code, 0, copied.stderr);
      }
    }
    // Nothing may reach back to the project's directory or out of the image's.
    await Deno.rename(context, `${tmp}/moved`);
    for (const config of await denoConfigs(app)) {
      const text = await Deno.readTextFile(config);
      assertEquals(contextEscapes(text, `file://${config}`, `file://${app}/`), [], config);
      assert(!text.includes(`"file:`), `${config} names a file: URL`);
    }
    const runs = steps.filter((s) => s.instruction === "RUN").map((s) => s.rest);
    const compile = runs.find((command) => command.startsWith("deno compile "));
    assert(compile !== undefined, recipe.stdout);
    for (const command of runs.filter((command) => command !== compile)) {
      const done = await run("sh", ["-c", command], { cwd: app });
      assertEquals(done.code, 0, `RUN ${command}: ${done.stderr}`);
    }
    assert(compile.endsWith(` ${ENTRY_FILE}`), compile);
    // `deno compile` type-checks the entry's graph, then bakes in these flags.
    const check = await run(Deno.execPath(), ["check", ENTRY_FILE], { cwd: app, timeout: 180 });
    assertEquals(check.code, 0, check.stderr);
    const flags = compile.split(/\s+/).filter((word) =>
      word.startsWith("--") && word !== "--no-prompt" && !word.startsWith("--output")
    );
    await runsInImage(app, flags, `${tmp}/moved/crd.yaml`);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

/** The entry, with the recipe's flags, handles an object of a fake cluster. */
async function runsInImage(app: string, flags: string[], crdFile: string): Promise<void> {
  await using cluster = await FakeCluster.start();
  cluster.create(parse(await Deno.readTextFile(crdFile)) as RawBody);
  const kubeconfig = await cluster.writeKubeconfig();
  // A pod logs in with its service account; here, a kubeconfig, which takes leave to read
  // it and the variables read while it is parsed (`kopf permissions` plans them so).
  const permissions = flags.map((flag) => {
    if (flag.startsWith("--allow-read=")) return `${flag},${kubeconfig}`;
    if (flag.startsWith("--allow-env=")) return `${flag},LOG_TOKENS,LOG_STREAM`;
    return flag;
  });
  const operator = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      ...permissions,
      ENTRY_FILE,
      "--standalone",
      "--all-namespaces",
      "--kubeconfig",
      kubeconfig,
    ],
    cwd: app,
    env: { NO_COLOR: "1" },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const guard = setTimeout(() => operator.kill("SIGKILL"), 120_000);
  const stderr = new Response(operator.stderr).text();
  try {
    cluster.create({
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "image", namespace: "default" },
      spec: { name: "image" },
    });
    const exited = operator.status.then(({ code }) => {
      throw new Error(`The operator exited early with ${code}.`);
    });
    await Promise.race([
      cluster.waitFor("widgets.example.com", "image", (o) => {
        return (o?.status as { greeting?: string } | undefined)?.greeting === "Hello, image!";
      }, { timeout: 60 }),
      exited,
    ]);
  } catch (error) {
    try {
      operator.kill("SIGKILL");
    } catch {
      // exited already
    }
    throw new Error(`${error}\n${await stderr}`);
  } finally {
    clearTimeout(guard);
  }
  operator.kill("SIGTERM");
  const { code } = await operator.status;
  assertEquals(code, 0, await stderr);
}

Deno.test("a recipe whose build would reach out of its context is refused in one line", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "kopf-context-" });
  try {
    await Deno.mkdir(`${tmp}/op`);
    const operator = `import { kopf } from "file://${ROOT}/mod.ts";\n` +
      `kopf.on.create("configmaps", function created() {});\n`;
    await Deno.writeTextFile(`${tmp}/op/operator.ts`, operator);
    await Deno.writeTextFile(`${tmp}/outside.ts`, operator);
    await Deno.writeTextFile(
      `${tmp}/op/deno.json`,
      JSON.stringify({ imports: { "@kopf/kopf": "../kopf/mod.ts" } }),
    );
    // The command line's own configuration is the checkout's; the project's is only read.
    const kopf = (...args: string[]) =>
      run(
        Deno.execPath(),
        ["run", "-A", `--config=${ROOT}/deno.json`, MAIN, "manifests", ...args],
        {
          cwd: `${tmp}/op`,
          timeout: 120,
        },
      );
    const refused = await kopf("-A", "--dockerfile", "operator.ts");
    assertEquals(refused.code, 2, refused.stderr);
    const line = refused.stderr.split("\n")[0];
    // The setting named as docs/deployment.md quotes it.
    const quoted = await quote("deployment.md", "deno.json: imports");
    assert(
      line.startsWith(
        `kopf manifests: ${quoted} (${tmp}/op): the image cannot be built from it.`,
      ),
      refused.stderr,
    );
    const outside = await kopf("-A", "--dockerfile", "../outside.ts");
    assertEquals(outside.code, 2, outside.stderr);
    assert(outside.stderr.startsWith("kopf manifests: ../outside.ts is outside the build context"));
    // The manifests themselves do not depend on the build context.
    const manifests = await kopf("-A", "operator.ts");
    assertEquals(manifests.code, 0, manifests.stderr);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
