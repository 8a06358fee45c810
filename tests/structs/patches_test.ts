import { ensure } from "../../src/settings/field_paths.ts";
import { mergePatchChanges, Patch, patchContent, setInPatch } from "../../src/structs/patches.ts";
import { readOnlyView } from "../../src/structs/views.ts";
import { assert, assertEquals, assertThrows } from "../assert.ts";

Deno.test("sections come into being on first write, and not on mere reading", () => {
  const patch = new Patch();
  void patch.status.missing;
  void patch.metadata.labels.missing;
  assert(patch.isEmpty);
  assertEquals(patch.toMergePatch(), {});
  patch.status.x = 1;
  patch.metadata.labels.k = "v";
  patch.meta.annotations["example.com/a"] = "b";
  patch.spec.items = [1, 2];
  assert(!patch.isEmpty);
  assertEquals(patch.toMergePatch(), {
    status: { x: 1 },
    metadata: { labels: { k: "v" }, annotations: { "example.com/a": "b" } },
    spec: { items: [1, 2] },
  });
});

Deno.test("meta is an alias of metadata, and a held section keeps working", () => {
  const patch = new Patch();
  const status = patch.status;
  status.a = 1;
  status.b = 2;
  patch.meta.labels.x = "1";
  patch.metadata.labels.y = "2";
  assertEquals(patch.toMergePatch(), {
    status: { a: 1, b: 2 },
    metadata: { labels: { x: "1", y: "2" } },
  });
});

Deno.test("null deletes, undefined forgets a key from the patch", () => {
  const patch = new Patch();
  patch.status.gone = null;
  patch.status.kept = 1;
  patch.status.kept = undefined;
  assertEquals(patch.toMergePatch(), { status: { gone: null } });
  patch.status = null;
  assertEquals(patch.toMergePatch(), { status: null });
});

Deno.test("other top-level keys go through root; nested plain objects are kept", () => {
  const patch = new Patch();
  patch.root.data = { key: "value" };
  patch.status.child = { nested: { deep: true } };
  (patch.status.child as Record<string, unknown>).more = 2;
  assertEquals(patch.toMergePatch(), {
    data: { key: "value" },
    status: { child: { nested: { deep: true }, more: 2 } },
  });
});

Deno.test("views and dates put into a patch become plain JSON", () => {
  const patch = new Patch();
  const spec = readOnlyView({ items: [1, { a: 2 }] }, "spec");
  patch.spec.copy = spec.items;
  patch.status.when = new Date("2020-01-02T03:04:05.000Z");
  assertEquals(JSON.parse(JSON.stringify(patch)), {
    spec: { copy: [1, { a: 2 }] },
    status: { when: "2020-01-02T03:04:05.000Z" },
  });
});

Deno.test("non-JSON values in a patch fail clearly", () => {
  const patch = new Patch();
  patch.status.x = NaN;
  assertThrows(() => patch.toMergePatch(), TypeError, "JSON has no such value");
  patch.status.x = () => 1;
  assertThrows(() => patch.toMergePatch(), TypeError, "only JSON values");
});

Deno.test("a patch converts to a JSON Patch against the body: add, replace, remove", () => {
  const body = {
    metadata: { name: "n", labels: { keep: "1", old: "x" } },
    spec: { field: "a", "sl/ash": 1, "til~de": 2 },
  };
  const patch = new Patch();
  patch.spec.field = "b";
  patch.spec.numbers = [1, 2, 3];
  patch.spec["sl/ash"] = null;
  patch.spec["til~de"] = 3;
  patch.metadata.labels.old = null;
  patch.metadata.labels.absent = null; // removing what is not there: no operation
  patch.metadata.annotations.a = "b"; // the parent is missing: added whole
  patch.status.ready = true; // the whole status is missing
  assertEquals(patch.toJsonPatch(body), [
    { op: "replace", path: "/spec/field", value: "b" },
    { op: "add", path: "/spec/numbers", value: [1, 2, 3] },
    { op: "remove", path: "/spec/sl~1ash" },
    { op: "replace", path: "/spec/til~0de", value: 3 },
    { op: "remove", path: "/metadata/labels/old" },
    { op: "add", path: "/metadata/annotations", value: { a: "b" } },
    { op: "add", path: "/status", value: { ready: true } },
  ]);
});

Deno.test("JSON Patch drops nulls inside newly added objects and replaces non-objects", () => {
  const patch = new Patch();
  patch.spec.obj = { a: 1, b: null };
  patch.spec.scalar = { now: "object" };
  assertEquals(patch.toJsonPatch({ spec: { scalar: "text" } }), [
    { op: "add", path: "/spec/obj", value: { a: 1 } },
    { op: "replace", path: "/spec/scalar", value: { now: "object" } },
  ]);
});

Deno.test("a patch can start from content and be cleared", () => {
  const patch = new Patch({ status: { a: 1 } });
  patch.status.b = 2;
  assertEquals(patch.toMergePatch(), { status: { a: 1, b: 2 } });
  patch.clear();
  assert(patch.isEmpty);
  patch.status.c = 3;
  assertEquals(patch.toMergePatch(), { status: { c: 3 } });
});

Deno.test("a view assigned into the patch becomes a plain copy that can be written into", () => {
  const body = { spec: { field: "x", nested: { a: 1 } } };
  const spec = readOnlyView(body.spec, "spec");
  const patch = new Patch();
  patch.status.copy = spec;
  patch.spec = spec as unknown as Record<string, unknown>;
  (patch.status.copy as Record<string, unknown>).extra = true;
  (patch.spec.nested as Record<string, unknown>).b = 2;
  assertEquals(patch.toMergePatch(), {
    spec: { field: "x", nested: { a: 1, b: 2 } },
    status: { copy: { field: "x", nested: { a: 1 }, extra: true } },
  });
  assertEquals(body.spec, { field: "x", nested: { a: 1 } });
  assertEquals(structuredClone(patch.toMergePatch()), patch.toMergePatch());
});

Deno.test("setInPatch writes as ensure through the sections does, and keeps held sections", () => {
  const paths: (readonly string[])[] = [
    ["metadata", "annotations", "a/b"],
    ["status", "kopf", "progress", "fn"],
    ["spec", "x"],
    ["data", "k"],
  ];
  for (const path of paths) {
    for (const start of [{}, { status: null, spec: "text", metadata: { labels: { l: "1" } } }]) {
      const viaProxies = new Patch(start);
      const direct = new Patch(start);
      ensure(viaProxies.root, path, { v: 1 });
      setInPatch(direct, path, { v: 1 });
      assertEquals(direct.toMergePatch(), viaProxies.toMergePatch());
      assertEquals(patchContent(direct), direct.toMergePatch());
    }
  }
  // A section asked for before (pending) and written after a direct write keeps both.
  const patch = new Patch();
  const metadata = patch.metadata;
  setInPatch(patch, ["metadata", "annotations", "k"], "v");
  metadata.labels.l = "1";
  assertEquals(patch.toMergePatch(), { metadata: { annotations: { k: "v" }, labels: { l: "1" } } });
});

Deno.test("patchContent reads the patch without making its sections", () => {
  const patch = new Patch();
  assertEquals(patchContent(patch).metadata, undefined);
  void patch.metadata;
  assertEquals(patchContent(patch), {});
});

Deno.test("mergePatchChanges: whether a merge patch would change the value", () => {
  const body = { status: { a: 1, list: [1, 2], nested: { b: "x" } } };
  assert(!mergePatchChanges(body, {}));
  assert(!mergePatchChanges(body, { status: { a: 1 } }));
  assert(!mergePatchChanges(body, { status: { list: [1, 2], nested: { b: "x" } } }));
  assert(!mergePatchChanges(body, { status: { gone: null } }), "removing what is absent");
  assert(mergePatchChanges(body, { status: { a: 2 } }));
  assert(mergePatchChanges(body, { status: { a: null } }));
  assert(mergePatchChanges(body, { status: { list: [1] } }));
  assert(mergePatchChanges(body, { status: { nested: { c: 1 } } }));
  assert(mergePatchChanges(body, { spec: { x: 1 } }), "a new section");
  assert(mergePatchChanges({ status: 5 }, { status: { a: 1 } }), "a mapping over a scalar");
  assert(!mergePatchChanges(readOnlyView(body), { status: { a: 1 } }), "views read as data");
});
