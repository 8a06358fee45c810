/**
 * `kopf manifests --helm DIR` as a user runs it: the chart is written into the directory,
 * renders (by the test renderer of Helm's templates) to what `kopf manifests` prints with
 * the same flags, and a second run replaces what the first wrote — removing what the
 * operator no longer needs, keeping the user's own files.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { manifestsOf } from "../../src/cli/manifests.ts";
import { CHART_FILES, type ChartFile } from "../../src/commands/helm_chart.ts";
import { helmOrder, renderChart, splitDocuments } from "../commands/helm_render.ts";
import { ROOT, runDeno } from "../platform/commands.ts";

const MAIN = `${ROOT}/src/cli/main.ts`;
const CRD = `${ROOT}/examples/crd.yaml`;
const example = (folder: string) => `${ROOT}/examples/${folder}/example.ts`;

/** The chart's files in a directory, as the chart generator's paths. */
async function readChart(dir: string): Promise<ChartFile[]> {
  const files: ChartFile[] = [];
  for (const path of CHART_FILES) {
    const text = await Deno.readTextFile(`${dir}/${path}`).catch(() => undefined);
    if (text !== undefined) files.push({ path, text });
  }
  return files;
}

const canonical = (documents: string[]) => helmOrder([...documents].sort()).join("\n---\n");

Deno.test("kopf manifests --helm writes a chart that renders the manifests, and rewrites it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kopf-helm-" });
  try {
    const flags = ["-n", "default", "--crd", CRD, "--webhook-config", "kex.kopf.dev"];
    const written = await runDeno(
      ["run", "-A", MAIN, "manifests", ...flags, "--helm", `${dir}/chart`, example("17-admission")],
    );
    assertEquals(written.code, 0, written.stderr);
    assertStringIncludes(written.stdout, `Wrote the Helm chart kopf-operator into ${dir}/chart: `);
    assertStringIncludes(written.stdout, `helm install kopf-operator ${dir}/chart --namespace`);
    const chart = await readChart(`${dir}/chart`);
    assert(chart.some((f) => f.path === "templates/webhook-service.yaml"), "a webhook Service");
    const expected = await manifestsOf([example("17-admission")], {
      namespace: ["default"],
      crd: [CRD],
      webhookConfig: "kex.kopf.dev",
    });
    const docs = splitDocuments(expected).filter((d) => !d.startsWith("#"));
    assertEquals(canonical(renderChart(chart).documents), canonical(docs));
    assertStringIncludes(renderChart(chart).notes, "kopf-operator-webhook.default.svc");

    // The operator changes: without admission handlers, the Service goes; a file of the
    // user's own stays.
    await Deno.writeTextFile(`${dir}/chart/templates/extra.yaml`, "# mine\n");
    const again = await runDeno(
      [
        "run",
        "-A",
        MAIN,
        "manifests",
        "-n",
        "default",
        "--crd",
        CRD,
        "--helm",
        `${dir}/chart`,
        example("01-minimal"),
      ],
    );
    assertEquals(again.code, 0, again.stderr);
    const rewritten = await readChart(`${dir}/chart`);
    assertEquals(rewritten.some((f) => f.path === "templates/webhook-service.yaml"), false);
    assertEquals(await Deno.readTextFile(`${dir}/chart/templates/extra.yaml`), "# mine\n");
    const minimal = await manifestsOf([example("01-minimal")], {
      namespace: ["default"],
      crd: [CRD],
    });
    assertEquals(
      canonical(renderChart(rewritten).documents),
      canonical(splitDocuments(minimal).filter((d) => !d.startsWith("#"))),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kopf manifests --helm refuses --dockerfile beside it, in one line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kopf-helm-" });
  try {
    const refused = await runDeno([
      "run",
      "-A",
      MAIN,
      "manifests",
      "-A",
      "--crd",
      CRD,
      "--dockerfile",
      "--helm",
      dir,
      example("01-minimal"),
    ]);
    assertEquals(refused.code, 2);
    assertStringIncludes(refused.stderr, "Use either --dockerfile or --helm DIR, not both.");
    assertEquals([...Deno.readDirSync(dir)], [], "nothing written");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
