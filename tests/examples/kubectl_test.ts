/**
 * The manual's testing recipe, literally: `kubectl apply` the examples' CRD and object
 * while `kopf run` serves the cluster in a KopfRunner, then `kubectl delete` it. This
 * also proves that examples/crd.yaml and examples/obj.yaml are what kubectl accepts.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { available, run } from "../platform/commands.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { exampleFile, KIND, NAME, settled } from "./helpers.ts";
import { KopfRunner } from "../../src/testing/runner.ts";

const EXAMPLES = new URL("../../examples/", import.meta.url).pathname;
const hasKubectl = await available("kubectl", ["version", "--client"]);

Deno.test({
  name: "kubectl apply/get/delete against kopf run of 01-minimal",
  ignore: !hasKubectl,
  fn: manualRecipe,
});

async function manualRecipe() {
  await using cluster = await FakeCluster.start();
  const kubeconfig = await cluster.writeKubeconfig();
  // The discovery cache goes next to the kubeconfig, removed with it: not into ~/.kube.
  const cache = `--cache-dir=${kubeconfig}-cache`;
  const kubectl = async (...args: string[]) => {
    const result = await run("kubectl", ["--kubeconfig", kubeconfig, cache, ...args]);
    assertEquals(result.code, 0, `kubectl ${args.join(" ")}: ${result.stderr}`);
    return result.stdout;
  };
  assertStringIncludes(
    await kubectl("apply", "-f", `${EXAMPLES}crd.yaml`),
    "customresourcedefinition.apiextensions.k8s.io/kopfexamples.kopf.dev created",
  );
  await using runner = await KopfRunner.start(
    ["run", "--standalone", "-A", "--verbose", exampleFile("01-minimal")],
    { cluster },
  );
  assertStringIncludes(
    await kubectl("apply", "-f", `${EXAMPLES}obj.yaml`),
    `kopfexample.kopf.dev/${NAME} created`,
  );
  await cluster.waitFor(KIND, NAME, settled);
  await runner.waitForOutput("And here we are!");
  // The CRD's printer columns show what the handler returned; the short name works.
  const table = await kubectl("get", "kex", NAME);
  assert(/MESSAGE/.test(table) && table.includes("hello world"), table);
  // And the framework's Ready condition (docs/conditions.md).
  const [header, row] = table.trim().split("\n");
  const column = header.indexOf("READY"); // columns align; an empty one has no text
  assertEquals(row.slice(column).split(/\s+/)[0], "True", table);
  assertStringIncludes(
    await kubectl("delete", "-f", `${EXAMPLES}obj.yaml`),
    `kopfexample.kopf.dev "${NAME}" deleted`,
  );
  await cluster.waitFor(KIND, NAME, (o) => o === undefined);
  await runner.stop();
  assertEquals(runner.exitCode, 0);
}
