/**
 * The demo: an operator at work on an embedded fake cluster — no kubectl, no real
 * cluster. It starts a fake Kubernetes API server, installs the examples' CRD, runs a
 * small operator in this process, then creates, changes and deletes an object the way
 * `kubectl` would, showing after each step what the operator did: its log lines, the
 * status it wrote, the finalizer it kept until the delete handler had run, and the
 * Kubernetes Events it posted.
 *
 *   npx -y deno@2.9.6 task demo
 */
import { parse as parseYaml } from "yaml";
import { kopf } from "../mod.ts";
import type { RawBody } from "../mod.ts";
import { FakeCluster } from "../src/testing/mod.ts";

const FINALIZER = "kopf.zalando.org/KopfFinalizerMarker";
const LAST_HANDLED = "kopf.zalando.org/last-handled-configuration";
const KIND = "kopfexamples.kopf.dev";
const NAME = "kopf-example-1";

// Colours only for a person at a terminal: not into a file or a pipe, not with NO_COLOR.
const colour = !Deno.noColor && Deno.stdout.isTerminal();
const bold = (text: string) => colour ? `\x1b[1m${text}\x1b[0m` : text;
const dim = (text: string) => colour ? `\x1b[2m${text}\x1b[0m` : text;

function say(text: string): void {
  console.log(text);
}

function step(command: string, comment?: string): void {
  say("");
  say(bold(`$ ${command}`) + (comment ? dim(`   # ${comment}`) : ""));
}

function show(label: string, value: unknown): void {
  say(`  ${label}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
}

async function readManifest(name: string): Promise<RawBody> {
  return parseYaml(await Deno.readTextFile(new URL(name, import.meta.url))) as RawBody;
}

// --- the operator: its handlers live on a registry of their own ---

const registry = new kopf.OperatorRegistry();

kopf.on.create(KIND, { registry }, function createFn({ spec, body, logger }) {
  const items = Array.isArray(spec.items) ? spec.items.length : 0;
  logger.info(`Creating with field=${JSON.stringify(spec.field)} and ${items} items.`);
  kopf.info(body, { reason: "Greeting", message: "Hello from the demo operator." });
  return { message: "hello world" };
});

kopf.on.field(
  KIND,
  { registry, field: "spec.field" },
  function fieldFn({ old, new: now, patch, logger }) {
    logger.info(`spec.field changed: ${JSON.stringify(old)} → ${JSON.stringify(now)}`);
    patch.status.field = now as string;
  },
);

kopf.on.delete(KIND, { registry }, function deleteFn({ logger }) {
  logger.info("Cleaning up before the object goes away.");
});

// --- the run ---

say(bold("kopf for TypeScript — a demo operator on an embedded fake cluster"));
// Say what is about to happen before it happens, so that the output reads as a story.
say("What it does, in this process, with no real cluster and no kubectl:");
say("  1. start a fake Kubernetes API server and install the examples' CRD;");
say("  2. start a small operator: a create, a field and a delete handler for KopfExamples;");
say("  3. create, change and delete a KopfExample as kubectl would, showing after each step");
say("     the operator's log lines and what it wrote: the status, its finalizer, its events;");
say("  4. stop the operator gracefully. It ends by itself within seconds.");
say("");
await using cluster = await FakeCluster.start();
say(dim(`A fake Kubernetes API server listens at ${cluster.url}.`));

kopf.on.login({ registry, id: "demo-login" }, () => cluster.connectionInfo);
kopf.configure({
  logFormat: "plain",
  writer: (line) => say(dim("  operator │ ") + line),
});

step("kubectl apply -f examples/crd.yaml", "the examples' custom resource");
const crd = cluster.create(await readManifest("crd.yaml"));
say(`  customresourcedefinition/${crd.metadata?.name} created`);

step("kopf run --standalone -A", "in this process: the operator starts watching");
const stop = new AbortController();
let ready!: () => void;
const started = new Promise<void>((resolve) => (ready = resolve));
const operator = kopf.operator({
  registry,
  clusterwide: true,
  standalone: true,
  signal: stop.signal,
  onReady: () => ready(),
});
await Promise.race([started, operator]);

step("kubectl apply -f examples/obj.yaml", "the create handler runs");
cluster.create(await readManifest("obj.yaml"));
say(`  kopfexample/${NAME} created`);
const created = await cluster.waitFor(KIND, NAME, (o) => {
  const status = o?.status as Record<string, unknown> | undefined;
  return status?.createFn !== undefined && Boolean(o?.metadata?.annotations?.[LAST_HANDLED]);
});
show("status.createFn", (created?.status as Record<string, unknown>).createFn);
show("finalizers", created?.metadata?.finalizers ?? []);

step(
  `kubectl patch kex ${NAME} --type merge -p '{"spec":{"field":"changed"}}'`,
  "the field handler runs",
);
cluster.patch(KIND, NAME, { spec: { field: "changed" } });
const changed = await cluster.waitFor(
  KIND,
  NAME,
  (o) => (o?.metadata?.annotations?.[LAST_HANDLED] ?? "").includes('"changed"'),
);
show("status.field", (changed?.status as Record<string, unknown>).field);

step(`kubectl delete kex ${NAME}`, "the finalizer holds it until the delete handler is done");
const deleting = cluster.delete(KIND, NAME);
show("held by finalizers", deleting?.metadata?.finalizers ?? []);
await cluster.waitFor(KIND, NAME, (o) => o === undefined);
say(`  kopfexample "${NAME}" deleted: the operator removed its finalizer (${FINALIZER}).`);

step("kopf run   ^C", "a graceful stop");
stop.abort();
await operator;

step(
  `kubectl get events --field-selector involvedObject.name=${NAME}`,
  "what the operator reported",
);
const events = cluster.list("events", { fieldSelector: `involvedObject.name=${NAME}` })
  .sort((a, b) => Number(a.metadata?.resourceVersion) - Number(b.metadata?.resourceVersion));
say(`  ${"TYPE".padEnd(8)} ${"REASON".padEnd(10)} MESSAGE`);
for (const event of events) {
  say(`  ${String(event.type).padEnd(8)} ${String(event.reason).padEnd(10)} ${event.message}`);
}

say("");
say(bold("Done.") + " Next: the examples/ folder, and `kopf run` against a real cluster.");
