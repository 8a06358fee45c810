/**
 * `kopf manifests [files...]`: what it takes to run the operator in a cluster, printed as
 * one YAML stream to apply (a ServiceAccount, the RBAC its handlers need, a Deployment,
 * and the peering objects when a peering is named), or with `--dockerfile` the recipe of
 * the image the Deployment runs, or with `--helm DIR` written as a Helm chart.
 *
 * The operator's files are imported (as `kopf run` does) to see what their handlers
 * serve; the selectors are resolved against the built-in resources of Kubernetes and the
 * CRDs given with `--crd`. The handlers' own API calls (children they create, objects
 * they read) are invisible from here: `--rule` declares what they need. Settings are the
 * defaults (startup handlers do not run here), but for `--grace-period`.
 *
 * @module
 */
import { Command, InvalidArgumentError } from "@commander-js/extra-typings";
import type { JsonObject } from "../structs/bodies.ts";
import type { Resource } from "../structs/resources.ts";
import {
  FileNotFoundError,
  makeDirectory,
  readTextFile,
  removeFileIfExists,
  writeTextFile,
} from "../platform/files.ts";
import { writeStandardOutput } from "../platform/standard_streams.ts";
import { denoVersion } from "../platform/process.ts";
import { matcherOf, OperatorRegistry } from "../intents/registry.ts";
import { OperatorSettings } from "../settings/operator_settings.ts";
import { exitCodeFor, failureText } from "../commands/usage.ts";
import {
  buildManifests,
  manifestNotes,
  manifestsYaml,
  PROBES_PORT,
} from "../commands/deployment_manifests.ts";
import type { ManifestInput, ScopedRule } from "../commands/manifest_inputs.ts";
import { dockerfile } from "../commands/dockerfile_recipe.ts";
import { CHART_FILES, type ChartFile, helmChart } from "../commands/helm_chart.ts";
import {
  collect,
  CommandLineError,
  loadSources,
  parseSeconds,
  parseShards,
  planRun,
} from "../commands/run_options.ts";
import { parseDocuments } from "../commands/types.ts";
import { checkBuildContext } from "../commands/build_context.ts";
import { TESTED_DENO_VERSION } from "../commands/project_context.ts";
import { VERSION } from "./version.ts";
import { parseDeclaredRule, RULE_EXAMPLE } from "../structs/rbac_rules.ts";
import { v8FlagsArgument } from "./runtime_flags.ts";
import { planPermissions } from "./permissions.ts";
import { builtinTypes } from "../catalog/builtin_types.ts";
import { compareVersions, resourcesOf, type ResourceType } from "../catalog/resource_types.ts";
import { suggestResources } from "../structs/resource_suggestions.ts";
import { checkCrd, crdToType } from "../catalog/custom_resource_definitions.ts";

/** The flags of `kopf manifests`. */
export interface ManifestsFlags {
  /** `-m/--module`: import specifiers (repeatable). */
  readonly module?: readonly string[];
  /** `-n/--namespace`: namespace names or patterns (repeatable). */
  readonly namespace?: readonly string[];
  /** `-A/--all-namespaces`. */
  readonly allNamespaces?: boolean;
  /** `--peering`: the peering object's name; standalone otherwise. */
  readonly peering?: string;
  /** `--leader-election`: replicas of which one leads. */
  readonly leaderElection?: boolean;
  /** `--shards`: replicas sharing the objects in this many shards. */
  readonly shards?: number;
  /** `--replicas`: the Deployment's replicas. */
  readonly replicas?: number;
  /** `--crd`: files with the CRDs of the resources served (repeatable). */
  readonly crd?: readonly string[];
  /** `--rule`: `RESOURCE:VERBS` for the handlers' own API calls (repeatable). */
  readonly rule?: readonly string[];
  /** `--name`: of the ServiceAccount, the roles, their bindings and the Deployment. */
  readonly name?: string;
  /** `--deploy-namespace`: where the ServiceAccount and the Deployment go. */
  readonly deployNamespace?: string;
  /** `--image`: the operator's image. */
  readonly image?: string;
  /** `--metrics`: the port to serve metrics at. */
  readonly metrics?: number;
  /** `--grace-period`: seconds for running handlers to finish after SIGTERM. */
  readonly gracePeriod?: number;
  /** `--webhook-config`: the webhook configurations the operator manages. */
  readonly webhookConfig?: string;
  /** `--webhook-port`: where the webhook server listens in the pod. */
  readonly webhookPort?: number;
  /** `--dockerfile`: print the image's recipe instead of the manifests. */
  readonly dockerfile?: boolean;
  /** `--deno-version`: the Deno image of the recipe's build stage. */
  readonly denoVersion?: string;
  /** `--cli`: the `kopf` command line module the recipe compiles in. */
  readonly cli?: string;
  /** `--helm`: write the manifests as a Helm chart into this directory instead. */
  readonly helm?: string;
  /** `--public-roots`: keep the runtime's public root CAs in the pods. */
  readonly publicRoots?: boolean;
}

/**
 * The Deno version of the recipe's build image unless `--deno-version` says otherwise:
 * the one running this command (what the operator was tried with), else the one the
 * project is tested with.
 */
export const DEFAULT_DENO_VERSION: string = denoVersion() ?? TESTED_DENO_VERSION;

/**
 * The module of the `kopf` command line that the recipe compiles in, by default: the one
 * of the framework the operator imports, through the project's import map (JSR's, or the
 * copy in `vendor/kopf/` of a project made by `kopf init --local`), so that the image
 * holds one framework, whose registry the operator's handlers are on.
 */
export const DEFAULT_CLI_MODULE = "@kopf/kopf/cli";

/** Where the probes listen in the pod. */
const LIVENESS_URL = `http://0.0.0.0:${PROBES_PORT}/healthz`;

/** The resource types of the CRDs in the files; one line naming the file if one is wrong. */
async function crdTypes(files: readonly string[]): Promise<ResourceType[]> {
  const types: ResourceType[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readTextFile(file);
    } catch (error) {
      if (error instanceof FileNotFoundError) {
        throw new CommandLineError(`--crd ${file}: no such file.`);
      }
      throw error;
    }
    const crds = parseDocuments(text, file).filter((d) =>
      (d.content as JsonObject | null)?.kind === "CustomResourceDefinition"
    );
    if (crds.length === 0) {
      throw new CommandLineError(
        `--crd ${file} holds no CustomResourceDefinition; give the CRDs of the resources served.`,
      );
    }
    for (const { content, where } of crds) {
      const problems = checkCrd(content as JsonObject);
      if (problems.length > 0) {
        const { field, message } = problems[0];
        throw new CommandLineError(`${where}: ${field}: ${message}; fix the CRD.`);
      }
      types.push(crdToType(content as JsonObject, compareVersions));
    }
  }
  return types;
}

/**
 * A declared rule (`RESOURCE:VERB[,VERB...]`, the resource as kubectl names it: `pods`,
 * `deployments.apps`, `pods/log`) with the scope of its resource, which must be known;
 * `where` names the declaration in messages (`--rule ...`, or the handler's option).
 */
export function parseRule(text: string, resources: readonly Resource[], where: string): ScopedRule {
  const rule = parseDeclaredRule(text);
  if (rule === undefined) {
    throw new CommandLineError(
      `${where} ${JSON.stringify(text)} is not RESOURCE:VERBS; use e.g. ${RULE_EXAMPLE}.`,
    );
  }
  const { group, plural, subresource, verbs } = rule;
  const resource = resources.find((r) => r.plural === plural && r.group === group);
  if (resource === undefined) {
    const name = group ? `${plural}.${group}` : plural;
    throw new CommandLineError(
      `${where} ${text}: ${name} is neither a built-in resource nor in a --crd file; ` +
        `name it as kubectl does (e.g. deployments.apps), or give its CRD with --crd.`,
    );
  }
  return {
    apiGroups: [group],
    resources: [subresource ? `${plural}/${subresource}` : plural],
    verbs,
    namespaced: resource.namespaced,
  };
}

/** The rules the handlers declare (their `rbac` option) and those of `--rule`. */
function declaredRules(
  registry: OperatorRegistry,
  flags: readonly string[],
  resources: readonly Resource[],
): ScopedRule[] {
  const rules: ScopedRule[] = [];
  for (const handler of matcherOf(registry).handlers) {
    const where = `The option "rbac" of ${handler.registrar} '${handler.id}':`;
    for (const text of handler.rbac ?? []) rules.push(parseRule(text, resources, where));
  }
  for (const text of flags) rules.push(parseRule(text, resources, "--rule"));
  return rules;
}

/**
 * The operator's handlers and what they serve, loaded and checked: one line naming the
 * problem if the flags, the files or the CRDs do not fit.
 */
async function loadOperator(files: readonly string[], flags: ManifestsFlags) {
  if (flags.allNamespaces && (flags.namespace ?? []).length > 0) {
    throw new CommandLineError("Use either -n/--namespace or -A/--all-namespaces, not both.");
  }
  if (!flags.allNamespaces && (flags.namespace ?? []).length === 0) {
    throw new CommandLineError(
      "Say what the operator serves: -n/--namespace NAME (repeatable) or -A/--all-namespaces.",
    );
  }
  if (flags.dockerfile && flags.helm !== undefined) {
    throw new CommandLineError("Use either --dockerfile or --helm DIR, not both.");
  }
  const plan = planRun(files, {
    module: flags.module,
    namespace: flags.namespace,
    allNamespaces: flags.allNamespaces,
    peering: flags.peering,
    leaderElection: flags.leaderElection,
    shards: flags.shards,
  });
  const registry = new OperatorRegistry();
  await loadSources(plan.sources, { registry, fresh: true });
  if (matcherOf(registry).handlers.length === 0) {
    throw new CommandLineError(
      "No handlers are registered: give the operator's files or -m modules.",
    );
  }
  const resources = resourcesOf([...builtinTypes(), ...await crdTypes(flags.crd ?? [])]);
  for (const selector of matcherOf(registry).selectors()) {
    if (selector.select(resources).resources.length === 0) {
      // A typo of a known resource is told as such, not as a CRD to give.
      const close = suggestResources(selector, resources).slice(0, 3);
      if (close.length > 0) {
        throw new CommandLineError(
          `The handlers serve ${selector}, which no built-in resource or --crd file defines; ` +
            `did you mean ${close.map((name) => `"${name}"`).join(" or ")}?`,
        );
      }
      const given = (flags.crd ?? []).length > 0 ? " (the --crd files given do not define it)" : "";
      throw new CommandLineError(
        `The handlers serve ${selector}, which is neither a built-in resource nor in a ` +
          `--crd file${given}; give its CRD with --crd FILE.`,
      );
    }
  }
  return { plan, registry, resources };
}

/** What the manifests are made of, for the files and flags. */
export async function manifestInputOf(
  files: readonly string[],
  flags: ManifestsFlags,
): Promise<ManifestInput> {
  const { plan, registry, resources } = await loadOperator(files, flags);
  const settings = new OperatorSettings();
  if (flags.gracePeriod !== undefined) settings.batching.exitTimeout = flags.gracePeriod;
  if (flags.webhookConfig !== undefined) settings.admission.managed = flags.webhookConfig;
  const name = flags.name ?? "kopf-operator";
  return {
    registry,
    settings,
    resources,
    clusterwide: plan.clusterwide,
    namespaces: plan.namespaces,
    standalone: flags.peering === undefined,
    peeringName: flags.peering,
    image: flags.image ?? `${name}:latest`,
    name,
    namespace: flags.deployNamespace ?? "default",
    metricsPort: flags.metrics,
    webhookPort: flags.webhookPort,
    rules: declaredRules(registry, flags.rule ?? [], resources),
    ...(plan.leadership !== undefined
      ? {
        leadership: {
          leaderElection: plan.leadership.leaderElection,
          shards: plan.leadership.shards,
        },
      }
      : {}),
    ...(flags.replicas !== undefined ? { replicas: flags.replicas } : {}),
    ...(flags.publicRoots ? { publicRoots: true } : {}),
  };
}

/** What `kopf manifests` prints for the files and flags (without `--helm`). */
export async function manifestsOf(
  files: readonly string[],
  flags: ManifestsFlags,
): Promise<string> {
  if (flags.dockerfile && flags.helm === undefined) {
    await loadOperator(files, flags);
    const permissions = await planPermissions({
      inCluster: true,
      liveness: LIVENESS_URL,
      metrics: flags.metrics === undefined ? undefined : `0.0.0.0:${flags.metrics}`,
      env: () => undefined,
    });
    const sources = [...files, ...(flags.module ?? [])];
    await checkBuildContext(sources, flags.cli ?? DEFAULT_CLI_MODULE);
    return dockerfile({
      operatorFiles: sources,
      denoVersion: flags.denoVersion ?? DEFAULT_DENO_VERSION,
      cli: flags.cli ?? DEFAULT_CLI_MODULE,
      permissions: permissions.flags(),
      v8Flags: v8FlagsArgument(),
    });
  }
  const input = await manifestInputOf(files, flags);
  return manifestsYaml(buildManifests(input), manifestNotes(input));
}

/** The Helm chart of `kopf manifests --helm` for the files and flags. */
export async function helmChartOf(
  files: readonly string[],
  flags: ManifestsFlags,
): Promise<ChartFile[]> {
  return helmChart(await manifestInputOf(files, flags), `kopf ${VERSION}`);
}

/**
 * Write a chart into a directory (made if missing): its files replace those there, and
 * files of an earlier chart that this one no longer has are removed; others stay.
 */
export async function writeChart(dir: string, chart: readonly ChartFile[]): Promise<void> {
  const paths = new Set(chart.map((file) => file.path));
  for (const file of chart) {
    const path = `${dir}/${file.path}`;
    await makeDirectory(path.slice(0, path.lastIndexOf("/")));
    await writeTextFile(path, file.text);
  }
  for (const stale of CHART_FILES.filter((path) => !paths.has(path))) {
    await removeFileIfExists(`${dir}/${stale}`);
  }
}

/** What `kopf manifests --helm DIR` says once the chart is written. */
function chartWritten(dir: string, chart: readonly ChartFile[], flags: ManifestsFlags): string {
  const name = flags.name ?? "kopf-operator";
  const namespace = flags.deployNamespace ?? "default";
  return `Wrote the Helm chart ${name} into ${dir}: ${chart.map((f) => f.path).join(", ")}. ` +
    `Install it with: helm install ${name} ${dir} --namespace ${namespace}\n`;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new InvalidArgumentError(`it needs a port number, not ${JSON.stringify(value)}.`);
  }
  return port;
}

/** The `kopf manifests` subcommand; `write` replaces the standard output (for tests). */
export function manifestsCommand(
  write: (text: string) => Promise<void> = writeStandardOutput,
): Command {
  const command = new Command("manifests")
    .summary("Print the RBAC and Deployment to run the operator in a cluster.")
    .description(
      "Print what it takes to run the operator in a cluster, derived from what its handlers " +
        "serve: a ServiceAccount, the RBAC rules it needs and no more, a Deployment (non-root, " +
        "read-only, with probes), and the peering objects with --peering. With --dockerfile, " +
        "the recipe of the image instead; with --helm DIR, a Helm chart of the manifests. " +
        "Apply with: kopf manifests \u2026 | kubectl apply -f -",
    )
    .argument("[files...]", "the operator's files (they register the handlers)")
    .option("-m, --module <specifier>", "a module of the operator (repeatable)", collect)
    .option("-n, --namespace <pattern>", "a namespace the operator serves (repeatable)", collect)
    .option("-A, --all-namespaces", "the operator serves the whole cluster")
    .option("--peering <name>", "run with this peering object (standalone otherwise)")
    .option("--leader-election", "run replicas of which one leads (2 replicas by default)")
    .option("--shards <count>", "run replicas sharing the objects in shards", parseShards)
    .option("--replicas <count>", "the Deployment's replicas", parseShards)
    .option("--crd <file>", "CRDs of the resources the handlers serve (repeatable)", collect)
    .option(
      "--rule <resource:verbs>",
      "what the handlers' own API calls need, e.g. pods:create,delete (repeatable)",
      collect,
    )
    .option(
      "--name <name>",
      "the name of the ServiceAccount, roles and Deployment",
      "kopf-operator",
    )
    .option("--deploy-namespace <namespace>", "where the operator runs", "default")
    .option("--image <image>", "the operator's image (default: <name>:latest)")
    .option("--metrics <port>", "serve Prometheus metrics at this port", parsePort)
    .option(
      "--grace-period <seconds>",
      "how long running handlers may take to finish after SIGTERM",
      parseSeconds,
    )
    .option(
      "--webhook-config <name>",
      "the webhook configurations the operator manages (settings.admission.managed)",
    )
    .option(
      "--webhook-port <port>",
      "where the webhook server listens, for admission handlers (default 9443)",
      (value) => parsePort(value),
    )
    .option(
      "--public-roots",
      "keep the runtime's public root CAs in the pods, for handlers calling public HTTPS " +
        "services (by default DENO_TLS_CA_STORE is empty: only the cluster's CA is trusted)",
    )
    .option("--dockerfile", "print the Dockerfile of the operator's image instead")
    .option("--deno-version <version>", "the Deno image to build with", DEFAULT_DENO_VERSION)
    .option("--cli <module>", "the kopf command line module to compile in", DEFAULT_CLI_MODULE)
    .option("--helm <dir>", "write the manifests as a Helm chart into this directory instead")
    .action(async (files, flags, self) => {
      try {
        if (flags.helm === undefined) {
          await write(await manifestsOf(files, flags));
          return;
        }
        const chart = await helmChartOf(files, flags);
        await writeChart(flags.helm, chart);
        await write(chartWritten(flags.helm, chart, flags));
      } catch (error) {
        self.error(failureText("manifests", error), { exitCode: exitCodeFor(error) });
      }
    });
  return command as unknown as Command;
}
