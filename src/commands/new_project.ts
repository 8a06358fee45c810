/**
 * `kopf init [dir]`: a new operator project that works from its first minute -- an
 * operator serving one custom resource with a create/update handler and a timer, the
 * resource's CRD, its TypeScript types (made by the generator of `kopf types`), a test
 * that runs the operator on a fake cluster with `KopfRunner`, a `deno.json` with the
 * tasks to run, test and deploy it -- and to serve a fake cluster to run it against, and
 * print its minimal Deno permissions --, and a README saying how.
 *
 * The framework comes from JSR (`jsr:@kopf/kopf@^VERSION`) unless a local checkout of it
 * is named -- for developing the framework and a project side by side, and for as long as
 * the package is not published. The checkout's package (its `deno.json`, its license and
 * the modules its entry points need) is then copied into the project, `vendor/kopf/`, a
 * member of the project's Deno workspace: `@kopf/kopf` and its other entry points
 * resolve there, with the framework's own imports, and the project stays one directory
 * that an image builds from (a path outside it would not be in Docker's build context).
 * The project's `vendor` task copies the checkout again after the framework changes.
 *
 * @module
 */
import { absolutePath } from "../platform/absolute_paths.ts";
import {
  copyPath,
  directoryEntries,
  makeDirectory,
  pathKind,
  writeTextFile,
} from "../platform/files.ts";
import { CommandLineError } from "./run_options.ts";
import { generateTypesFromYaml, pascal } from "./types.ts";
import {
  checkOutsideVendored,
  type LocalCheckout,
  readLocalCheckout,
  VENDOR_DIR,
} from "./local_checkouts.ts";
import {
  crdYaml,
  FAKE_CLUSTER_DIRECTORY,
  FAKE_CLUSTER_KUBECONFIG,
  ignoreFile,
  operatorTestTs,
  operatorTs,
  readme,
  type ResourceNames,
} from "./project_templates.ts";

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
  /** The V8 flags argument of the tasks that run the operator (`--v8-flags=...`). */
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

/** The defaults of {@link InitOptions}: the resource every new project starts with. */
export const INIT_DEFAULTS = { group: "example.com", kind: "Widget", version: "v1" } as const;

/** `Widget` -> `widgets`, `Policy` -> `policies`, `Box` -> `boxes`: English plurals, roughly. */
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
 * short enough for a Helm release (53 characters), e.g. `My_Operator` -> `my-operator`.
 */
export function operatorNameOf(dir: string): string {
  const base = absolutePath(dir).replace(/[\\/]+$/, "").split(/[\\/]/).at(-1) ?? "";
  const name = base.toLowerCase().replace(/[^a-z0-9-]+/g, "-").slice(0, 53)
    .replace(/^[^a-z]+/, "").replace(/-+$/, "");
  return name === "" ? DEFAULT_OPERATOR_NAME : name;
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
