import { assert, assertEquals, assertStringIncludes, assertThrows } from "../assert.ts";
import {
  AnnotationsDiffBaseStorage,
  ConfigurationError,
  MultiDiffBaseStorage,
  StatusDiffBaseStorage,
  StatusProgressStorage,
  StoredStateError,
} from "../../src/kopf.ts";
import type { RawBody } from "../../mod.ts";
import { Patch } from "../../src/structs/patches.ts";

const BODY: RawBody = {
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: {
    name: "kopf-example-1",
    namespace: "default",
    uid: "4a6b0c5e-0000-0000-0000-000000000000",
    resourceVersion: "12345",
    generation: 2,
    creationTimestamp: "2020-12-31T23:59:59Z",
    finalizers: ["kopf.zalando.org/KopfFinalizerMarker"],
    labels: { app: "demo" },
    annotations: {
      "kopf.zalando.org/create_fn": '{"retries":1}',
      "kopf.zalando.org/last-handled-configuration": '{"spec":{}}\n',
      "kubectl.kubernetes.io/last-applied-configuration": "{}",
      "other-op.example.com/kopf-managed": "yes",
      "other-op.example.com/fn": "{}",
      "sub.kopf.zalando.org/fn": "{}",
      team: "ünï",
    },
  },
  spec: { field: "value", items: ["a", "b"], nested: { x: 1.5, y: null } },
  status: { create_fn: { message: "hello" } },
};

// What Python Kopf stores for BODY (json.dumps with compact separators, plus "\n").
const STORED = '{"spec":{"field":"value","items":["a","b"],"nested":{"x":1.5,"y":null}},' +
  '"metadata":{"labels":{"app":"demo"},"annotations":{"team":"\\u00fcn\\u00ef"}}}\n';

Deno.test("the diff-base annotation is Kopf's exact essence JSON with a trailing newline", () => {
  const storage = new AnnotationsDiffBaseStorage();
  const essence = storage.build({ body: BODY });
  const patch = new Patch();
  storage.store({ body: BODY, patch, essence });
  assertEquals(patch.toMergePatch(), {
    metadata: { annotations: { "kopf.zalando.org/last-handled-configuration": STORED } },
  });
});

Deno.test("essences drop empty sections and keep requested extra fields", () => {
  const storage = new AnnotationsDiffBaseStorage();
  const bare: RawBody = {
    kind: "X",
    metadata: { name: "n", labels: {}, annotations: { "kopf.zalando.org/fn": "{}" } },
    spec: { a: 1 },
    status: { phase: "Running", other: 1 },
  };
  assertEquals(storage.build({ body: bare }), { spec: { a: 1 } });
  assertEquals(storage.build({ body: bare, extraFields: ["status.phase"] }), {
    spec: { a: 1 },
    status: { phase: "Running" },
  });
  assertEquals(storage.build({ body: { kind: "X" } }), {});
});

Deno.test("a custom prefix is branded and excluded from its own and others' essences", () => {
  const storage = new AnnotationsDiffBaseStorage({ prefix: "my-op.example.com", key: "last" });
  const patch: Record<string, unknown> = {};
  storage.store({ body: BODY, patch, essence: { spec: {} } });
  assertEquals(patch, {
    metadata: {
      annotations: {
        "my-op.example.com/last": '{"spec":{}}\n',
        "my-op.example.com/kopf-managed": "yes",
      },
    },
  });
  const marked: RawBody = {
    metadata: {
      annotations: {
        "my-op.example.com/kopf-managed": "yes",
        "my-op.example.com/fn": "{}",
        "my-op.example.com/last": "{}",
        "unmarked.example.com/x": "y",
      },
    },
  };
  const essence = new AnnotationsDiffBaseStorage().build({ body: marked });
  assertEquals(essence, { metadata: { annotations: { "unmarked.example.com/x": "y" } } });
});

Deno.test("the stored essence is read back from annotations Python Kopf wrote", async () => {
  const storage = new AnnotationsDiffBaseStorage();
  const written: RawBody = {
    metadata: { annotations: { "kopf.zalando.org/last-handled-configuration": STORED } },
  };
  const fetched = await storage.fetch({ body: written });
  assertEquals(fetched, storage.build({ body: BODY }));
  assertEquals(await storage.fetch({ body: { metadata: {} } }), null);
  assertThrows(
    () =>
      storage.fetch({
        body: { metadata: { annotations: { "kopf.zalando.org/last-handled-configuration": "[" } } },
      }),
    StoredStateError,
    "is not JSON of an object",
  );
});

Deno.test("the status diff-base is a JSON string without newline, excluded from essences", () => {
  const storage = new StatusDiffBaseStorage();
  const patch = new Patch();
  storage.store({ body: BODY, patch, essence: { spec: { a: "ü" } } });
  assertEquals(patch.toMergePatch(), {
    status: { kopf: { "last-handled-configuration": '{"spec":{"a":"\\u00fc"}}' } },
  });
  const body: RawBody = {
    spec: { a: 1 },
    status: { kopf: { "last-handled-configuration": '{"spec":{"a":0}}' } },
  };
  assertEquals(storage.fetch({ body }), { spec: { a: 0 } });
  assertEquals(storage.build({ body, extraFields: ["status"] }), { spec: { a: 1 } });
});

Deno.test("a multi diff-base storage writes to all and reads the first that has an essence", async () => {
  const multi = new MultiDiffBaseStorage([
    new StatusDiffBaseStorage({ field: "status.diff-base" }),
    new AnnotationsDiffBaseStorage(),
  ]);
  const patch = new Patch();
  await multi.store({ body: BODY, patch, essence: { spec: {} } });
  assertEquals(patch.toMergePatch(), {
    status: { "diff-base": '{"spec":{}}' },
    metadata: { annotations: { "kopf.zalando.org/last-handled-configuration": '{"spec":{}}\n' } },
  });
  const legacy: RawBody = {
    metadata: { annotations: { "kopf.zalando.org/last-handled-configuration": STORED } },
  };
  assertEquals(
    await multi.fetch({ body: legacy }),
    new AnnotationsDiffBaseStorage().build({
      body: BODY,
    }),
  );
  assertThrows(() => new MultiDiffBaseStorage([]), ConfigurationError, "non-empty array");
});

Deno.test("a diff-base stored beside purged status progress keeps the purge", async () => {
  // The progress was the only thing in status.kopf: purging it deletes status.kopf as a
  // whole; the diff-base written there afterwards must not bring the records back.
  const body: RawBody = {
    spec: { a: 1 },
    status: { kopf: { progress: { fn: { retries: 1, success: true } } } },
  };
  const patch = new Patch();
  await new StatusProgressStorage().purge({ key: "fn", body, patch });
  assertEquals(patch.toMergePatch(), { status: { kopf: null } });
  new StatusDiffBaseStorage().store({ body, patch, essence: { spec: { a: 1 } } as RawBody });
  assertEquals(patch.toMergePatch(), {
    status: { kopf: { progress: null, "last-handled-configuration": '{"spec":{"a":1}}' } },
  });
});

Deno.test("an annotations storage says when an essence would not fit in the annotations, in one line", () => {
  const storage = new AnnotationsDiffBaseStorage();
  const body = { metadata: { name: "x", annotations: { other: "y".repeat(1000) } } };
  assertEquals(storage.oversize({ body, essence: { spec: { field: "small" } } }), undefined);
  const large = { spec: { field: "x".repeat(300_000) } };
  const why = storage.oversize({ body, essence: large });
  assert(why !== undefined && !why.includes("\n"));
  assertStringIncludes(why, "kopf.zalando.org/last-handled-configuration");
  assertStringIncludes(why, "over the 256 KB that Kubernetes allows");
  // A status storage keeps it out of the annotations; a multi storage answers for all.
  assertEquals(new StatusDiffBaseStorage().oversize({ body, essence: large }), undefined);
  const multi = new MultiDiffBaseStorage([new StatusDiffBaseStorage(), storage]);
  assertEquals(multi.oversize({ body, essence: large }), why);
});

Deno.test("a diff-base storage says whether it reads the status alone", () => {
  assertEquals(new AnnotationsDiffBaseStorage().readsStatusOnly, false);
  assertEquals(new StatusDiffBaseStorage().readsStatusOnly, true);
  assertEquals(new StatusDiffBaseStorage({ field: "spec.base" }).readsStatusOnly, false);
  const both = [new AnnotationsDiffBaseStorage(), new StatusDiffBaseStorage()];
  assertEquals(new MultiDiffBaseStorage(both).readsStatusOnly, false);
  assertEquals(new MultiDiffBaseStorage([new StatusDiffBaseStorage()]).readsStatusOnly, true);
});
