/**
 * `kopf fake-cluster`: serves until SIGTERM, writes a kubeconfig, keeps the state file;
 * HTTPS with a generated CA and a token by default, plain HTTP with `--http`.
 */
import { serveFakeCluster } from "../../src/cli/fake_cluster.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";
import { startCli } from "./helpers.ts";

Deno.test({
  name: "kopf fake-cluster --http serves until SIGTERM and keeps its objects in the state file",
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      const args = ["--http", `--kubeconfig=${dir}/kubeconfig`, `--state=${dir}/state.json`];
      const first = await startCli(args);
      assertStringIncludes(first.out, `--kubeconfig=${dir}/kubeconfig`);
      assert(first.url?.startsWith("http://"), `an http URL in the ready line: ${first.out}`);
      const kubeconfig = await Deno.readTextFile(`${dir}/kubeconfig`);
      assertStringIncludes(kubeconfig, `server: ${first.url}`);
      assertStringIncludes(kubeconfig, "insecure-skip-tls-verify: true");
      const created = await fetch(`${first.url}/api/v1/namespaces/default/configmaps`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ metadata: { name: "kept" }, data: { a: "1" } }),
      });
      assertEquals(created.status, 201);
      await created.body?.cancel();
      assertEquals(await first.stop(), 0);
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

Deno.test("kopf fake-cluster serves HTTPS by default: the kubeconfig carries the CA and a token", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const cli = await startCli([`--kubeconfig=${dir}/kubeconfig`]);
    try {
      assert(cli.url?.startsWith("https://"), `an https URL in the ready line: ${cli.out}`);
      const kubeconfig = await Deno.readTextFile(`${dir}/kubeconfig`);
      assertMatch(kubeconfig, /certificate-authority-data: \S+/);
      assertMatch(kubeconfig, /token: [0-9a-f]{32}/);
      assert(!kubeconfig.includes("insecure-skip-tls-verify"), "TLS is verified");
    } finally {
      assertEquals(await cli.stop(), 0);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kopf fake-cluster refuses --http with --tls or with --client-certificates", async () => {
  for (const args of [["--http", "--tls"], ["--http", "--client-certificates"]]) {
    const cli = await startCli(args);
    const { code } = await cli.child.status;
    const err = await new Response(cli.child.stderr).text();
    await cli.reader.cancel();
    assertEquals(code, 2, "a wrong command line");
    assertStringIncludes(err, "--http");
  }
});

Deno.test("serveFakeCluster prints one ready line, warns about tokens over HTTP, stops on abort", async () => {
  const lines: string[] = [];
  const warnings: string[] = [];
  const controller = new AbortController();
  const dir = await Deno.makeTempDir();
  try {
    const serving = serveFakeCluster(
      { tls: false, token: "x", kubeconfig: `${dir}/kc` },
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
    assertStringIncludes(warnings[0], "--http");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
