/**
 * The intent of a server-side apply of a cycle's outcome: what the manager owns, restated,
 * with the cycle's changes; removals by leaving out, or apart when not ours alone; our
 * finalizer among others'; conditions of a keyed list only ours, of an atomic one whole.
 */
import { assertEquals } from "../assert.ts";
import { applyIntent } from "../../src/handling/apply_intents.ts";
import { managedEntries } from "../../src/structs/owned_fields.ts";
import type { RawBody } from "../../src/structs/bodies.ts";

const F = "kopf.zalando.org/KopfFinalizerMarker";

function entry(manager: string, fields: unknown, extra: Record<string, unknown> = {}) {
  return { manager, operation: "Apply", fieldsType: "FieldsV1", fieldsV1: fields, ...extra };
}

function object(managedFields: unknown[], extra: RawBody = {}): RawBody {
  return {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: {
      name: "x",
      namespace: "default",
      uid: "u1",
      annotations: { "kopf.zalando.org/a": "{}", "kopf.zalando.org/b": "{}", "else/x": "1" },
      finalizers: ["other/f", F],
      managedFields,
      ...extra.metadata,
    },
    spec: { field: "value" },
    status: { a: { done: 1 }, theirs: 2, ...extra.status as Record<string, unknown> },
  } as RawBody;
}

/** The intent of "kopf" for the place of the body, as the operator builds it. */
function intentOf(
  body: RawBody,
  place: "object" | "status",
  merge: Record<string, unknown>,
  finalizer?: { name: string; change: "add" | "remove" },
) {
  return applyIntent({
    body,
    entries: managedEntries(body),
    fieldManager: "kopf",
    place,
    merge,
    finalizer,
  });
}

const OURS = entry("kopf", {
  "f:metadata": {
    "f:annotations": { "f:kopf.zalando.org/a": {}, "f:kopf.zalando.org/b": {} },
    "f:finalizers": { [`v:"${F}"`]: {} },
  },
});

Deno.test("intent: what we own restated, the cycle's changes on top, a removal by leaving out", () => {
  const body = object([OURS]);
  const intent = intentOf(body, "object", {
    metadata: { annotations: { "kopf.zalando.org/a": null, "kopf.zalando.org/c": "{}" } },
  });
  assertEquals(intent.config, {
    metadata: {
      annotations: { "kopf.zalando.org/b": "{}", "kopf.zalando.org/c": "{}" },
      finalizers: [F],
    },
  });
  assertEquals(intent.leftover, {});
  assertEquals(intent.finalizerLeft, false);
});

Deno.test("intent: a removal of what is not ours alone goes apart, as a merge patch", () => {
  const body = object([
    OURS,
    entry("else", { "f:metadata": { "f:annotations": { "f:kopf.zalando.org/b": {} } } }, {
      operation: "Update",
    }),
  ]);
  // b: shared; else/x: not ours at all; missing: not on the object, nothing to remove.
  const intent = intentOf(body, "object", {
    metadata: { annotations: { "kopf.zalando.org/b": null, "else/x": null, missing: null } },
  });
  assertEquals(intent.config, {
    metadata: { annotations: { "kopf.zalando.org/a": "{}" }, finalizers: [F] },
  });
  assertEquals(intent.leftover, {
    metadata: { annotations: { "kopf.zalando.org/b": null, "else/x": null } },
  });
});

Deno.test("intent: our finalizer added among others', removed by leaving out when ours alone, else apart", () => {
  const fresh = object([], { metadata: { finalizers: ["other/f"] } });
  const added = intentOf(fresh, "object", {}, { name: F, change: "add" });
  assertEquals(added.config, { metadata: { finalizers: [F] } }); // others' are theirs
  const body = object([OURS]);
  const removed = intentOf(body, "object", {}, { name: F, change: "remove" });
  assertEquals(removed.config.metadata, {
    annotations: { "kopf.zalando.org/a": "{}", "kopf.zalando.org/b": "{}" },
  });
  assertEquals(removed.finalizerLeft, false);
  // Written before by a JSON Patch (an Update entry): leaving it out would not remove it.
  const legacy = object([
    entry("kopf", { "f:metadata": { "f:finalizers": { [`v:"${F}"`]: {} } } }, {
      operation: "Update",
    }),
  ]);
  const apart = intentOf(legacy, "object", {}, { name: F, change: "remove" });
  assertEquals(apart.config, {});
  assertEquals(apart.finalizerLeft, true);
});

Deno.test("intent of the status: its own entry; a result set, others' fields left alone", () => {
  const body = object([
    OURS,
    entry("kopf", { "f:status": { "f:a": {} } }, { subresource: "status" }),
    entry("other", { "f:status": { "f:theirs": {} } }, { subresource: "status" }),
  ]);
  const intent = intentOf(body, "status", { status: { b: { done: 2 } } });
  assertEquals(intent.config, { status: { a: { done: 1 }, b: { done: 2 } } });
});

Deno.test("intent: conditions of a keyed list are ours only; of an atomic list, the whole list", () => {
  const theirs = { type: "BReady", status: "True", reason: "Fine" };
  const ready = { type: "Ready", status: "True", reason: "Done" };
  const stalled = { type: "Stalled", status: "False", reason: "Fine" };
  const keyedBody = object([
    entry("kopf", {
      "f:status": { "f:conditions": { 'k:{"type":"Stalled"}': { ".": {}, "f:status": {} } } },
    }, { subresource: "status" }),
    entry("b", { "f:status": { "f:conditions": { 'k:{"type":"BReady"}': {} } } }, {
      subresource: "status",
    }),
  ], { status: { conditions: [theirs, stalled] } });
  // The cycle's list, as the conditions stage makes it: the object's, with ours set.
  const merge = { status: { conditions: [theirs, stalled, ready], observedGeneration: 1 } };
  const keyed = intentOf(keyedBody, "status", merge);
  // Stalled: ours (unchanged); Ready: new; BReady: theirs, unchanged.
  assertEquals(keyed.config, { status: { conditions: [stalled, ready], observedGeneration: 1 } });
  const atomicBody = object([
    entry("b", { "f:status": { "f:conditions": {} } }, { subresource: "status" }),
  ], { status: { conditions: [theirs] } });
  const atomic = intentOf(atomicBody, "status", merge);
  assertEquals(atomic.config, {
    status: { conditions: merge.status.conditions, observedGeneration: 1 },
  });
});

Deno.test("intent: a map emptied by the cycle is left out, not applied empty", () => {
  const body = object([
    entry("kopf", { "f:metadata": { "f:annotations": { "f:kopf.zalando.org/a": {} } } }),
  ]);
  const intent = intentOf(body, "object", {
    metadata: { annotations: { "kopf.zalando.org/a": null } },
  });
  assertEquals(intent.config, {});
  assertEquals(intent.leftover, {});
});
