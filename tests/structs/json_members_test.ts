import fc from "fast-check";
import { assertEquals } from "../assert.ts";
import { memberString } from "../../src/structs/json_members.ts";

/** Printable ASCII without a quote or a backslash: a string JSON writes without escapes. */
function isPlain(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) return false;
  }
  return true;
}

/** What JSON.parse finds there, when it is a string. */
function parsed(text: string): string | undefined {
  const value = JSON.parse(text)?.metadata?.resourceVersion;
  return typeof value === "string" ? value : undefined;
}

Deno.test("memberString: a write's answer as the API server writes it", () => {
  const answer = JSON.stringify({
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: {
      annotations: { note: 'a "quoted" {brace} [bracket], "resourceVersion":"9"' },
      creationTimestamp: "2026-12-06T18:00:00Z",
      generation: 1,
      managedFields: [{ fieldsV1: { "f:status": { "f:resourceVersion": {} } }, manager: "kopf" }],
      name: "x",
      resourceVersion: "12345",
      uid: "u",
    },
    spec: { resourceVersion: "7" },
  });
  assertEquals(memberString(answer, "metadata", "resourceVersion"), "12345");
  assertEquals(
    memberString(JSON.stringify(JSON.parse(answer), null, 2), "metadata", "resourceVersion"),
    "12345",
  );
});

Deno.test("memberString: what it cannot read for sure is left to JSON.parse", () => {
  const cases = [
    "",
    "[]",
    '"metadata"',
    "{}",
    '{"metadata": 1}',
    '{"metadata": {"resourceVersion": 5}}',
    '{"metadata": {"resourceVersion": "1\\u0032"}}',
    '{"metadata": {"name": "x"}}',
    '{"spec": {"metadata": {"resourceVersion": "1"}}}',
    '{"metadata": {"resourceVersion": "1',
    '{"metadata" {"resourceVersion": "1"}}',
  ];
  for (const text of cases) {
    assertEquals(memberString(text, "metadata", "resourceVersion"), undefined, text);
  }
});

Deno.test("memberString: whatever it finds, JSON.parse finds the same (random objects)", () => {
  const member = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 });
  fc.assert(
    fc.property(
      member,
      member,
      fc.option(fc.string({ unit: "binary" })),
      fc.nat(4),
      fc.nat(4),
      fc.boolean(),
      (before, inside, version, at, innerAt, spaced) => {
        const metadata: Record<string, unknown> = {};
        const innerKeys = Object.keys(inside).filter((k) => k !== "resourceVersion");
        innerKeys.forEach((key, i) => {
          if (i === innerAt && version !== null) metadata.resourceVersion = version;
          metadata[key] = inside[key];
        });
        if (version !== null && !("resourceVersion" in metadata)) {
          metadata.resourceVersion = version;
        }
        const top: Record<string, unknown> = {};
        const topKeys = Object.keys(before).filter((k) => k !== "metadata");
        topKeys.forEach((key, i) => {
          if (i === at) top.metadata = metadata;
          top[key] = before[key];
        });
        if (!("metadata" in top)) top.metadata = metadata;
        const text = JSON.stringify(top, null, spaced ? 1 : undefined);
        const found = memberString(text, "metadata", "resourceVersion");
        if (found !== undefined) assertEquals(found, parsed(text));
        // A plain one is always found.
        if (version !== null && isPlain(version)) {
          assertEquals(found, version);
        }
      },
    ),
    { numRuns: 2000 },
  );
});
