/**
 * The old and new essences of a handling cycle: the stored diff-base and the current
 * essence, both without the progress storage's fields.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import {
  AnnotationsDiffBaseStorage,
  MultiDiffBaseStorage,
  OperatorSettings,
  StatusDiffBaseStorage,
  StatusProgressStorage,
} from "../../src/kopf.ts";
import { loadEssences } from "../../src/settings/essences.ts";
import { diff } from "../../src/structs/diffs.ts";
import { Patch } from "../../src/structs/patches.ts";
import type { RawBody } from "../../mod.ts";

Deno.test("old and new essences exclude progress fields and tell a real change", async () => {
  const settings = new OperatorSettings({
    persistence: {
      diffbaseStorage: new StatusDiffBaseStorage({ field: "status.base" }),
      progressStorage: new StatusProgressStorage({ field: "status.progress" }),
    },
  });
  const body: RawBody = {
    spec: { a: 2 },
    status: {
      phase: "Running",
      base: '{"spec":{"a":1},"status":{"phase":"Running","progress":{"fn":{}}}}',
      progress: { fn: { retries: 1 } },
    },
  };
  const { old, new: current } = await loadEssences(settings.persistence, body, ["status"]);
  assertEquals(old, { spec: { a: 1 }, status: { phase: "Running" } });
  assertEquals(current, { spec: { a: 2 }, status: { phase: "Running" } });
  const fresh = await loadEssences(new OperatorSettings().persistence, { spec: {} });
  assertEquals(fresh, { old: null, new: { spec: {} } });
});

/** RFC 7386: what the API server does with a merge patch. */
function merged(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> = typeof target === "object" && target !== null &&
      !Array.isArray(target)
    ? { ...target as Record<string, unknown> }
    : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = merged(result[key], value);
  }
  return result;
}

/** The body after its diff-base is stored as a successful cycle stores it. */
async function handled(persistence: OperatorSettings["persistence"], body: RawBody) {
  const { new: essence } = await loadEssences(persistence, body);
  const patch = new Patch();
  await persistence.diffbaseStorage.store({ body, patch, essence });
  return merged(body, patch.toMergePatch()) as RawBody;
}

const b64 = (text: string) => btoa(text);

function secret(data: Record<string, string>, extra: RawBody = {}): RawBody {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "creds", namespace: "default", uid: "8d2e-uid", ...extra.metadata },
    type: "Opaque",
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  };
}

/** Every text of the body, for looking for leaks: the stored JSON is a string in it. */
const texts = (body: RawBody) =>
  JSON.stringify(body.metadata?.annotations) + JSON.stringify(body.status);

const STORAGES: Record<string, () => OperatorSettings> = {
  annotations: () => new OperatorSettings(),
  status: () =>
    new OperatorSettings({ persistence: { diffbaseStorage: new StatusDiffBaseStorage() } }),
  multi: () =>
    new OperatorSettings({
      persistence: {
        diffbaseStorage: new MultiDiffBaseStorage([
          new AnnotationsDiffBaseStorage(),
          new StatusDiffBaseStorage(),
        ]),
      },
    }),
};

for (const [name, make] of Object.entries(STORAGES)) {
  Deno.test(`a Secret's diff-base in ${name} keeps digests; a change is still told`, async () => {
    const { persistence } = make();
    const stored = await handled(persistence, secret({ password: "s3cr3t-Pa55", user: "admin" }));
    const text = texts(stored);
    for (const value of ["s3cr3t-Pa55", b64("s3cr3t-Pa55"), b64("admin")]) {
      assert(!text.includes(value), `${value} is not stored: ${text}`);
    }
    assertStringIncludes(text, "kopf-digest:v1:");

    const same = await loadEssences(persistence, stored);
    assertEquals(diff(same.old, same.new), []);
    assertEquals(same.rewrite, false);

    const changed = { ...stored, data: { ...stored.data as object, password: b64("other") } };
    const next = await loadEssences(persistence, changed);
    const changes = diff(next.old, next.new);
    assertEquals(changes.map(([op, path]) => [op, path]), [["change", ["data", "password"]]]);
    assert(!JSON.stringify(next).includes(b64("other")), "the new essence holds digests");
  });
}

Deno.test("a diff-base stored with plain values (Kopf's) is no change, and is due a rewrite", async () => {
  const { persistence } = new OperatorSettings();
  const body = secret({ password: "s3cr3t" });
  // What Python Kopf stores for this Secret.
  const kopfs = `{"type":"Opaque","data":{"password":"${b64("s3cr3t")}"}}\n`;
  body.metadata!.annotations = { "kopf.zalando.org/last-handled-configuration": kopfs };
  const essences = await loadEssences(persistence, body);
  assertEquals(diff(essences.old, essences.new), []);
  assertEquals(essences.rewrite, true);
  assert(!JSON.stringify(essences).includes(b64("s3cr3t")));
  // Stored anew, the digests replace the plain values and no rewrite is due any more.
  const rewritten = await handled(persistence, body);
  assert(!texts(rewritten).includes(b64("s3cr3t")));
  assertEquals((await loadEssences(persistence, rewritten)).rewrite, false);
});

Deno.test("objects without sensitive fields keep their values as they are", async () => {
  const { persistence } = new OperatorSettings();
  const configMap: RawBody = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "c", uid: "u" },
    data: { password: "plain" },
  };
  const essences = await loadEssences(persistence, configMap);
  assertEquals(essences, { old: null, new: { data: { password: "plain" } } });
});

Deno.test("settings.persistence.sensitiveFields marks fields of any resource", async () => {
  const settings = new OperatorSettings({
    persistence: { sensitiveFields: ["spec.password", ["spec", "tls.key"]] },
  });
  const body: RawBody = {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "k", uid: "u-1" },
    spec: { password: "hunter2", "tls.key": "PEM", size: 3 },
  };
  const stored = await handled(settings.persistence, body);
  const text = texts(stored);
  assert(!text.includes("hunter2") && !text.includes("PEM"), text);
  assertStringIncludes(text, '\\"size\\":3');
  const essences = await loadEssences(settings.persistence, stored);
  assertEquals(diff(essences.old, essences.new), []);
});
