/**
 * Two operators on the same 1,000 objects, each writing its own fields by server-side apply
 * under its own field manager (`settings.applying.outcomes`): its result, progress and
 * diff-base, its finalizer among the other's, its own conditions in a `status.conditions`
 * list keyed by type, a label its handler patches. No field of either is lost — on
 * creation, while both write at once, nor when both release their finalizers on deletion.
 */
import { assert, assertEquals } from "../assert.ts";
import { on } from "../../src/intents/registration.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import type { OperatorRegistry } from "../../src/intents/registry.ts";
import type { FakeCluster } from "../../src/testing/mod.ts";
import { AnnotationsProgressStorage } from "../../src/settings/object_progress_storages.ts";
import { AnnotationsDiffBaseStorage } from "../../src/settings/diffbase_storages.ts";
import {
  Calls,
  clusterRegistry,
  kex,
  startCluster,
  startOperator,
  testSettings,
} from "./harness.ts";

const OBJECTS = 1_000;
const NAMES = ["alpha", "beta"] as const;

function registryOf(cluster: FakeCluster, name: string, calls: Calls): OperatorRegistry {
  const registry = clusterRegistry(cluster);
  on.create("kopfexamples", { registry, id: name }, ({ patch }) => {
    calls.add(`${name}:create`);
    patch.metadata.labels = { [`${name}.example.com/seen`]: "yes" };
    return { by: name };
  });
  on.delete("kopfexamples", { registry, id: `${name}-cleanup` }, () => {
    calls.add(`${name}:delete`);
  });
  return registry;
}

function settingsOf(name: string) {
  const prefix = `${name}.example.com`;
  const title = name[0].toUpperCase() + name.slice(1);
  return testSettings({
    applying: { outcomes: true, fieldManager: `${name}-operator` },
    persistence: {
      finalizer: `${prefix}/finalizer`,
      progressStorage: new AnnotationsProgressStorage({ prefix }),
      diffbaseStorage: new AnnotationsDiffBaseStorage({ prefix }),
    },
    conditions: {
      ready: `${title}Ready`,
      reconciling: `${title}Reconciling`,
      stalled: `${title}Stalled`,
    },
  });
}

/** What of each operator's fields is missing on the object (none when all are there). */
function missing(body: RawBody | undefined): string[] {
  const out: string[] = [];
  const status = (body?.status ?? {}) as Record<string, unknown>;
  const conditions = (status.conditions ?? []) as { type: string; status: string }[];
  for (const name of NAMES) {
    const prefix = `${name}.example.com`;
    const title = name[0].toUpperCase() + name.slice(1);
    if (!body?.metadata?.finalizers?.includes(`${prefix}/finalizer`)) out.push(`${name} finalizer`);
    if (body?.metadata?.labels?.[`${prefix}/seen`] !== "yes") out.push(`${name} label`);
    if (body?.metadata?.annotations?.[`${prefix}/last-handled-configuration`] === undefined) {
      out.push(`${name} diff-base`);
    }
    if (JSON.stringify(status[name]) !== JSON.stringify({ by: name })) out.push(`${name} result`);
    if (conditions.find((c) => c.type === `${title}Ready`)?.status !== "True") {
      out.push(`${name} Ready`);
    }
  }
  return out;
}

Deno.test(`two operators applying their own fields of the same ${OBJECTS} objects lose no field`, async () => {
  await using cluster = await startCluster({ status: true, keyedConditions: true });
  const calls = new Calls();
  const operators = await Promise.all(
    NAMES.map((name) =>
      startOperator(registryOf(cluster, name, calls), { settings: settingsOf(name) })
    ),
  );
  try {
    const names = Array.from({ length: OBJECTS }, (_, i) => `shared-${i}`);
    for (const name of names) cluster.create(kex(name));
    await calls.until(OBJECTS, (c) => c === "alpha:create", 240);
    await calls.until(OBJECTS, (c) => c === "beta:create", 240);
    for (const name of names) {
      await cluster.waitFor("kopfexamples", name, (o) => missing(o).length === 0, { timeout: 120 });
    }
    // Every object holds both operators' fields, each owned by its own manager alone.
    const lost: string[] = [];
    for (const name of names) {
      const body = cluster.get("kopfexamples", name, { namespace: "default" });
      for (const field of missing(body)) lost.push(`${name}: ${field}`);
      const managers =
        ((body?.metadata?.managedFields ?? []) as { manager: string; operation: string }[]).map((
          e,
        ) => `${e.manager}/${e.operation}`);
      assert(managers.includes("alpha-operator/Apply") && managers.includes("beta-operator/Apply"));
    }
    assertEquals(lost, []);
    // No write was refused for a conflict: no guarded request was needed.
    assertEquals(cluster.requests.filter((r) => r.status === 409).length, 0);
    for (const name of names) cluster.delete("kopfexamples", name, { namespace: "default" });
    for (const name of names) {
      await cluster.waitFor("kopfexamples", name, (o) => o === undefined, { timeout: 120 });
    }
    assertEquals(calls.count((c) => c === "alpha:delete"), OBJECTS);
    assertEquals(calls.count((c) => c === "beta:delete"), OBJECTS);
    // Each create handler ran once per object: no field loss made either one run again.
    assertEquals(calls.count((c) => c === "alpha:create"), OBJECTS);
    assertEquals(calls.count((c) => c === "beta:create"), OBJECTS);
  } finally {
    await Promise.all(operators.map((operator) => operator.stop()));
  }
});
