/**
 * The types that `kopf types` prints for every CRD of the examples (and for a CRD with
 * every schema feature) type handlers: correct handlers pass `deno check`, and a
 * misspelt field fails it with the compiler naming the field.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { denoCheck, MOD } from "../typecheck.ts";

const ROOT = new URL("../../", import.meta.url);
const MAIN = new URL("src/cli/main.ts", ROOT).pathname;

/** The YAML files of the examples that hold CRDs, and the feature-rich test CRD. */
async function crdFiles(): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(new URL("examples/", ROOT))) {
    if (!entry.isFile || !/\.ya?ml$/.test(entry.name)) continue;
    const path = new URL(`examples/${entry.name}`, ROOT).pathname;
    if ((await Deno.readTextFile(path)).includes("kind: CustomResourceDefinition")) {
      files.push(path);
    }
  }
  files.sort();
  files.push(new URL("tests/fixtures/crds/widgets.yaml", ROOT).pathname);
  return files;
}

async function output(command: Deno.Command): Promise<{ code: number; out: string }> {
  const { code, stdout, stderr } = await command.output();
  const text = new TextDecoder();
  return { code, out: text.decode(stdout) + text.decode(stderr) };
}

const RIGHT = `
import { kopf } from "${MOD}";
import type { KopfExampleV1, KopfExampleV1Spec, KopfExampleV1Status } from "./crd.ts";
import type { ClusterKopfPeeringV1, KopfPeeringV1 } from "./peering.ts";
import type { WidgetV1, WidgetV1Spec, WidgetV1beta1 } from "./widgets.ts";

// One parameter: a typed resource, as the generated doc comment says.
const kex = kopf.resource<KopfExampleV1>("kopf.dev", "v1", "kopfexamples");
kopf.on.create(kex, ({ spec, patch }) => {
  patch.status.message = \`duration: \${String(spec.duration)}\`;
});
// Or the spec and status types by name, as generics.
kopf.on.update<KopfExampleV1Spec, KopfExampleV1Status>("kopfexamples", ({ spec, status }) => {
  return [spec.field, status.createFn];
});
kopf.on.event(kopf.resource<KopfPeeringV1>("kopfpeerings"), ({ status }) => Object.keys(status));
kopf.on.event(
  kopf.resource<ClusterKopfPeeringV1>("kopf.dev", "v1", "clusterkopfpeerings"),
  ({ spec, status }) => [Object.keys(spec).length, status.anything],
);

const widgets = kopf.resource<WidgetV1>("example.com", "v1", "widgets");
kopf.on.create(widgets, ({ spec, status, patch, body }) => {
  const size: "small" | "medium" | "large" = spec.size;
  const port: number | string | undefined = spec.port;
  patch.status.phase = "Running";
  patch.status.conditions = [{ type: "Ready", status: "True" }];
  patch.spec.labels = { size };
  patch.spec.ratio = null;
  return [
    port,
    spec.template.parts?.[0]?.options?.verbose,
    spec.limits?.["main"]?.cpu,
    spec.settings?.["anything"],
    status.observedGeneration,
    body.spec?.replicas,
  ];
});
kopf.timer(widgets, { interval: 60 }, ({ spec }) => spec.ports?.map((p) => p.protocol ?? "TCP"));
kopf.on.field(kopf.resource<WidgetV1beta1>("example.com", "v1beta1", "widgets"), {
  field: "spec.size",
}, ({ spec }) => spec.size);
export const template = (spec: WidgetV1Spec): string[] =>
  (spec.template.parts ?? []).map((part) => part.name ?? "");
`;

const WRONG = `
import { kopf } from "${MOD}";
import type { WidgetV1 } from "./widgets.ts";

const widgets = kopf.resource<WidgetV1>("example.com", "v1", "widgets");
kopf.on.create(widgets, ({ spec, patch }) => {
  patch.status.phse = "Running";
  patch.status.phase = "Runing";
  return spec.sise;
});
`;

Deno.test("generated types of every example CRD type handlers; a misspelt field does not compile", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kopf-types-" });
  try {
    for (const file of await crdFiles()) {
      const name = file.slice(file.lastIndexOf("/") + 1).replace(/\.ya?ml$/, ".ts");
      const generated = await output(
        new Deno.Command(Deno.execPath(), {
          // The yaml package checks two debug switches in the environment.
          args: ["run", "--allow-read", "--allow-env=LOG_TOKENS,LOG_STREAM", MAIN, "types", file],
          env: { NO_COLOR: "1" },
        }),
      );
      assertEquals(generated.code, 0, generated.out);
      assert(generated.out.includes("export interface"), generated.out);
      await Deno.writeTextFile(`${dir}/${name}`, generated.out);
    }
    await Deno.writeTextFile(`${dir}/right.ts`, RIGHT);
    await Deno.writeTextFile(`${dir}/wrong.ts`, WRONG);

    const [right, wrong] = await Promise.all([
      denoCheck(dir, "right.ts"),
      denoCheck(dir, "wrong.ts"),
    ]);
    assert(right.ok, right.output);

    assert(!wrong.ok, "misspelt fields must not compile");
    assertStringIncludes(wrong.output, "Property 'phse' does not exist");
    assertStringIncludes(wrong.output, `Type '"Runing"' is not assignable to type`);
    assertStringIncludes(wrong.output, "Property 'sise' does not exist");
    assertEquals(wrong.output.match(/\[ERROR\]/g)?.length, 3, wrong.output);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
