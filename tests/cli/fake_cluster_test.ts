/**
 * `kopf fake-cluster`: serves until SIGTERM, writes a kubeconfig, keeps the state file.
 */
import { serveFakeCluster } from "../../src/cli/fake_cluster.ts";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";

const MAIN = new URL("../../src/cli/main.ts", import.meta.url).pathname;

/** Start `kopf fake-cluster` in a subprocess; resolves with its ready line. */
async function startCli(args: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "fake-cluster", ...args],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // A safety net only: the test waits for the output and the exit, never for a fixed time.
  const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
  void child.status.finally(() => clearTimeout(guard));
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += value;
  }
  const url = /ready at (\S+):/.exec(out)?.[1];
  return { child, reader, out, url };
}

Deno.test({
  name: "kopf fake-cluster serves until SIGTERM and keeps its objects in the state file",
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      const args = [`--kubeconfig=${dir}/kubeconfig`, `--state=${dir}/state.json`];
      const first = await startCli(args);
      assertStringIncludes(first.out, `--kubeconfig=${dir}/kubeconfig`);
      assert(first.url, `a URL in the ready line: ${first.out}`);
      assertStringIncludes(await Deno.readTextFile(`${dir}/kubeconfig`), `server: ${first.url}`);
      const created = await fetch(`${first.url}/api/v1/namespaces/default/configmaps`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ metadata: { name: "kept" }, data: { a: "1" } }),
      });
      assertEquals(created.status, 201);
      await created.body?.cancel();
      first.child.kill("SIGTERM");
      assertEquals((await first.child.status).code, 0);
      await first.reader.cancel();
      await first.child.stderr.cancel();
      assertStringIncludes(await Deno.readTextFile(`${dir}/state.json`), '"kept"');

      const second = await startCli(args);
      const got = await fetch(`${second.url}/api/v1/namespaces/default/configmaps/kept`);
      assertEquals((await got.json()).data, { a: "1" });
      second.child.kill("SIGINT");
      assertEquals((await second.child.status).code, 0);
      await second.reader.cancel();
      await second.child.stderr.cancel();
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("serveFakeCluster prints one ready line, warns about tokens over HTTP, stops on abort", async () => {
  const lines: string[] = [];
  const warnings: string[] = [];
  const controller = new AbortController();
  const dir = await Deno.makeTempDir();
  try {
    const serving = serveFakeCluster(
      { token: "x", kubeconfig: `${dir}/kc` },
      {
        print: (line) => {
          lines.push(line);
          controller.abort();
        },
        warn: (line) => warnings.push(line),
        signal: controller.signal,
      },
    );
    await serving;
    assertEquals(lines.length, 1);
    assertStringIncludes(lines[0], "Fake cluster ready at http://127.0.0.1:");
    assertStringIncludes(warnings[0], "--tls");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
