/**
 * `kopf init`: the files of a new project, the framework from JSR by default or from a
 * local checkout, names checked, and nothing ever overwritten.
 */
import {
  initProject,
  operatorNameOf,
  pluralOf,
  type ProjectFile,
  projectFiles,
} from "../../src/commands/new_project.ts";
import { readLocalCheckout } from "../../src/commands/local_checkouts.ts";
import { CommandLineError } from "../../src/commands/run_options.ts";
import { generateTypesFromYaml } from "../../src/commands/types.ts";
import { pathExists } from "../../src/platform/files.ts";
import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
  assertThrows,
} from "../assert.ts";

const ROOT = new URL("../../", import.meta.url);
const BASE = { kopfVersion: "1.2.3", yamlSpecifier: "npm:yaml@^2.8.1" };

function file(files: readonly ProjectFile[], path: string): string {
  const found = files.find((f) => f.path === path);
  assert(found !== undefined, `${path} is not among the files`);
  return found.text;
}

Deno.test("a project has its operator, test, CRD, types, tasks and README", () => {
  const files = projectFiles(BASE);
  assertEquals(files.map((f) => f.path).sort(), [
    ".dockerignore",
    ".gitignore",
    "README.md",
    "crd.yaml",
    "deno.json",
    "operator.ts",
    "operator_test.ts",
    "types.ts",
  ]);
  const operator = file(files, "operator.ts");
  assertStringIncludes(operator, 'import { kopf } from "@kopf/kopf";');
  assertStringIncludes(operator, "kopf.resource<WidgetV1>(");
  assertStringIncludes(operator, "kopf.on.create(");
  assertStringIncludes(operator, "kopf.on.update(widgets, greet);");
  assertStringIncludes(operator, "kopf.timer(");
  assertStringIncludes(file(files, "operator_test.ts"), "KopfRunner.start(");
  // The types are what `kopf types` makes of the CRD, byte for byte.
  assertEquals(file(files, "types.ts"), generateTypesFromYaml(file(files, "crd.yaml"), "crd.yaml"));
  const tasks = JSON.parse(file(files, "deno.json")).tasks;
  assertEquals(Object.keys(tasks).sort(), [
    "fake-cluster",
    "manifests",
    "permissions",
    "run",
    "test",
    "types",
  ]);
  assertStringIncludes(
    tasks["fake-cluster"],
    "--allow-write=.fake-cluster jsr:@kopf/kopf@^1.2.3/cli fake-cluster " +
      "--kubeconfig .fake-cluster/kubeconfig --state .fake-cluster/state.json",
  );
  assertStringIncludes(tasks.permissions, " permissions operator.ts");
  assertStringIncludes(tasks.manifests, " manifests ");
  assertStringIncludes(tasks.manifests, "--crd crd.yaml operator.ts");
  assertStringIncludes(file(files, "README.md"), "deno task test");
  assertStringIncludes(file(files, "README.md"), "deno task run --watch");
});

Deno.test("the tasks that write may write in the project; those that need not, not", () => {
  const tasks = JSON.parse(file(projectFiles(BASE), "deno.json")).tasks;
  // `--helm DIR` writes a chart: anywhere in the project, where the task runs.
  assertStringIncludes(tasks.manifests, " --allow-write=. ");
  for (const task of ["run", "permissions", "types"]) {
    assert(!tasks[task].includes("--allow-write"), `${task}: ${tasks[task]}`);
  }
  assertStringIncludes(tasks["fake-cluster"], " --allow-write=.fake-cluster ");
});

Deno.test("the project's operator is named after its directory, in its manifests and README", async () => {
  assertEquals(operatorNameOf("/tmp/x/my-op"), "my-op");
  assertEquals(operatorNameOf("../My_Operator/"), "my-operator");
  assertEquals(operatorNameOf("/tmp/2-fast"), "fast");
  assertEquals(operatorNameOf(`/tmp/${"a".repeat(80)}`), "a".repeat(53));
  assertEquals(operatorNameOf("/"), "kopf-operator");
  const files = projectFiles({ ...BASE, name: "my-op" });
  assertStringIncludes(JSON.parse(file(files, "deno.json")).tasks.manifests, " --name my-op ");
  assertStringIncludes(file(files, "README.md"), "helm install my-op chart/");
  const dir = await Deno.makeTempDir();
  try {
    const written = await initProject(`${dir}/Shop_Operator`, BASE);
    assertStringIncludes(file(written, "deno.json"), " --name shop-operator ");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the README's commands run Deno as the user's shell does: deno, or through npx", () => {
  const plain = file(projectFiles(BASE), "README.md");
  const npx = file(projectFiles({ ...BASE, deno: "npx -y deno@2.9.6" }), "README.md");
  assertStringIncludes(npx, "npx -y deno@2.9.6 task test\n");
  assertStringIncludes(npx, "`npm install -g deno@2.9.6` puts a\n`deno` on `PATH`");
  // Every `deno task` of the README is the npx one there.
  assertEquals(npx.match(/(?<!deno@2\.9\.6 |`)deno task/g), null);
  assertEquals(
    plain.match(/deno task [\w-]+/g)?.length,
    npx.match(/npx -y deno@2\.9\.6 task [\w-]+/g)?.length,
  );
});

Deno.test(".gitignore and .dockerignore keep the fake cluster's keys and build output out", () => {
  const files = projectFiles(BASE);
  const entries = (path: string) =>
    file(files, path).split("\n").filter((line) => line !== "" && !line.startsWith("#"));
  for (const path of [".gitignore", ".dockerignore"]) {
    for (const entry of [".fake-cluster/", "dist/", "node_modules/"]) {
      assert(entries(path).includes(entry), `${path} lacks ${entry}`);
    }
  }
  assert(entries(".dockerignore").includes(".git/"));
  assert(!entries(".dockerignore").some((e) => e.startsWith("vendor")), "the image needs vendor/");
});

Deno.test("by default the framework comes from JSR, at this version", () => {
  const config = JSON.parse(file(projectFiles(BASE), "deno.json"));
  assertEquals(config.imports, { "@kopf/kopf": "jsr:@kopf/kopf@^1.2.3", yaml: "npm:yaml@^2.8.1" });
  for (const task of ["run", "manifests", "types"]) {
    assertStringIncludes(config.tasks[task], " jsr:@kopf/kopf@^1.2.3/cli ");
  }
});

Deno.test("a local checkout is vendored: a workspace member the tasks run from", async () => {
  const local = await readLocalCheckout(ROOT.pathname);
  assertEquals(local.path, ROOT.pathname.replace(/\/$/, ""));
  assertEquals(local.vendored, ["deno.json", "LICENSE", "mod.ts", "src"]);
  const config = JSON.parse(file(projectFiles(BASE, local), "deno.json"));
  assertEquals(config.workspace, ["./vendor/kopf"]);
  // The member's name and exports resolve @kopf/kopf; the project maps only its own needs.
  assertEquals(config.imports, { yaml: "npm:yaml@^2.8.1" });
  for (const task of ["run", "manifests", "types"]) {
    assertStringIncludes(config.tasks[task], " ./vendor/kopf/src/cli/main.ts ");
  }
  assertEquals(
    config.tasks.vendor,
    `rm -rf vendor/kopf && mkdir -p vendor/kopf && cp -r '${local.path}/deno.json' ` +
      `'${local.path}/LICENSE' '${local.path}/mod.ts' '${local.path}/src' vendor/kopf/`,
  );
  const text = file(projectFiles(BASE, local), "deno.json");
  assert(!text.includes("jsr:") && !text.includes("file:"), "nothing from JSR or by URL");
  assertStringIncludes(file(projectFiles(BASE, local), "README.md"), "`vendor/kopf/`");
});

Deno.test("kopf init --local copies the checkout's package into vendor/kopf", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const copied: [string, string][] = [];
    const io = {
      copy: (from: string, to: string) => Promise.resolve(void copied.push([from, to])),
    };
    await initProject(`${dir}/op`, { ...BASE, local: ROOT.pathname }, io);
    const root = ROOT.pathname.replace(/\/$/, "");
    assertEquals(
      copied,
      ["deno.json", "LICENSE", "mod.ts", "src"].map((entry) => [
        `${root}/${entry}`,
        `${dir}/op/vendor/kopf/${entry}`,
      ]),
    );
    // A project inside what it copies would copy itself: refused before anything is written.
    await assertRejects(
      () => initProject(`${root}/src/op`, { ...BASE, local: ROOT.pathname }, io),
      CommandLineError,
      "is inside src/ of the checkout",
    );
    assertEquals(await pathExists(`${root}/src/op`), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("group, kind and plural name the resource; the plural follows the kind", () => {
  const files = projectFiles({ ...BASE, group: "acme.io", kind: "Policy" });
  const crd = file(files, "crd.yaml");
  assertStringIncludes(crd, "name: policies.acme.io");
  assertStringIncludes(crd, "kind: Policy");
  assertStringIncludes(file(files, "operator.ts"), 'kopf.resource<PolicyV1>(\n  "acme.io",');
  const plural = projectFiles({ ...BASE, kind: "Box", plural: "boxen" });
  assertStringIncludes(file(plural, "crd.yaml"), "plural: boxen");
  assertEquals(["Widget", "Policy", "Box", "Day", "Match"].map(pluralOf), [
    "widgets",
    "policies",
    "boxes",
    "days",
    "matches",
  ]);
});

Deno.test("bad names are usage errors naming the option", () => {
  assertThrows(() => projectFiles({ ...BASE, kind: "widget" }), CommandLineError, "--kind widget");
  assertThrows(() => projectFiles({ ...BASE, group: "example" }), CommandLineError, "--group");
  assertThrows(() => projectFiles({ ...BASE, plural: "Widgets" }), CommandLineError, "--plural");
});

Deno.test("a directory that is not empty, or a file, is never written to", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/keep.txt`, "mine");
    const written: string[] = [];
    const io = { writeFile: (path: string) => Promise.resolve(void written.push(path)) };
    await assertRejects(() => initProject(dir, BASE, io), CommandLineError, "is not empty");
    await assertRejects(
      () => initProject(`${dir}/keep.txt`, BASE, io),
      CommandLineError,
      "is a file",
    );
    assertEquals(written, []);
    assertEquals(await Deno.readTextFile(`${dir}/keep.txt`), "mine");
    // A new directory, and an empty one, are fine.
    await initProject(`${dir}/new/op`, BASE);
    assertEquals((await Deno.readTextFile(`${dir}/new/op/operator.ts`)).length > 0, true);
    await Deno.mkdir(`${dir}/empty`);
    await initProject(`${dir}/empty`, BASE, io);
    assertEquals(written.length, 8);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
