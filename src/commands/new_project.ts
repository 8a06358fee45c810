/**
 * `kopf init [dir]`: a new operator project that works from its first minute — an
 * operator serving one custom resource with a create/update handler and a timer, the
 * resource's CRD, its TypeScript types (made by the generator of `kopf types`), a test
 * that runs the operator on a fake cluster with `KopfRunner`, a `deno.json` with the
 * tasks to run, test and deploy it — and to serve a fake cluster to run it against, and
 * print its minimal Deno permissions —, and a README saying how.
 *
 * The framework comes from JSR (`jsr:@kopf/kopf@^VERSION`) unless a local checkout of it
 * is named — for developing the framework and a project side by side, and for as long as
 * the package is not published. The checkout's package (its `deno.json`, its license and
 * the modules its entry points need) is then copied into the project, `vendor/kopf/`, a
 * member of the project's Deno workspace: `@kopf/kopf` and its other entry points
 * resolve there, with the framework's own imports, and the project stays one directory
 * that an image builds from (a path outside it would not be in Docker's build context).
 * The project's `vendor` task copies the checkout again after the framework changes.
 *
 * @module
 */
import {
  absolutePath,
  copyPath,
  directoryEntries,
  FileNotFoundError,
  makeDirectory,
  pathExists,
  pathKind,
  readTextFile,
  writeTextFile,
} from "../platform/files.ts";
import { CommandLineError } from "./run_options.ts";
import { generateTypesFromYaml, pascal } from "./types.ts";

/** What the new project serves and where it takes the framework from. */
export interface InitOptions {
  /** The API group of the custom resource, e.g. `example.com`. */
  readonly group?: string;
  /** The kind of the custom resource, e.g. `Widget`. */
  readonly kind?: string;
  /** The plural of the custom resource, e.g. `widgets`; made from the kind by default. */
  readonly plural?: string;
  /** The framework's version: the JSR specifier is `jsr:@kopf/kopf@^VERSION`. */
  readonly kopfVersion: string;
  /** The specifier of the `yaml` package, which the project's test reads the CRD with. */
  readonly yamlSpecifier: string;
  /** The V8 flags argument of the tasks that run the operator (`--v8-flags=…`). */
  readonly v8Flags?: string;
  /** A checkout of the framework to use instead of JSR: its directory. */
  readonly local?: string;
  /**
   * The operator's name in its manifests and chart (`kopf manifests --name`); by default
   * {@link initProject} makes it from the project's directory.
   */
  readonly name?: string;
  /**
   * How the user's shell runs Deno, for the commands the README prints: `deno` (the
   * default), or `npx -y deno@VERSION` where no `deno` is on `PATH`.
   */
  readonly deno?: string;
}

/** One file of the new project: its path relative to the project's directory, and text. */
export interface ProjectFile {
  /** The path relative to the project's directory, with `/` separators. */
  readonly path: string;
  /** The file's content. */
  readonly text: string;
}

/** A local checkout of the framework, and what of it a project vendors. */
export interface LocalCheckout {
  /** The checkout's directory, absolute, without a trailing separator. */
  readonly path: string;
  /** The checkout's `deno.json` `exports`: entry point (`.`, `./testing`, …) → path. */
  readonly exports: Readonly<Record<string, string>>;
  /**
   * What the project copies into `vendor/kopf/`, relative to the checkout: `deno.json`,
   * the license, and the top-level files and directories that the entry points are in.
   */
  readonly vendored: readonly string[];
}

/** Where a project of a local checkout keeps its copy of the framework. */
export const VENDOR_DIR = "vendor/kopf";

/** The defaults of {@link InitOptions}: the resource every new project starts with. */
export const INIT_DEFAULTS = { group: "example.com", kind: "Widget", version: "v1" } as const;

/** `Widget` → `widgets`, `Policy` → `policies`, `Box` → `boxes`: English plurals, roughly. */
export function pluralOf(kind: string): string {
  const lower = kind.toLowerCase();
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  return `${lower}s`;
}

/** The name of the operators that no directory names: `kopf manifests`' default. */
const DEFAULT_OPERATOR_NAME = "kopf-operator";

/**
 * A project's directory as the name of its operator's objects: a lowercase DNS label
 * short enough for a Helm release (53 characters), e.g. `My_Operator` → `my-operator`.
 */
export function operatorNameOf(dir: string): string {
  const base = absolutePath(dir).replace(/[\\/]+$/, "").split(/[\\/]/).at(-1) ?? "";
  const name = base.toLowerCase().replace(/[^a-z0-9-]+/g, "-").slice(0, 53)
    .replace(/^[^a-z]+/, "").replace(/-+$/, "");
  return name === "" ? DEFAULT_OPERATOR_NAME : name;
}

/** The resource of a project, its names checked. */
interface ResourceNames {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  /** The name of the resource type that `kopf types` makes, e.g. `WidgetV1`. */
  readonly type: string;
}

function resourceNames(options: InitOptions): ResourceNames {
  const group = options.group ?? INIT_DEFAULTS.group;
  const kind = options.kind ?? INIT_DEFAULTS.kind;
  const version = INIT_DEFAULTS.version;
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(group)) {
    throw new CommandLineError(
      `--group ${group} is not an API group; give a lowercase DNS name with a dot, e.g. example.com.`,
    );
  }
  if (!/^[A-Z][A-Za-z0-9]*$/.test(kind)) {
    throw new CommandLineError(
      `--kind ${kind} is not a kind; give a capitalised word of letters and digits, e.g. Widget.`,
    );
  }
  const plural = options.plural ?? pluralOf(kind);
  if (!/^[a-z][a-z0-9]*$/.test(plural) || plural === kind.toLowerCase()) {
    throw new CommandLineError(
      `--plural ${plural} is not a plural; give lowercase letters and digits other than the ` +
        `singular, e.g. widgets.`,
    );
  }
  return {
    group,
    version,
    kind,
    plural,
    singular: kind.toLowerCase(),
    type: `${pascal(kind)}${pascal(version)}`,
  };
}

/** The CRD of the project's resource: a spec to act on, a status to report in. */
function crdYaml(r: ResourceNames, deno: string): string {
  return `# The custom resource that the operator serves. Apply it once per cluster:
#   kubectl apply -f crd.yaml
# After changing the schema, run \`${deno} task types\` to update types.ts.
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${r.plural}.${r.group}
spec:
  group: ${r.group}
  scope: Namespaced
  names:
    kind: ${r.kind}
    plural: ${r.plural}
    singular: ${r.singular}
  versions:
    - name: ${r.version}
      served: true
      storage: true
      subresources:
        status: {}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              required: [name]
              properties:
                name:
                  type: string
                  description: Whom the operator greets.
            status:
              type: object
              # The operator also keeps its own records here.
              x-kubernetes-preserve-unknown-fields: true
              properties:
                greeting:
                  type: string
                  description: The greeting, written by the operator.
                checkedAt:
                  type: string
                  format: date-time
                  description: When the operator's timer last looked at the object.
                observedGeneration:
                  type: integer
                  format: int64
                  description: The generation of the object that the conditions speak of.
                conditions:
                  type: array
                  description: Ready, Reconciling and Stalled, kept by the framework.
                  # Keyed by type, as Kubernetes keeps its own: other controllers' conditions
                  # stay theirs under server-side apply.
                  x-kubernetes-list-type: map
                  x-kubernetes-list-map-keys: [type]
                  items:
                    type: object
                    required: [type, status]
                    properties:
                      type:
                        type: string
                      status:
                        type: string
                        enum: ["True", "False", "Unknown"]
                      observedGeneration:
                        type: integer
                        format: int64
                      lastTransitionTime:
                        type: string
                        format: date-time
                      reason:
                        type: string
                      message:
                        type: string
      additionalPrinterColumns:
        - name: Greeting
          type: string
          jsonPath: .status.greeting
        - name: Ready
          type: string
          jsonPath: .status.conditions[?(@.type=="Ready")].status
`;
}

/**
 * A module specifier in double quotes. The templates' import lines quote their bare
 * specifiers through this, so that the text of this module holds no import statement of
 * a package: the npm build reads the bundle's imports from its text, and would take the
 * templates' `@kopf/kopf` and `yaml` for dependencies of the bundle itself.
 */
const quoted = (specifier: string): string => JSON.stringify(specifier);

function operatorTs(r: ResourceNames, deno: string): string {
  return `/**
 * The operator: it serves the ${r.kind} resources of crd.yaml, typed by types.ts.
 *
 *     ${deno} task run    # against the cluster of KUBECONFIG or ~/.kube/config
 *     ${deno} task test   # on a fake cluster: no real one needed
 *     ${deno} task fake-cluster   # a fake cluster to run it against, by hand
 *
 * @module
 */
import { kopf } from ${quoted("@kopf/kopf")};
import type { ${r.type} } from "./types.ts";

/** The resource, typed: a misspelt field of its spec or status does not compile. */
const ${r.plural} = kopf.resource<${r.type}>(
  "${r.group}",
  "${r.version}",
  "${r.plural}",
);

/** Greet an object when it is created, and again whenever its spec changes. */
const greet = kopf.on.create(
  ${r.plural},
  function greet({ spec, patch, logger }) {
    const greeting = \`Hello, \${spec.name}!\`;
    patch.status.greeting = greeting;
    logger.info(greeting);
  },
);
kopf.on.update(${r.plural}, greet);

/** Look at every object once a minute, whether it changes or not. */
kopf.timer(
  ${r.plural},
  { interval: 60 },
  function check({ patch }) {
    patch.status.checkedAt = new Date().toISOString();
  },
);
`;
}

function operatorTestTs(r: ResourceNames, deno: string): string {
  return `/**
 * The operator's test: a fake cluster (an in-memory API server) and the operator
 * running in the background of the test, as \`kopf run\` runs it. No sleeps: the
 * cluster says when an object has changed.
 *
 *     ${deno} task test
 */
import { parse } from ${quoted("yaml")};
import { FakeCluster, KopfRunner } from ${quoted("@kopf/kopf/testing")};
import type { RawBody } from ${quoted("@kopf/kopf")};
import type { ${r.type} } from "./types.ts";

const here = (path: string) => new URL(path, import.meta.url);
const crd = parse(await Deno.readTextFile(here("crd.yaml"))) as RawBody;
const resource = "${r.plural}.${r.group}";

function status(object: RawBody | undefined) {
  return (object as ${r.type} | undefined)?.status;
}

Deno.test("the operator greets, greets again after a change, and checks", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(crd);
  await using runner = await KopfRunner.start(
    ["run", "--all-namespaces", "--standalone", here("operator.ts").pathname],
    { cluster },
  );

  cluster.create({
    apiVersion: "${r.group}/${r.version}",
    kind: "${r.kind}",
    metadata: { name: "example", namespace: "default" },
    spec: { name: "world" },
  });
  await cluster.waitFor(resource, "example", (o) => {
    return status(o)?.greeting === "Hello, world!" && !!status(o)?.checkedAt;
  });

  cluster.patch(resource, "example", { spec: { name: "tests" } });
  await cluster.waitFor(
    resource,
    "example",
    (o) => status(o)?.greeting === "Hello, tests!",
  );
  await runner.waitForOutput("[default/example] Hello, tests!");

  await runner.stop();
  if (runner.exitCode !== 0) {
    throw new Error(\`The operator failed: \${runner.error}\\n\${runner.output}\`);
  }
});
`;
}

/** The specifier of the `kopf` command line that the tasks run. */
function cliSpecifier(options: InitOptions, local: LocalCheckout | undefined): string {
  if (local === undefined) return `jsr:@kopf/kopf@^${options.kopfVersion}/cli`;
  const path = local.exports["./cli"];
  if (path === undefined) {
    throw new CommandLineError(`--local: the checkout's deno.json exports no ./cli.`);
  }
  return `./${VENDOR_DIR}/${path.replace(/^\.\//, "")}`;
}

/**
 * The project's import map: the framework from JSR, and `yaml`. With a checkout, the
 * framework is the workspace member in `vendor/kopf/` instead, found by its name.
 */
function importMap(
  options: InitOptions,
  local: LocalCheckout | undefined,
): Record<string, string> {
  if (local !== undefined) return { yaml: options.yamlSpecifier };
  return { "@kopf/kopf": `jsr:@kopf/kopf@^${options.kopfVersion}`, yaml: options.yamlSpecifier };
}

/** A path for `deno task`'s shell, in single quotes. */
function shellWord(path: string): string {
  return `'${path.replaceAll("'", `'"'"'`)}'`;
}

/** The `vendor` task: copy the checkout into `vendor/kopf/` again, afresh. */
function vendorTask(local: LocalCheckout): string {
  const sources = local.vendored.map((entry) => shellWord(`${local.path}/${entry}`)).join(" ");
  return `rm -rf ${VENDOR_DIR} && mkdir -p ${VENDOR_DIR} && cp -r ${sources} ${VENDOR_DIR}/`;
}

/**
 * Where `deno task fake-cluster` keeps its fake cluster: the kubeconfig it writes, and the
 * state it saves on exit and loads at start (objects, credentials, port), so that the
 * kubeconfig stays the same from run to run.
 */
export const FAKE_CLUSTER_DIRECTORY = ".fake-cluster";
const FAKE_CLUSTER_KUBECONFIG = `${FAKE_CLUSTER_DIRECTORY}/kubeconfig`;

function denoJson(options: InitOptions, local: LocalCheckout | undefined): string {
  const cli = cliSpecifier(options, local);
  const v8 = options.v8Flags === undefined ? "" : ` ${options.v8Flags}`;
  const kopf = `deno run${v8} --allow-net --allow-env --allow-read --allow-run ` +
    `--allow-sys=hostname ${cli}`;
  // `--helm DIR` writes the chart: anywhere in the project (the task runs in its root).
  const kopfWriting = kopf.replace(" --allow-run ", " --allow-write=. --allow-run ");
  const name = options.name ?? DEFAULT_OPERATOR_NAME;
  // Only what a fake cluster needs: its port on the loopback, and its directory.
  const fake = `deno run --allow-net=127.0.0.1 --allow-env --allow-read ` +
    `--allow-write=${FAKE_CLUSTER_DIRECTORY} ${cli}`;
  const config = {
    tasks: {
      run: `${kopf} run --all-namespaces --verbose operator.ts`,
      test: "deno check operator.ts && deno test --allow-all",
      "fake-cluster": `${fake} fake-cluster --kubeconfig ${FAKE_CLUSTER_KUBECONFIG} ` +
        `--state ${FAKE_CLUSTER_DIRECTORY}/state.json`,
      permissions: `${kopf} permissions operator.ts`,
      manifests: `${kopfWriting} manifests --all-namespaces --name ${name} --crd crd.yaml ` +
        "operator.ts",
      types: `${kopf} types crd.yaml > types.ts`,
      ...(local !== undefined ? { vendor: vendorTask(local) } : {}),
    },
    imports: importMap(options, local),
    ...(local !== undefined ? { workspace: [`./${VENDOR_DIR}`] } : {}),
    // The README's lines stay as they are written, whatever the names in them.
    fmt: { proseWrap: "preserve" },
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** A markdown table as \`deno fmt\` lays it out: the first row is the header. */
function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(" | ")} |\n`;
  return line(rows[0]) + line(widths.map((w) => "-".repeat(w))) +
    rows.slice(1).map(line).join("");
}

/** How the README says to get Deno, and what its commands run it with. */
function denoNote(deno: string): string {
  if (deno === "deno") {
    return "The commands below run Deno as `deno`; where only Node and npm are installed,\n" +
      "`npm install -g deno` puts one on `PATH` (or write `npx -y deno` for `deno`).";
  }
  return `No \`deno\` was on \`PATH\` when this project was made: the commands below run\n` +
    `Deno through npx, \`${deno}\`. \`npm install -g ${deno.replace(/^npx -y /, "")}\` puts a\n` +
    "`deno` on `PATH`; then `deno task …` does the same as they do.";
}

function readme(
  r: ResourceNames,
  local: LocalCheckout | undefined,
  name: string,
  deno: string,
): string {
  const task = `${deno} task`;
  const source = local === undefined
    ? "The framework, `@kopf/kopf`, comes from JSR (see `imports` in `deno.json`)."
    : "The framework, `@kopf/kopf`, is a copy of a local checkout in `vendor/kopf/`, a\n" +
      "member of the workspace of `deno.json`. After changing the checkout, copy it again:\n" +
      `\`${task} vendor\`.`;
  const vendored = local === undefined
    ? []
    : [["`vendor/kopf/`", `the framework, copied from the checkout: \`${task} vendor\``]];
  return `# An operator for ${r.kind} resources

A Kubernetes operator made with \`kopf init\`. It serves the \`${r.kind}\` resources
(\`${r.plural}.${r.group}\`) of \`crd.yaml\`: when one is created, or its spec changes,
it writes a greeting into its status, and once a minute its timer notes the time.
${source}

${
    table([
      ["file", "what it is"],
      ["`operator.ts`", "the handlers"],
      ["`operator_test.ts`", "the operator on a fake cluster, with `KopfRunner`"],
      ["`crd.yaml`", "the CustomResourceDefinition"],
      ["`types.ts`", `the resource's types, made from the CRD: \`${task} types\``],
      ...vendored,
    ])
  }
${denoNote(deno)}

## Test

\`\`\`sh
${task} test
\`\`\`

## Try it on a fake cluster

\`${task} fake-cluster\` serves an in-memory Kubernetes API server (no real cluster,
no Docker) until Ctrl+C, and writes its kubeconfig to \`${FAKE_CLUSTER_KUBECONFIG}\`;
what it holds is kept in \`${FAKE_CLUSTER_DIRECTORY}/\` for its next start (with the
cluster's keys and tokens: \`.gitignore\` and \`.dockerignore\` leave it out). In
another terminal:

\`\`\`sh
export KUBECONFIG=${FAKE_CLUSTER_KUBECONFIG}
kubectl apply -f crd.yaml
${task} run
\`\`\`

Then, in a third terminal with the same \`KUBECONFIG\`, create an object as shown
under Run below, and watch the operator greet it.

${readmeRunAndDeploy(r, local, name, task)}`;
}

/** The README's sections Run and Deploy; `task` runs a task (`deno task`). */
function readmeRunAndDeploy(
  r: ResourceNames,
  local: LocalCheckout | undefined,
  name: string,
  task: string,
): string {
  const context = local === undefined
    ? ""
    : "\nThe image is built from this directory alone, `vendor/kopf/` included.\n";
  return `## Run

Against the cluster that \`KUBECONFIG\` (or \`~/.kube/config\`) points to:

\`\`\`sh
kubectl apply -f crd.yaml
${task} run
\`\`\`

While developing, \`${task} run --watch\` restarts the operator whenever its files
change: gracefully, and against the same cluster and objects.

Then, in another terminal:

\`\`\`sh
kubectl apply -f - <<EOF
apiVersion: ${r.group}/${r.version}
kind: ${r.kind}
metadata:
  name: example
spec:
  name: world
EOF
kubectl get ${r.plural}
\`\`\`

\`${task} permissions\` prints the minimal Deno permissions for that cluster's
kubeconfig (\`--explain\` says why each is needed), to run the operator with them
instead of those of \`${task} run\`.

## Deploy

\`${task} manifests\` prints a ServiceAccount, the RBAC that the handlers need and
a Deployment, named \`${name}\`; with \`--dockerfile\`, the recipe of the operator's
image; with \`--helm DIR\`, a Helm chart of them, in a directory of the project.
${context}
\`\`\`sh
${task} manifests --dockerfile > Dockerfile
docker build -t ${name}:1 .
${task} manifests --image ${name}:1 > deploy.yaml
kubectl apply -f crd.yaml -f deploy.yaml
\`\`\`

Or as a Helm chart, whose objects are named after each release:

\`\`\`sh
${task} manifests --image ${name}:1 --helm chart/
helm install ${name} chart/
\`\`\`
`;
}

/**
 * `.gitignore` or `.dockerignore`: the fake cluster's directory (its state and kubeconfig
 * hold private keys and tokens) and build output stay out of git and out of the image's
 * build context, which the Dockerfile copies whole (`COPY . .`); the image needs nothing
 * of git, the chart or the manifests either.
 */
function ignoreFile(tool: "git" | "docker"): string {
  const lines = [
    "# The fake cluster of the fake-cluster task: its state and kubeconfig hold keys and tokens.",
    `${FAKE_CLUSTER_DIRECTORY}/`,
    "# Build output.",
    "dist/",
    "node_modules/",
    ...(tool === "docker" ? ["# Not part of the image.", ".git/", "chart/", "deploy.yaml"] : []),
  ];
  return `${lines.join("\n")}\n`;
}

/**
 * The files of a new project, in the order they are written. `local` is the checkout to
 * use instead of JSR, already read (see {@link readLocalCheckout}).
 */
export function projectFiles(options: InitOptions, local?: LocalCheckout): ProjectFile[] {
  const names = resourceNames(options);
  const name = options.name ?? DEFAULT_OPERATOR_NAME;
  const deno = options.deno ?? "deno";
  const crd = crdYaml(names, deno);
  return [
    { path: "deno.json", text: denoJson(options, local) },
    { path: "crd.yaml", text: crd },
    { path: "types.ts", text: generateTypesFromYaml(crd, "crd.yaml") },
    { path: "operator.ts", text: operatorTs(names, deno) },
    { path: "operator_test.ts", text: operatorTestTs(names, deno) },
    { path: "README.md", text: readme(names, local, name, deno) },
    { path: ".gitignore", text: ignoreFile("git") },
    { path: ".dockerignore", text: ignoreFile("docker") },
  ];
}

/** Read a checkout of the framework: its `deno.json` must be `@kopf/kopf`'s. */
export async function readLocalCheckout(path: string): Promise<LocalCheckout> {
  const absolute = absolutePath(path);
  let config: { name?: unknown; exports?: unknown };
  try {
    config = JSON.parse(await readTextFile(`${absolute}/deno.json`));
  } catch (error) {
    const why = error instanceof FileNotFoundError ? "has no deno.json" : "has a broken deno.json";
    throw new CommandLineError(
      `--local ${path} ${why}; give the directory of a checkout of @kopf/kopf.`,
    );
  }
  // `"exports": "./mod.ts"` is the short form of `{ ".": "./mod.ts" }`.
  const exports = typeof config.exports === "string" ? { ".": config.exports } : config.exports;
  if (config.name !== "@kopf/kopf" || typeof exports !== "object" || exports === null) {
    throw new CommandLineError(
      `--local ${path} is not a checkout of @kopf/kopf (its deno.json names another ` +
        `package or exports nothing); give the directory of one.`,
    );
  }
  const entries = Object.values(exports as Record<string, string>)
    .map((file) => file.replace(/^\.\//, "").split("/")[0]);
  const license = (await pathExists(`${absolute}/LICENSE`)) ? ["LICENSE"] : [];
  const vendored = [...new Set(["deno.json", ...license, ...entries])];
  for (const entry of vendored) {
    if (entry === "" || entry === ".." || !(await pathExists(`${absolute}/${entry}`))) {
      throw new CommandLineError(
        `--local ${path}: its deno.json exports ${entry || "."}, which is not in the checkout; ` +
          `give the directory of a complete checkout of @kopf/kopf.`,
      );
    }
  }
  return { path: absolute, exports: exports as Record<string, string>, vendored };
}

/** A project inside what it copies of the checkout would copy itself, endlessly. */
function checkOutsideVendored(dir: string, local: LocalCheckout): void {
  const project = `${absolutePath(dir)}/`;
  for (const entry of local.vendored) {
    if (project.startsWith(`${local.path}/${entry}/`)) {
      throw new CommandLineError(
        `${dir} is inside ${entry}/ of the checkout, which the project copies; give a ` +
          `directory outside it.`,
      );
    }
  }
}

/** Where {@link initProject} writes (the file system by default; tests may record). */
export interface InitIo {
  /** Write a file, its directory existing. */
  readonly writeFile?: (path: string, text: string) => Promise<void>;
  /** Copy a file or a directory of the checkout into `vendor/kopf/`. */
  readonly copy?: (from: string, to: string) => Promise<void>;
}

/**
 * Write a new project into `dir`, which must not exist or be empty, and with a checkout
 * (`options.local`) copy its package into `vendor/kopf/`. Returns the files written,
 * relative to `dir` (the copied ones aside). Usage errors (a non-empty directory, bad
 * names, a local path that is no checkout) are a `CommandLineError`.
 */
export async function initProject(
  dir: string,
  options: InitOptions,
  io: InitIo = {},
): Promise<ProjectFile[]> {
  const kind = await pathKind(dir);
  if (kind === "file") {
    throw new CommandLineError(`${dir} is a file; give a new or empty directory.`);
  }
  if (kind === "directory" && (await directoryEntries(dir)).length > 0) {
    throw new CommandLineError(
      `${dir} is not empty; give a new or empty directory, so that nothing is overwritten.`,
    );
  }
  const local = options.local === undefined ? undefined : await readLocalCheckout(options.local);
  if (local !== undefined) checkOutsideVendored(dir, local);
  const files = projectFiles({ ...options, name: options.name ?? operatorNameOf(dir) }, local);
  await makeDirectory(dir);
  const base = dir.replace(/[\\/]+$/, "") || "/";
  const write = io.writeFile ?? writeTextFile;
  for (const file of files) await write(`${base}/${file.path}`, file.text);
  if (local !== undefined) {
    // The checkout's package, as JSR would publish its code: the project's copy.
    await makeDirectory(`${base}/${VENDOR_DIR}`);
    const copy = io.copy ?? copyPath;
    for (const entry of local.vendored) {
      await copy(`${local.path}/${entry}`, `${base}/${VENDOR_DIR}/${entry}`);
    }
  }
  return files;
}
