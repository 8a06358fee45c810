/**
 * A real operator under Node 20: the npm build's `kopf run` binary loads an operator
 * module, logs in with the kubeconfig of a fake cluster served by this Deno process,
 * handles an object's creation and deletion, and stops gracefully on SIGTERM.
 */
import { parse as parseYaml } from "yaml";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { ROOT, run, runDeno } from "../platform/commands.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import type { RawBody } from "../../mod.ts";

const KIND = "kopfexamples.kopf.dev";

Deno.test("kopf run under Node: an operator module handles objects of a live cluster", async () => {
  const node = await run("node", ["--version"]);
  assert(node.stdout.startsWith("v20."), `Node 20 is needed, found ${node.stdout}`);
  const out = await Deno.makeTempDir({ prefix: "kopf-npm-operator-" });
  try {
    const built = await runDeno(["run", "-A", `${ROOT}/scripts/build_npm.ts`, "--outdir", out]);
    assertEquals(built.code, 0, built.stderr);
    const installed = await runDeno(["install", "--node-modules-dir=auto"], { cwd: out });
    assertEquals(installed.code, 0, installed.stderr);
    await Deno.copyFile(`${ROOT}/tests/dist/operator_smoke.mjs`, `${out}/operator.mjs`);

    await using cluster = await FakeCluster.start();
    const crd = await Deno.readTextFile(`${ROOT}/examples/crd.yaml`);
    cluster.create(parseYaml(crd) as RawBody);
    const kubeconfig = await cluster.writeKubeconfig();

    const operator = new Deno.Command("node", {
      args: [`${out}/bin/kopf.js`, "run", "--standalone", "-A", "--verbose", "operator.mjs"],
      cwd: out,
      env: { NO_COLOR: "1", KUBECONFIG: kubeconfig },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const output = operator.output();
    try {
      cluster.create({
        apiVersion: "kopf.dev/v1",
        kind: "KopfExample",
        metadata: { name: "on-node" },
        spec: { field: "value" },
      });
      const handled = await cluster.waitFor(
        KIND,
        "on-node",
        (o) => (o?.status as { createFn?: unknown } | undefined)?.createFn !== undefined,
        { timeout: 30 },
      );
      const result = (handled?.status as { createFn: { runtime: string; version: string } })
        .createFn;
      assertEquals(result.runtime, "node");
      assert(result.version.startsWith("v20."), result.version);
      assertEquals(handled?.metadata?.finalizers, ["kopf.zalando.org/KopfFinalizerMarker"]);

      cluster.delete(KIND, "on-node");
      await cluster.waitFor(KIND, "on-node", (o) => o === undefined, { timeout: 30 });
    } finally {
      operator.kill("SIGTERM");
    }
    // A process still running 15 s after SIGTERM is killed, and the test fails.
    const killer = setTimeout(() => operator.kill("SIGKILL"), 15_000);
    const { code, stderr, signal } = await output.finally(() => clearTimeout(killer));
    assertEquals(signal, null, "stopped by SIGTERM, not killed");
    const text = new TextDecoder().decode(stderr);
    assertEquals(code, 0, text);
    assertStringIncludes(text, "[default/on-node] Handled on Node v20.");
    assertStringIncludes(text, "[default/on-node] Handler 'createFn' succeeded.");
    assertStringIncludes(text, "[default/on-node] Deleted on Node.");
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});
