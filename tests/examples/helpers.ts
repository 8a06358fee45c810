/**
 * Shared set-up of the examples' end-to-end tests: a fake cluster with the examples' CRD,
 * the example object, and `kopf run` of an example in a `KopfRunner`.
 */
import { parse as parseYaml } from "yaml";
import type { RawBody } from "../../mod.ts";
import { FakeCluster, type FakeClusterOptions } from "../../src/testing/mod.ts";
import { KopfRunner, type KopfRunnerOptions } from "../../src/testing/runner.ts";

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

/** A fake cluster serving the examples' CRD. */
export async function clusterWithCrd(options: FakeClusterOptions = {}): Promise<FakeCluster> {
  const cluster = await FakeCluster.start(options);
  cluster.create(await manifest("crd.yaml"));
  return cluster;
}

/** `kopf run --standalone -A --verbose examples/<folder>/example.ts` against the cluster. */
export function runExample(
  folder: string,
  cluster: FakeCluster,
  options: Omit<KopfRunnerOptions, "cluster"> = {},
): Promise<KopfRunner> {
  return KopfRunner.start(
    ["run", "--standalone", "-A", "--verbose", exampleFile(folder)],
    { cluster, echo: Deno.env.get("KOPF_TEST_ECHO") === "1", ...options },
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
