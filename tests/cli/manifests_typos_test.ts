/**
 * `kopf manifests` tells a typo of a known resource from a CRD not given: the first names
 * the resource meant, the second asks for the CRD (and says when the files given lack it).
 */
import { assertEquals, assertStringIncludes } from "../assert.ts";
import { runKopf as kopf } from "./kopf_command.ts";

async function operatorFile(resource: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "kopf-typos-" });
  const file = `${dir}/operator.ts`;
  const mod = new URL("../../mod.ts", import.meta.url).href;
  await Deno.writeTextFile(
    file,
    `import { kopf } from "${mod}";\nkopf.on.create("${resource}", function made() {});\n`,
  );
  return file;
}

Deno.test("kopf manifests names the resource meant by a typo", async () => {
  const crd = new URL("../../examples/crd.yaml", import.meta.url).pathname;
  const file = await operatorFile("kopfexampels");
  const result = await kopf(["manifests", "-A", "--crd", crd, file]);
  assertEquals(result.code, 2, result.stderr);
  assertStringIncludes(
    result.stderr,
    "The handlers serve kopfexampels, which no built-in resource or --crd file defines; " +
      'did you mean "kopfexamples.kopf.dev"?',
  );
  const builtin = await kopf(["manifests", "-A", await operatorFile("confgmaps")]);
  assertStringIncludes(builtin.stderr, 'did you mean "configmaps"?');
});

Deno.test("kopf manifests asks for the CRD of a resource far from any known", async () => {
  const crd = new URL("../../examples/crd.yaml", import.meta.url).pathname;
  const file = await operatorFile("widgets.example.com");
  const result = await kopf(["manifests", "-A", "--crd", crd, file]);
  assertEquals(result.code, 2, result.stderr);
  assertStringIncludes(
    result.stderr,
    "which is neither a built-in resource nor in a --crd file (the --crd files given do not " +
      "define it); give its CRD with --crd FILE.",
  );
});
