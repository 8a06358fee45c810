/**
 * Managed fields entries: their identity, order and encoding, the tracking of updates
 * (what a write takes from others, the cap of update entries), and managers read from
 * requests.
 */
import { emptySet, insertPath } from "../../../src/testing/fake_cluster/field_sets.ts";
import { fieldElement } from "../../../src/structs/owned_fields.ts";
import { DEDUCED } from "../../../src/testing/fake_cluster/field_shapes.ts";
import {
  managerFromUserAgent,
  managerOf,
} from "../../../src/testing/fake_cluster/field_managers.ts";
import {
  decodeManaged,
  encodeManaged,
  type FieldContext,
  type Managed,
  managerId,
  recordUpdate,
  trackUpdate,
} from "../../../src/testing/fake_cluster/managed_fields.ts";
import { compareValues } from "../../../src/testing/fake_cluster/field_walks.ts";
import { assertEquals, assertThrows } from "../../assert.ts";

function context(now: string): FieldContext {
  return { shape: DEDUCED, apiVersion: "v1", statusApart: false, empty: {}, now };
}

function entry(manager: string, operation: string, time: string, field: string) {
  return {
    manager,
    operation,
    apiVersion: "v1",
    time,
    fieldsType: "FieldsV1",
    fieldsV1: { [`f:${field}`]: {} },
  };
}

Deno.test("managed fields: applies come first, then by time, manager, version; identities omit an applier's version", () => {
  const raw = [
    entry("b", "Update", "2024-01-01T00:00:02Z", "x"),
    entry("a", "Update", "2024-01-01T00:00:02Z", "y"),
    entry("z", "Apply", "2024-01-01T00:00:09Z", "z"),
    entry("c", "Update", "2024-01-01T00:00:01Z", "w"),
  ];
  const managed = decodeManaged(raw)!;
  assertEquals(encodeManaged(managed)!.map((e) => e.manager), ["z", "c", "a", "b"]);
  assertEquals(
    managerId({ manager: "m", operation: "Apply", apiVersion: "v2" }),
    '{"manager":"m","operation":"Apply"}',
  );
  assertEquals(
    managerId({ manager: "", operation: "Update", apiVersion: "v1", subresource: "status" }),
    '{"manager":"unknown","operation":"Update","apiVersion":"v1","subresource":"status"}',
  );
  assertEquals(decodeManaged([{ ...raw[0], operation: "Patch" }]), undefined);
  assertEquals(decodeManaged([{ ...raw[0], fieldsType: "FieldsV2" }]), undefined);
});

Deno.test("managed fields: an update takes what it changed from others and owns it; removals only leave", () => {
  const managed: Managed = decodeManaged([entry("a", "Update", "2024-01-01T00:00:00Z", "x")])!;
  const cmp = compareValues({ x: 1, y: 1 }, { x: 2, z: 3 }, DEDUCED);
  recordUpdate(context("2024-02-02T00:00:00Z"), managed, "b", cmp);
  const [only] = encodeManaged(managed)!;
  assertEquals([only.manager, only.time, only.fieldsV1], ["b", "2024-02-02T00:00:00Z", {
    "f:x": {},
    "f:z": {},
  }]);
});

Deno.test("managed fields: past ten update entries, the oldest merge into ancient-changes", () => {
  const managed: Managed = new Map();
  for (let i = 0; i < 11; i++) {
    const set = emptySet();
    insertPath(set, [fieldElement(`f${i}`)]);
    recordUpdate(context(`2024-01-01T00:00:${String(i).padStart(2, "0")}Z`), managed, `m${i}`, {
      added: set,
      modified: emptySet(),
      removed: emptySet(),
    });
  }
  const encoded = encodeManaged(managed)!;
  assertEquals(encoded.length, 10);
  const ancient = encoded.find((e) => e.manager === "ancient-changes")!;
  assertEquals(ancient.fieldsV1, { "f:f0": {}, "f:f1": {} });
});

Deno.test("managed fields: an existing object without entries gains none; a create does", () => {
  assertEquals(
    trackUpdate(context("2024-01-01T00:00:00Z"), { a: 1 }, { a: 2 }, "m", undefined),
    undefined,
  );
  const created = trackUpdate(
    context("2024-01-01T00:00:00Z"),
    undefined,
    { a: 2 },
    "m",
    undefined,
  )!;
  assertEquals(created[0].fieldsV1, { "f:a": {} });
  // An empty list in the body resets them; valid entries replace them.
  const given = [entry("g", "Apply", "2024-01-01T00:00:00Z", "a")];
  const replaced = trackUpdate(context("2024-01-01T00:00:00Z"), { a: 1 }, { a: 1 }, "m", given)!;
  assertEquals(replaced.map((e) => e.manager), ["g"]);
});

Deno.test("managers: fieldManager, or the user agent's product; bad ones are 422", () => {
  assertEquals(managerFromUserAgent("kubectl/v1.32.4 (linux/amd64) kubernetes/abc"), "kubectl");
  assertEquals(managerFromUserAgent("my\u0007tool/1"), "mytool");
  assertEquals(managerFromUserAgent("x".repeat(200)).length, 128);
  const params = (q: string) => new URLSearchParams(q);
  assertEquals(
    managerOf(params("fieldManager=kubectl-edit"), "kubectl/1", "UpdateOptions"),
    "kubectl-edit",
  );
  assertEquals(managerOf(params(""), "node-fetch/1.0", "CreateOptions"), "node-fetch");
  assertThrows(() => managerOf(params(`fieldManager=${"y".repeat(129)}`), null, "CreateOptions"));
  assertThrows(() => managerOf(params("force=true"), null, "PatchOptions"));
});
