/**
 * How many write requests a handling cycle costs, in each storage configuration, with and
 * without the status subresource (docs/writes.md says the same): the fake cluster counts
 * the PATCH requests to the object and to its `/status`.
 *
 * Two create handlers, one per cycle (the default lifecycle): `once` succeeds in the first
 * cycle; `twice` fails temporarily in the second and succeeds in the third, which also
 * purges the progress and stores the diff-base. Each cycle writes one request per place
 * that it changes: the status (a subresource of its own, when the CRD says so) and the
 * rest of the object. The status conditions (docs/conditions.md) ride in those requests —
 * but for the retry cycle of the progress in annotations, which would write nothing to the
 * status: they cost its request to `/status`; with them off, the figures are Kopf's.
 */
import { assertEquals } from "../assert.ts";
import { on } from "../../src/intents/registration.ts";
import { TemporaryError } from "../../src/structs/errors.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import type { FakeCluster } from "../../src/testing/mod.ts";
import {
  AnnotationsProgressStorage,
  StatusProgressStorage,
} from "../../src/settings/object_progress_storages.ts";
import type { ProgressStorage } from "../../src/settings/progress_storages.ts";
import { SmartProgressStorage } from "../../src/settings/multi_progress_storages.ts";
import {
  AnnotationsDiffBaseStorage,
  type DiffBaseStorage,
  StatusDiffBaseStorage,
} from "../../src/settings/diffbase_storages.ts";
import { clusterRegistry, kex, startCluster, testSettings, whileRunning } from "./harness.ts";

/**
 * The writes per cycle, `[main, status]`: cycle 1 stores `once`'s result (status) and its
 * progress; cycle 2 the progress of `twice` (and its error in the conditions); cycle 3
 * `twice`'s result, the purge of the progress and the diff-base.
 */
const WITH_SUBRESOURCE: Record<string, Record<string, [number, number][]>> = {
  annotations: {
    annotations: [[1, 1], [1, 1], [1, 1]],
    status: [[1, 1], [1, 1], [1, 1]],
  },
  status: {
    annotations: [[0, 1], [0, 1], [1, 1]],
    status: [[0, 1], [0, 1], [0, 1]],
  },
  smart: {
    annotations: [[1, 1], [1, 1], [1, 1]],
    status: [[1, 1], [1, 1], [1, 1]],
  },
};

/** Where the figures differ with the conditions off (Kopf's): the retry of `twice`. */
const WITHOUT_CONDITIONS: Record<string, Record<string, [number, number][]>> = {
  annotations: {
    annotations: [[1, 1], [1, 0], [1, 1]],
    status: [[1, 1], [1, 0], [1, 1]],
  },
};

/** The PATCH requests to the object: to its main endpoint and to its status. */
function writesTo(cluster: FakeCluster, name: string): { main: number; status: number } {
  const patches = cluster.requests.filter((r) =>
    r.method === "PATCH" && r.path.includes(`/kopfexamples/${name}`)
  );
  const status = patches.filter((r) => r.path.endsWith("/status")).length;
  return { main: patches.length - status, status };
}

const PROGRESS: Record<string, () => ProgressStorage> = {
  annotations: () => new AnnotationsProgressStorage(),
  status: () => new StatusProgressStorage(),
  smart: () => new SmartProgressStorage(),
};
const DIFFBASE: Record<string, () => DiffBaseStorage> = {
  annotations: () => new AnnotationsDiffBaseStorage(),
  status: () => new StatusDiffBaseStorage(),
};

function diffbaseOf(body: RawBody | undefined): unknown {
  return body?.metadata?.annotations?.["kopf.zalando.org/last-handled-configuration"] ??
    (body?.status as { kopf?: Record<string, unknown> } | undefined)?.kopf
      ?.["last-handled-configuration"];
}

/** One configuration of the table: its storages, the subresource, the conditions. */
interface Configuration {
  readonly progress: string;
  readonly diffbase: string;
  readonly subresource: boolean;
  readonly conditions: boolean;
  /** The framework's writes by server-side apply (`settings.applying.outcomes`). */
  readonly apply?: boolean;
}

for (const subresource of [true, false]) {
  for (const progress of Object.keys(PROGRESS)) {
    for (const diffbase of Object.keys(DIFFBASE)) {
      testWritesPerCycle({ progress, diffbase, subresource, conditions: true });
      // By server-side apply: the same requests, one apply per place instead of a patch.
      testWritesPerCycle({ progress, diffbase, subresource, conditions: true, apply: true });
      // Off, where the figures differ (with the subresource): elsewhere they are the same.
      if (subresource && WITHOUT_CONDITIONS[progress]?.[diffbase] !== undefined) {
        testWritesPerCycle({ progress, diffbase, subresource, conditions: false });
      }
    }
  }
}

function testWritesPerCycle(configuration: Configuration): void {
  const { progress, diffbase, subresource, conditions, apply = false } = configuration;
  const where = `progress in ${progress}, diff-base in ${diffbase}, ` +
    `${subresource ? "with" : "without"} the status subresource` +
    (conditions ? "" : ", conditions off") + (apply ? ", by server-side apply" : "");
  Deno.test(`writes per cycle: ${where}`, async () => {
    await using cluster = await startCluster({ status: subresource });
    const registry = clusterRegistry(cluster);
    let attempts = 0;
    on.create("kopfexamples", { registry }, function once() {
      return { done: true };
    });
    on.create("kopfexamples", { registry }, function twice() {
      if (attempts++ === 0) throw new TemporaryError("not yet", { delay: 0.2 });
      return { done: true };
    });
    const settings = testSettings({
      persistence: { progressStorage: PROGRESS[progress](), diffbaseStorage: DIFFBASE[diffbase]() },
      conditions: { enabled: conditions },
      applying: { outcomes: apply },
    });
    await whileRunning(registry, async () => {
      cluster.create(kex("w"));
      await cluster.waitFor("kopfexamples", "w", (o) => diffbaseOf(o) !== undefined);
      await new Promise((resolve) => setTimeout(resolve, 300)); // nothing more comes
    }, { settings });
    // Per cycle as in the table; without the subresource, one write per cycle that
    // writes anything, all to the main endpoint.
    const cycles = (conditions ? WITH_SUBRESOURCE : WITHOUT_CONDITIONS)[progress][diffbase];
    const expected = subresource
      ? {
        main: cycles.reduce((sum, [main]) => sum + main, 0),
        status: cycles.reduce((sum, [, status]) => sum + status, 0),
      }
      : { main: cycles.filter(([main, status]) => main + status > 0).length, status: 0 };
    assertEquals(writesTo(cluster, "w"), expected);
    if (apply) assertEquals(appliesTo(cluster, "w"), expected.main + expected.status);
  });
}

/** The PATCH requests to the object that were server-side applies (forced, by "kopf"). */
function appliesTo(cluster: FakeCluster, name: string): number {
  return cluster.requests.filter((r) =>
    r.method === "PATCH" && r.path.includes(`/kopfexamples/${name}`) &&
    r.query === "fieldManager=kopf&force=true"
  ).length;
}

/** One create handler that succeeds at once: one cycle, the common case. */
for (const subresource of [true, false]) {
  for (const result of [true, false]) {
    for (const storages of ["default", "status"] as const) {
      for (const conditions of [true, false]) {
        // Off differs only where nothing else goes to the status: no result, a subresource,
        // the progress (not stored for a cycle that completes) and diff-base elsewhere.
        if (!conditions && !(subresource && !result && storages === "default")) continue;
        testSingleHandler(subresource, result, storages, conditions);
      }
    }
  }
}

function testSingleHandler(
  subresource: boolean,
  result: boolean,
  storages: "default" | "status",
  conditions: boolean,
): void {
  const where = `${storages} storages, ${result ? "a result" : "no result"}, ` +
    `${subresource ? "with" : "without"} the status subresource` +
    (conditions ? "" : ", conditions off");
  Deno.test(`writes of a single-handler cycle: ${where}`, async () => {
    await using cluster = await startCluster({ status: subresource });
    const registry = clusterRegistry(cluster);
    on.create("kopfexamples", { registry }, function only() {
      return result ? { done: true } : undefined;
    });
    const settings = testSettings({
      conditions: { enabled: conditions },
      ...(storages === "status"
        ? {
          persistence: {
            progressStorage: new StatusProgressStorage(),
            diffbaseStorage: new StatusDiffBaseStorage(),
          },
        }
        : {}),
    });
    await whileRunning(registry, async () => {
      cluster.create(kex("w"));
      await cluster.waitFor("kopfexamples", "w", (o) => diffbaseOf(o) !== undefined);
      await new Promise((resolve) => setTimeout(resolve, 300)); // nothing more comes
    }, { settings });
    const writes = writesTo(cluster, "w");
    // The diff-base and the result (and the conditions): two places only with the
    // default storages, when the status is a subresource and the handler returned
    // something for it — or the conditions go there.
    const expected = !subresource
      ? { main: 1, status: 0 }
      : storages === "status"
      ? { main: 0, status: 1 }
      : result || conditions
      ? { main: 1, status: 1 }
      : { main: 1, status: 0 };
    assertEquals(writes, expected);
    const body = cluster.get("kopfexamples", "w", { namespace: "default" });
    assertEquals(
      (body?.status as { only?: unknown } | undefined)?.only,
      result ? { done: true } : undefined,
    );
  });
}
