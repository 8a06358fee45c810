/**
 * Handler selection: how fast the registry picks the handlers for one event or cause
 * among 20 filtered handlers of a resource, plus the per-round helpers (diff, patch).
 */
import type { BenchFigure, BenchSection } from "./types.ts";
import { kopf } from "../../mod.ts";
import type { ChangingKwargs, ObjectLogger } from "../../mod.ts";
import { buildChangingKwargs } from "../../src/intents/kwargs_builders.ts";
import type { CauseMatch } from "../../src/intents/handler_matching.ts";
import { matcherOf } from "../../src/intents/registry.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { Resource } from "../../src/structs/resources.ts";
import { diff as diffOf } from "../../src/structs/diffs.ts";
import { Patch } from "../../src/structs/patches.ts";

const TARGET = 200_000;

const resource = new Resource({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfexamples",
  kind: "KopfExample",
  singular: "kopfexample",
  shortcuts: ["kex"],
});

/** 20 handlers of one resource, with the usual mix of filters. */
function registry(): kopf.OperatorRegistry {
  const r = new kopf.OperatorRegistry({ onWarning: () => {} });
  const opts = { registry: r };
  for (let i = 0; i < 4; i++) {
    const id = `h${i}`;
    kopf.on.create("kopfexamples", { ...opts, id, labels: { app: "demo" } }, () => {});
    kopf.on.update("kopfexamples", { ...opts, id, field: `spec.f${i}` }, () => {});
    kopf.on.update("kopfexamples", {
      ...opts,
      id: `${id}-new`,
      field: "spec.size",
      old: kopf.PRESENT,
      new: (v: unknown) => typeof v === "number" && v > i,
    }, () => {});
    kopf.on.field("kex", {
      ...opts,
      id,
      field: ["metadata", "labels"],
      annotations: { "example.com/skip": kopf.ABSENT },
    }, () => {});
    kopf.on.update("kopfexamples", {
      ...opts,
      id: `${id}-when`,
      labels: { tier: kopf.PRESENT },
      when: ({ spec }: ChangingKwargs) => spec.size !== 0,
    }, () => {});
  }
  return r;
}

function rate(count: number, ms: number, unit: string): string {
  return `${Math.round((count * 1000) / ms).toLocaleString("en-US")} ${unit}/s`;
}

/** Run `fn` repeatedly for about `ms` milliseconds; returns iterations and elapsed time. */
function measure(fn: () => unknown, ms = 1000): [number, number] {
  for (let i = 0; i < 2_000; i++) fn(); // warm-up
  let n = 0;
  const started = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < 1_000; i++) fn();
    n += 1_000;
    elapsed = performance.now() - started;
  }
  return [n, elapsed];
}

/** The intents section of the benchmarks. */
export const section: BenchSection = {
  title: "Handler selection (20 filtered handlers of one resource)",
  run(): Promise<BenchFigure[]> {
    const r = registry();
    const old: RawBody = {
      metadata: { name: "kex-1", labels: { app: "demo", tier: "web" } },
      spec: { f0: 1, f1: 1, size: 1, items: ["a", "b"] },
    };
    const body: RawBody = {
      metadata: { name: "kex-1", namespace: "ns", labels: { app: "demo", tier: "db" } },
      spec: { f0: 2, f1: 1, size: 3, items: ["a", "b"] },
    };
    const diff = diffOf(old, body);
    // The handling layer makes one logger per object, not per cause.
    const logger: ObjectLogger = {
      debug() {},
      info() {},
      warning() {},
      error() {},
      exception() {},
    };
    const started = new Date();
    const cause: CauseMatch = {
      reason: "update",
      initial: false,
      deleted: false,
      body,
      old,
      new: body,
      diff,
      kwargs: () =>
        buildChangingKwargs({ resource, body, logger }, {
          reason: "update",
          old,
          new: body,
          diff,
          retry: 0,
          started,
          runtime: 0,
        }),
    };
    const matcher = matcherOf(r); // the framework takes it once, not per event
    const expected = matcher.selectChangingHandlers(resource, cause).length;
    if (expected === 0) throw new Error("The bench cause selects no handlers; fix the bench.");
    const [changing, changingMs] = measure(() => matcher.selectChangingHandlers(resource, cause));
    const [events, eventsMs] = measure(() => matcher.selectSpawningHandlers(resource, { body }));
    const [diffs, diffsMs] = measure(() => diffOf(old, body));
    const [patches, patchesMs] = measure(() => {
      const patch = new Patch();
      patch.status.h0 = { done: true };
      patch.metadata.annotations["kopf.zalando.org/h0"] = '{"success":true}';
      return patch.toMergePatch();
    });
    const figure = rate(changing, changingMs, "selections");
    return Promise.resolve([
      {
        name: `changing handlers for an update cause (${expected} of 20 selected)`,
        value: figure,
        target: `≥ ${TARGET.toLocaleString("en-US")} selections/s`,
        ok: (changing * 1000) / changingMs >= TARGET,
      },
      {
        name: "daemons/timers for an event (none registered)",
        value: rate(events, eventsMs, "selections"),
      },
      { name: "diff of two small bodies", value: rate(diffs, diffsMs, "diffs") },
      { name: "patch: two writes and a merge patch", value: rate(patches, patchesMs, "patches") },
    ]);
  },
};
