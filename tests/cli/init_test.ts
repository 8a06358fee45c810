/**
 * `kopf init` on the command line: a project made in an empty directory, with the
 * framework from this checkout (JSR may be out of reach), passes its own `deno task
 * test` — type check and the operator on a fake cluster; and a directory that is not
 * empty is refused in one line with exit code 2.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { runDeno } from "../platform/commands.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const MAIN = new URL("../../src/cli/main.ts", import.meta.url).pathname;

async function deno(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number; out: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code, out: text.decode(stdout) + text.decode(stderr) };
}

Deno.test("kopf init myop --local makes a project whose deno task test passes", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const init = await deno(["run", "-A", MAIN, "init", "myop", "--local", ROOT], dir);
    assertEquals(init.code, 0, init.out);
    assertStringIncludes(init.out, "Wrote a new operator project into myop.");
    const test = await deno(["task", "test"], `${dir}/myop`);
    assertEquals(test.code, 0, test.out);
    assertStringIncludes(test.out, "ok | 1 passed | 0 failed");
    const fmt = await deno(["fmt", "--check"], `${dir}/myop`);
    assertEquals(fmt.code, 0, fmt.out);
    const lint = await deno(["lint"], `${dir}/myop`);
    assertEquals(lint.code, 0, lint.out);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kopf init: deno task fake-cluster serves with the task's permissions; permissions prints them", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // A `deno` on PATH: the commands printed use it (without one, npx: init_commands_test.ts).
    await Deno.mkdir(`${dir}/bin`);
    await Deno.symlink(Deno.execPath(), `${dir}/bin/deno`);
    const init = await deno(["run", "-A", MAIN, "init", "myop", "--local", ROOT], dir, {
      PATH: `${dir}/bin:${Deno.env.get("PATH")}`,
    });
    assertEquals(init.code, 0, init.out);
    assertStringIncludes(init.out, "Next: cd myop && deno task test; then deno task fake-cluster");
    const project = `${dir}/myop`;
    const fake = new Deno.Command(Deno.execPath(), {
      args: ["task", "fake-cluster"],
      cwd: project,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const guard = setTimeout(() => fake.kill("SIGKILL"), 120_000);
    try {
      const lines = fake.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let printed = "";
      while (!printed.includes("Fake cluster ready at")) {
        const { value, done } = await lines.read();
        if (done) break;
        printed += value;
      }
      lines.releaseLock();
      assertStringIncludes(printed, "export KUBECONFIG=.fake-cluster/kubeconfig");
      const permissions = await runDeno(["task", "permissions"], {
        cwd: project,
        env: { KUBECONFIG: ".fake-cluster/kubeconfig" },
        timeout: 120,
      });
      assertEquals(permissions.code, 0, permissions.stderr);
      assertStringIncludes(permissions.stdout, "--allow-net=127.0.0.1:");
    } finally {
      fake.kill("SIGTERM");
      const status = await fake.status;
      clearTimeout(guard);
      await fake.stdout.cancel().catch(() => {});
      const stderr = await new Response(fake.stderr).text();
      assertEquals(status.code, 0, stderr);
    }
    // Saved on exit, for the next start.
    assert((await Deno.stat(`${project}/.fake-cluster/state.json`)).isFile);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kopf init refuses a directory that is not empty, with exit code 2", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/notes.txt`, "mine");
    const { code, out } = await deno(["run", "-A", MAIN, "init", dir], dir);
    assertEquals(code, 2, out);
    const lines = out.trim().split("\n");
    assertEquals(lines.length, 2, out); // the message, and the hint at the help
    assertStringIncludes(lines[0], `kopf init: ${dir} is not empty`);
    assertEquals(lines[1], "See 'kopf init --help'.");
    assert((await Array.fromAsync(Deno.readDir(dir))).length === 1, "nothing may be written");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
