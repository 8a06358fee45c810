import fc from "fast-check";
import { assertEquals, assertThrows } from "../assert.ts";
import { memberString, modifiedObjectVersion } from "../../src/structs/json_members.ts";

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

Deno.test("memberString: long strings with escapes at every place", () => {
  // The random objects' strings are short: here strings of 30 to 90 characters (as an
  // annotation's or a managed field's are), with an escaped quote, an escaped backslash, or
  // an escaped backslash before an escaped quote at every place in them.
  const escapes = ['\\"', "\\\\", '\\\\\\"'];
  for (let length = 30; length <= 90; length++) {
    for (const escape of escapes) {
      for (let at = 0; at <= length; at++) {
        const raw = "a".repeat(at) + escape + "b".repeat(length - at);
        const text = `{"k":"${raw}","metadata":{"${raw}":"${raw}","resourceVersion":"42"}}`;
        assertEquals(JSON.parse(text).metadata.resourceVersion, "42", text);
        assertEquals(memberString(text, "metadata", "resourceVersion"), "42", text);
      }
    }
    // An escaped quote taken for the end would find a member where there is none (the text is
    // not JSON): nothing is found.
    const broken = `{"metadata":{"a":"${"x".repeat(length)}\\","resourceVersion":"42"}}`;
    assertThrows(() => JSON.parse(broken));
    assertEquals(memberString(broken, "metadata", "resourceVersion"), undefined, broken);
  }
});

/** What JSON.parse finds of a MODIFIED event's object, as modifiedObjectVersion tells it. */
function parsedVersion(line: string): unknown {
  const event = JSON.parse(line);
  const meta = event?.object?.metadata;
  if (event?.type !== "MODIFIED" || typeof meta !== "object" || meta === null) return undefined;
  const { namespace, uid, resourceVersion } = meta;
  return { namespace, uid, resourceVersion };
}

Deno.test("modifiedObjectVersion: a MODIFIED event as the API server writes it, keys sorted or not", () => {
  const object = {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: {
      annotations: { note: '"uid":"not-this","resourceVersion":"9"' },
      creationTimestamp: "2026-12-07T13:00:00Z",
      managedFields: [{ fieldsV1: { "f:metadata": { "f:uid": {} } }, manager: "kopf" }],
      name: "x",
      namespace: "ns",
      // Before the object's own uid in sorted order: a nested uid is not the object's.
      ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "p", uid: "owner-uid" }],
      resourceVersion: "12345",
      uid: "object-uid",
    },
    spec: { uid: "spec-uid", resourceVersion: "7" },
    status: { resourceVersion: "8" },
  };
  const expected = { namespace: "ns", uid: "object-uid", resourceVersion: "12345" };
  const sorted = JSON.stringify({ type: "MODIFIED", object });
  assertEquals(modifiedObjectVersion(sorted), expected);
  // The fake cluster's order: the metadata last, its uid before the owners'.
  const { metadata, ...rest } = object;
  const { uid, ...meta } = metadata;
  const last = JSON.stringify({
    type: "MODIFIED",
    object: { ...rest, metadata: { uid, ...meta } },
  });
  assertEquals(modifiedObjectVersion(last), expected);
  // Cluster-scoped: no namespace.
  const { namespace: _, ...clusterMeta } = metadata;
  const cluster = JSON.stringify({ type: "MODIFIED", object: { ...rest, metadata: clusterMeta } });
  assertEquals(modifiedObjectVersion(cluster), { ...expected, namespace: undefined });
});

Deno.test("modifiedObjectVersion: what it cannot read for sure is left to JSON.parse", () => {
  const meta = (inner: string) => `{"type":"MODIFIED","object":{"metadata":{${inner}}}}`;
  const cases = [
    "",
    "{}",
    '{"type":"ADDED","object":{"metadata":{"uid":"u","resourceVersion":"1"}}}',
    '{"type":"DELETED","object":{"metadata":{"uid":"u","resourceVersion":"1"}}}',
    // The type after the object: not as the API server writes it.
    '{"object":{"metadata":{"uid":"u","resourceVersion":"1"}},"type":"MODIFIED"}',
    '{"type": "MODIFIED","object":{"metadata":{"uid":"u","resourceVersion":"1"}}}',
    '{"type":"MODIFIED","object":null}',
    '{"type":"MODIFIED","object":{"metadata":null}}',
    '{"type":"MODIFIED","object":{"spec":{"metadata":{"uid":"u","resourceVersion":"1"}}}}',
    meta(""),
    meta('"uid":"u"'),
    meta('"resourceVersion":"1"'),
    meta('"uid":"","resourceVersion":"1"'),
    meta('"uid":"u","resourceVersion":""'),
    meta('"uid":"u","resourceVersion":1'),
    meta('"uid":"u","resourceVersion":"1","namespace":7'),
    meta('"uid":"\\u0075","resourceVersion":"1"'),
    meta('"uid":"u","resourceVersion":"1","uid":"v"'),
    meta('"uid":"u","resourceVersion":"1","resourceVersion":"2"'),
    meta('"namespace":"a","uid":"u","resourceVersion":"1","namespace":"b"'),
    meta('"uid":"u","resourceVersion":"1"').slice(0, -3),
    meta('"uid" "u","resourceVersion":"1"'),
  ];
  for (const line of cases) assertEquals(modifiedObjectVersion(line), undefined, line);
});

Deno.test("modifiedObjectVersion: whatever it finds, JSON.parse finds the same (random objects)", () => {
  const member = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 });
  const plainOr = fc.option(fc.oneof(fc.string({ unit: "binary", minLength: 1 }), fc.jsonValue()));
  fc.assert(
    fc.property(
      member,
      member,
      plainOr,
      plainOr,
      plainOr,
      fc.nat(4),
      (others, inside, namespace, uid, version, at) => {
        const metadata: Record<string, unknown> = {};
        const fields: [string, unknown][] = [];
        if (namespace !== null) fields.push(["namespace", namespace]);
        if (uid !== null) fields.push(["uid", uid]);
        if (version !== null) fields.push(["resourceVersion", version]);
        const innerKeys = Object.keys(inside).filter((k) => !fields.some(([f]) => f === k));
        innerKeys.forEach((key, i) => {
          if (i === at) { for (const [f, v] of fields) metadata[f] = v; }
          metadata[key] = inside[key];
        });
        for (const [f, v] of fields) if (!(f in metadata)) metadata[f] = v;
        const object: Record<string, unknown> = { ...others, metadata };
        const line = JSON.stringify({ type: "MODIFIED", object });
        const found = modifiedObjectVersion(line);
        if (found !== undefined) assertEquals(found, parsedVersion(line));
        // Plain strings (a namespace, or none) are always found.
        const plain = (v: unknown) => typeof v === "string" && v !== "" && isPlain(v);
        if (plain(uid) && plain(version) && (namespace === null || plain(namespace))) {
          assertEquals(found, parsedVersion(line));
        }
      },
    ),
    { numRuns: 2000 },
  );
});
