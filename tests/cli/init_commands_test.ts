/**
 * The first day, on a machine set up as the README says: Node and npm, Deno only through
 * npx, no `deno` on PATH. `kopf init` is run as the README's quick start prints it, and
 * then every command that its output and the generated project's README print, copied
 * as they are, in the README's order: the test, the fake cluster (started, then stopped
 * with Ctrl+C), the operator (started, seen serving an object, stopped with Ctrl+C, also
 * with --watch), the permissions, the manifests (with --dockerfile, --image, --helm
 * chart/), the types and the vendor task. Only `docker` and `helm`, which the README's
 * set-up does not install, are left out: the chart is rendered by ./helm_render.ts's
 * renderer for the release the README installs, and equals the manifests the README
 * applies. Last, the files that .gitignore and .dockerignore keep out.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { run } from "../platform/commands.ts";
import { renderChart, splitDocuments } from "../commands/helm_render.ts";

const ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");

/** The README's way to run Deno without one on PATH, from its `kopf init` line. */
async function readmeInit(): Promise<{ deno: string; init: string }> {
  const readme = await Deno.readTextFile(`${ROOT}/README.md`);
  const line = /^(npx -y deno@\S+) task kopf init \.\.\/my-operator --local \. /m.exec(readme);
  assert(line !== null, "the README's quick start runs kopf init through npx");
  return { deno: line[1], init: `${line[1]} task kopf init` };
}

function executable(path: string): boolean {
  try {
    const info = Deno.statSync(path);
    return info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** This PATH without the directories that hold a `deno`: Node and npm's set-up only. */
function pathWithoutDeno(): string {
  const dirs = (Deno.env.get("PATH") ?? "").split(":").filter((d) => !executable(`${d}/deno`));
  for (const tool of ["node", "npx", "kubectl", "sh"]) {
    assert(dirs.some((d) => executable(`${d}/${tool}`)), `${tool} is not on PATH`);
  }
  return dirs.join(":");
}

/** A shell command of the user's, in a process group of its own (for Ctrl+C). */
class Shell {
  readonly child: Deno.ChildProcess;
  output = "";
  readonly #waiters: { text: string; resolve: () => void }[] = [];
  readonly done: Promise<Deno.CommandStatus>;

  constructor(command: string, cwd: string, env: Record<string, string>) {
    this.child = new Deno.Command("sh", {
      args: ["-c", command],
      cwd,
      env,
      clearEnv: true,
      detached: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    // A safety net only: the test waits for output and exits, never for a fixed time.
    const guard = setTimeout(() => this.interrupt("SIGKILL"), 240_000);
    const read = async (stream: ReadableStream<Uint8Array>) => {
      for await (const text of stream.pipeThrough(new TextDecoderStream())) {
        this.output += text;
        for (const waiter of [...this.#waiters]) {
          if (this.output.includes(waiter.text)) {
            this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
            waiter.resolve();
          }
        }
      }
    };
    const reading = Promise.all([read(this.child.stdout), read(this.child.stderr)]);
    this.done = reading.then(() => this.child.status).finally(() => clearTimeout(guard));
  }

  /** Resolves once the output holds the text; fails if the command ends first. */
  until(text: string): Promise<void> {
    if (this.output.includes(text)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#waiters.push({ text, resolve });
      this.done.then(() => {
        if (!this.output.includes(text)) {
          reject(new Error(`The command ended without printing ${text}:\n${this.output}`));
        }
      });
    });
  }

  /** A signal to the whole process group, as a terminal's Ctrl+C sends it. */
  interrupt(signal: Deno.Signal = "SIGINT"): void {
    try {
      Deno.kill(-this.child.pid, signal);
    } catch {
      // Gone already.
    }
  }

  /** Ctrl+C, then the end of every process of the group. */
  async stop(): Promise<string> {
    this.interrupt();
    await this.done;
    // A parent may exit before the child it forwarded the signal to has finished.
    while ((await run("kill", ["-0", "--", `-${this.child.pid}`])).code === 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return this.output;
  }
}

/** The commands of a README: its `sh` blocks' lines (a here-document as one) and spans. */
function readmeCommands(readme: string, deno: string): string[] {
  const commands: string[] = [];
  const blocks = /```sh\n([\s\S]*?)```|`([^`\n]+)`/g;
  for (const [, block, span] of readme.matchAll(blocks)) {
    if (span !== undefined) {
      if (span.startsWith(`${deno} task `)) commands.push(span);
      continue;
    }
    const lines = block.trimEnd().split("\n");
    for (let i = 0; i < lines.length; i++) {
      const here = /<<(\w+)$/.exec(lines[i]);
      if (here === null) {
        commands.push(lines[i]);
        continue;
      }
      const end = lines.indexOf(here[1], i);
      commands.push(lines.slice(i, end + 1).join("\n"));
      i = end;
    }
  }
  return commands;
}

Deno.test("kopf init and every command it and its README print run as printed without a deno on PATH", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "kopf-first-day-" });
  const env: Record<string, string> = {
    PATH: pathWithoutDeno(),
    HOME: Deno.env.get("HOME") ?? tmp,
    NO_COLOR: "1",
  };
  const running: Shell[] = [];
  const shell = async (command: string, cwd: string) => {
    const sh = new Shell(command, cwd, env);
    const { code } = await sh.done;
    assertEquals(code, 0, `${command}\n${sh.output}`);
    return sh.output;
  };
  try {
    const { deno, init } = await readmeInit();
    const printed = await shell(`${init} ${tmp}/op --local .`, ROOT);
    const next = /Next: (cd \S+) && (.+?) task test; then (.+?) task fake-cluster /.exec(printed);
    assert(next !== null, printed);
    assertEquals([next[2], next[3]], [deno, deno], "no deno on PATH: npx, as the README has it");
    assertStringIncludes(await shell(`${next[1]} && ${next[2]} task test`, tmp), "1 passed");

    const project = `${tmp}/op`;
    const readme = await Deno.readTextFile(`${project}/README.md`);
    // The generated files' comments name the tasks as the README's shell runs them too.
    for (const file of ["operator.ts", "operator_test.ts", "crd.yaml"]) {
      const text = await Deno.readTextFile(`${project}/${file}`);
      assertStringIncludes(text, `${deno} task `, file);
      assert(!text.replaceAll(`${deno} task `, "").includes("deno task "), file);
    }
    const commands = readmeCommands(readme, deno);
    // Each command of the README is one of these; each kind is run at least once.
    const seen = new Set<string>();
    let operator: Shell | undefined;
    for (const command of commands) {
      const task = command.startsWith(`${deno} task `)
        ? command.slice(`${deno} task `.length).split(" ")[0]
        : command.split(" ")[0];
      seen.add(task);
      const exported = /^export (\w+)=(\S+)$/.exec(command);
      if (exported !== null) {
        env[exported[1]] = exported[2];
      } else if (task === "docker" || task === "helm") {
        continue; // not installed by the README's set-up
      } else if (task === "fake-cluster") {
        const cluster = new Shell(command, project, env);
        running.push(cluster);
        await cluster.until("Fake cluster ready at");
      } else if (task === "run") {
        // Another terminal's operator: the one before stops first, as its user would.
        await operator?.stop().then((out) => assertStoppedGracefully(out));
        operator = new Shell(command, project, env);
        running.push(operator);
        await operator.until("The operator is ready");
      } else {
        await shell(command, project);
        if (command.startsWith("kubectl get")) {
          await operator!.until("[default/example] Hello, world!");
        }
      }
    }
    assertEquals(
      [...seen].sort(),
      [
        "docker",
        "export",
        "fake-cluster",
        "helm",
        "kubectl",
        "manifests",
        "permissions",
        "run",
        "test",
        "types",
        "vendor",
      ],
    );
    assertStoppedGracefully(await operator!.stop());
    const clusterOut = await running[0].stop();
    const state = await Deno.stat(`${project}/.fake-cluster/state.json`).catch(() => undefined);
    assert(state?.isFile, `the fake cluster saved its state when stopped:\n${clusterOut}`);

    // What the README's commands wrote: the image's recipe, the manifests, the chart.
    assertStringIncludes(await Deno.readTextFile(`${project}/Dockerfile`), "COPY . .");
    assertStringIncludes(await Deno.readTextFile(`${project}/deploy.yaml`), "image: op:1\n");
    // Installed as the README says (`helm install op chart/`), the chart makes the objects
    // of deploy.yaml: the README's two ways to deploy agree.
    const chart = await Array.fromAsync(
      (await run("find", ["chart", "-type", "f"], { cwd: project })).stdout.trim().split("\n"),
      async (path) => ({
        path: path.slice("chart/".length),
        text: await Deno.readTextFile(`${project}/${path}`),
      }),
    );
    const install = /^helm install (\S+) chart\/$/m.exec(readme);
    assertEquals(install?.[1], "op");
    const rendered = renderChart(chart, { releaseName: install![1] }).documents;
    const deployed = splitDocuments(await Deno.readTextFile(`${project}/deploy.yaml`))
      .filter((d) => !d.startsWith("#"));
    assertEquals([...rendered].sort(), [...deployed].sort());

    await assertIgnored(project);
  } finally {
    for (const shell of running) shell.interrupt("SIGKILL");
    await Promise.all(running.map((shell) => shell.done));
    await Deno.remove(tmp, { recursive: true });
  }
});

/** Ctrl+C once stops the operator gracefully, however many processes npx put between. */
function assertStoppedGracefully(output: string): void {
  assertStringIncludes(output, "Signal SIGINT received: the operator is stopping.");
  assert(!output.includes("received again"), output);
}

/**
 * `.fake-cluster/` is kept out of git (as git itself says) and out of the image: of the
 * files that `COPY . .` copies (all but those .dockerignore names, its patterns here
 * plain paths, which match themselves and what is under them), none is under it.
 */
async function assertIgnored(project: string): Promise<void> {
  const git = (...args: string[]) => run("git", args, { cwd: project });
  assertEquals((await git("init", "-q")).code, 0);
  const ignored = await git("check-ignore", ".fake-cluster/state.json", ".fake-cluster/kubeconfig");
  assertEquals(ignored.stdout.trim().split("\n").length, 2, ignored.stdout + ignored.stderr);
  const status = await git("status", "--porcelain", "--untracked-files=all");
  assert(!status.stdout.includes(".fake-cluster"), status.stdout);

  const patterns = (await Deno.readTextFile(`${project}/.dockerignore`)).split("\n")
    .map((line) => line.trim()).filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => line.replace(/\/+$/, ""));
  assert(patterns.every((p) => !/[*?[!]/.test(p)), "plain paths only, as read here");
  const files = (await run("find", [".", "-type", "f"], { cwd: project })).stdout.trim()
    .split("\n").map((path) => path.slice(2));
  const copied = files.filter((path) =>
    !patterns.some((p) => path === p || path.startsWith(`${p}/`))
  );
  assert(copied.includes("operator.ts") && copied.some((p) => p.startsWith("vendor/kopf/")));
  assert(files.includes(".fake-cluster/state.json"));
  assertEquals(copied.filter((path) => path.startsWith(".fake-cluster")), []);
}
