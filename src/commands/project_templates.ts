/**
 * The texts of a new project's files, filled with its resource's names: the CRD, the
 * operator, its test, the README, and the files that keep the fake cluster's keys and
 * the build output out of git and the image.
 *
 * @module
 */
import type { LocalCheckout } from "./local_checkouts.ts";

/** The resource of a project, its names checked. */
export interface ResourceNames {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  /** The name of the resource type that `kopf types` makes, e.g. `WidgetV1`. */
  readonly type: string;
}

/**
 * Where `deno task fake-cluster` keeps its fake cluster: the kubeconfig it writes, and the
 * state it saves on exit and loads at start (objects, credentials, port), so that the
 * kubeconfig stays the same from run to run.
 */
export const FAKE_CLUSTER_DIRECTORY = ".fake-cluster";
/** The kubeconfig that `deno task fake-cluster` writes. */
export const FAKE_CLUSTER_KUBECONFIG = `${FAKE_CLUSTER_DIRECTORY}/kubeconfig`;

/** The CRD of the project's resource: a spec to act on, a status to report in. */
export function crdYaml(r: ResourceNames, deno: string): string {
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

export function operatorTs(r: ResourceNames, deno: string): string {
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

/**
 * The handlers' progress and the last handled spec are kept in the status, with their
 * results: one write per handling instead of two (the status subresource is written apart
 * from the annotations, where Kopf keeps them by default). Remove this to keep Kopf's
 * storages, e.g. to take over objects that Python Kopf has handled.
 */
kopf.on.startup(function storages({ settings }) {
  settings.persistence.progressStorage = new kopf.StatusProgressStorage();
  settings.persistence.diffbaseStorage = new kopf.StatusDiffBaseStorage();
});

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

export function operatorTestTs(r: ResourceNames, deno: string): string {
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
  // The operator's own records are in the status (see operator.ts), not in annotations.
  const [greeted] = cluster.list(resource);
  const records =
    (greeted.status as { kopf?: Record<string, unknown> } | undefined)?.kopf;
  const annotations = Object.keys(greeted.metadata?.annotations ?? {});
  if (
    !records?.["last-handled-configuration"] ||
    annotations.some((k) => k.startsWith("kopf."))
  ) {
    throw new Error(
      \`The records are not in the status: \${JSON.stringify(greeted)}\`,
    );
  }

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
    "`deno` on `PATH`; then `deno task \u2026` does the same as they do.";
}

export function readme(
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
export function ignoreFile(tool: "git" | "docker"): string {
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
