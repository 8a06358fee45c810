/**
 * Shared set-up of the examples' end-to-end tests: a fake cluster with RBAC and the
 * examples' CRD, the example object, and `kopf run` of an example in a `KopfRunner`.
 *
 * Every example runs as the ServiceAccount of the manifests that `kopf manifests`
 * generates for it, with only the RBAC they grant: each example's test is also the proof
 * that its generated RBAC is enough. A request the cluster refuses (403) fails the test
 * when the cluster is disposed of.
 */
import { parse as parseYaml, parseAllDocuments } from "yaml";
import type { RawBody } from "../../mod.ts";
import { FakeCluster, type FakeClusterOptions } from "../../src/testing/mod.ts";
import {
  type ConnectionSource,
  KopfRunner,
  type KopfRunnerOptions,
} from "../../src/testing/runner.ts";
import { type ManifestsFlags, manifestsOf } from "../../src/cli/manifests.ts";

/** The examples' kind, as the fake cluster's direct API takes it. */
export const KIND = "kopfexamples.kopf.dev";
/** The name of the object in examples/obj.yaml. */
export const NAME = "kopf-example-1";
/** Kopf's finalizer and diff-base annotation. */
export const FINALIZER = "kopf.zalando.org/KopfFinalizerMarker";
export const LAST_HANDLED = "kopf.zalando.org/last-handled-configuration";

const EXAMPLES = new URL("../../examples/", import.meta.url);

/** A manifest of the examples folder, parsed. */
export async function manifest(name: string): Promise<RawBody> {
  return parseYaml(await Deno.readTextFile(new URL(name, EXAMPLES))) as RawBody;
}

/** The path of an example's operator file. */
export function exampleFile(folder: string): string {
  return new URL(`${folder}/example.ts`, EXAMPLES).pathname;
}

/**
 * A fake cluster with RBAC serving the examples' CRD. Disposing of it fails if any
 * request was refused with 403 (the generated RBAC was not enough).
 */
export async function clusterWithCrd(options: FakeClusterOptions = {}): Promise<FakeCluster> {
  const cluster = await FakeCluster.start({ rbac: true, ...options });
  cluster.create(await manifest("crd.yaml"));
  const dispose = cluster[Symbol.asyncDispose].bind(cluster);
  Object.defineProperty(cluster, Symbol.asyncDispose, {
    value: async () => {
      const refused = forbiddenRequests(cluster);
      await dispose();
      if (refused.length > 0) {
        throw new Error(`Requests refused by the generated RBAC: ${refused.join("; ")}`);
      }
    },
  });
  return cluster;
}

/** The requests the cluster has refused with 403, as `VERB path`. */
export function forbiddenRequests(cluster: FakeCluster): string[] {
  return cluster.requests.filter((r) => r.status === 403).map((r) => `${r.verb} ${r.path}`);
}

/**
 * What `kopf manifests` needs to know of each example beyond its files: what its startup
 * handlers configure (the settings are not seen from outside).
 */
const EXAMPLE_FLAGS: Record<string, Partial<ManifestsFlags>> = {
  "17-admission": { webhookConfig: "auto.kopf.dev" },
};

/** The name of an example's ServiceAccount, roles and Deployment. */
export function deploymentName(folder: string): string {
  return `kopf-${folder}`;
}

/**
 * The manifests of an example as `kopf manifests -A --crd examples/crd.yaml` prints them,
 * parsed; `omitRule` drops one rule of its ClusterRole (by index), to show it is needed.
 */
export async function exampleManifests(
  folder: string,
  options: { omitRule?: number } = {},
): Promise<RawBody[]> {
  const text = await manifestsOf([exampleFile(folder)], {
    allNamespaces: true,
    crd: [new URL("crd.yaml", EXAMPLES).pathname],
    name: deploymentName(folder),
    ...EXAMPLE_FLAGS[folder],
  });
  const objects = parseAllDocuments(text).map((d) => d.toJS() as RawBody);
  if (options.omitRule !== undefined) {
    const role = objects.find((o) => o.kind === "ClusterRole")!;
    (role.rules as unknown[]).splice(options.omitRule, 1);
  }
  return objects;
}

/**
 * Apply an example's generated manifests to the cluster (those not there yet) and give
 * the credentials of its ServiceAccount: a token as `kubectl create token` makes it.
 */
export async function deployExample(
  folder: string,
  cluster: FakeCluster,
  options: { omitRule?: number } = {},
): Promise<{ token: string; source: ConnectionSource }> {
  for (const object of await exampleManifests(folder, options)) {
    const meta = object.metadata!;
    const kind = { apiVersion: String(object.apiVersion), kind: String(object.kind) };
    const there = cluster.get(
      kind,
      meta.name!,
      meta.namespace ? { namespace: meta.namespace } : {},
    );
    if (there === undefined) cluster.create(object);
  }
  const token = cluster.serviceAccountToken("default", deploymentName(folder));
  return { token, source: { connectionInfo: cluster.connectionInfoFor(token) } };
}

/** A kubeconfig of the example's ServiceAccount, for examples that use other clients. */
export async function exampleKubeconfig(folder: string, cluster: FakeCluster): Promise<string> {
  const { token } = await deployExample(folder, cluster);
  return await cluster.writeKubeconfig(undefined, { token });
}

/**
 * `kopf run --standalone -A --verbose examples/<folder>/example.ts` against the cluster,
 * as the example's ServiceAccount under its generated RBAC.
 */
export async function runExample(
  folder: string,
  cluster: FakeCluster,
  options: Omit<KopfRunnerOptions, "cluster"> & { args?: readonly string[] } = {},
): Promise<KopfRunner> {
  const { source } = await deployExample(folder, cluster);
  const { args = [], ...rest } = options;
  return KopfRunner.start(
    ["run", "--standalone", "-A", "--verbose", ...args, exampleFile(folder)],
    { cluster: source, echo: Deno.env.get("KOPF_TEST_ECHO") === "1", ...rest },
  );
}

/**
 * Run an example against the cluster, create the example object (examples/obj.yaml) and
 * wait until the operator has handled it to the end; returns the running operator.
 */
export async function runUntilSettled(
  folder: string,
  cluster: FakeCluster,
  options: { timeout?: number } = {},
): Promise<KopfRunner> {
  const runner = await runExample(folder, cluster);
  cluster.create(await manifest("obj.yaml"));
  await cluster.waitFor(KIND, NAME, settled, options);
  return runner;
}

/** Whether the object has been handled to the end: a diff-base and no progress left. */
export function settled(object: RawBody | undefined): boolean {
  const annotations = object?.metadata?.annotations ?? {};
  if (!annotations[LAST_HANDLED]) return false;
  return !Object.keys(annotations).some((k) =>
    k.startsWith("kopf.zalando.org/") && k !== LAST_HANDLED
  );
}

/** The Events about an object, oldest first, as `type reason: message`. */
export function eventsAbout(cluster: FakeCluster, name: string): string[] {
  return cluster.list("events", { fieldSelector: `involvedObject.name=${name}` })
    .map((e) => `${e.type} ${e.reason}: ${e.message}`);
}

/** Environment variables are shared by the test modules: see tests/env.ts. */
export { withEnv } from "../env.ts";

/**
 * Wait until the Events about an object satisfy the predicate. Events get generated
 * names, so the fake cluster's per-object waiting does not apply: this re-checks after
 * every request to the events API, as the cluster serves it — no polling.
 */
export async function waitForEvents(
  cluster: FakeCluster,
  name: string,
  predicate: (events: string[]) => boolean,
  timeout = 10,
): Promise<string[]> {
  let events = eventsAbout(cluster, name);
  if (predicate(events)) return events;
  await cluster.waitForRequest(
    (r) => /\/events(\/|$)/.test(r.path) && predicate(events = eventsAbout(cluster, name)),
    { timeout },
  ).catch(() => {
    throw new Error(`The events about ${name} did not come within ${timeout}s: ${events}`);
  });
  return events;
}
