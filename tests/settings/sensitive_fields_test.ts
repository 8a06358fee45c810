/**
 * Sensitive fields: which paths of an object are sensitive, how their values become
 * digests, and how log lines mask them.
 */
import { assert, assertEquals, assertMatch, assertNotEquals } from "../assert.ts";
import type { RawBody } from "../../mod.ts";
import {
  digestEssence,
  digestKey,
  digestValue,
  isDigest,
  maskDigests,
  sensitivePaths,
} from "../../src/settings/sensitive_fields.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);

function secret(uid: string, data: Record<string, string>): RawBody {
  return { apiVersion: "v1", kind: "Secret", metadata: { name: "s", uid }, data };
}

// Expected values from Python: "kopf-digest:v1:" + base64url (unpadded) of
// hashlib.blake2b(json.dumps([*trail, value], separators=(",", ":")).encode(),
// key=uid.encode(), digest_size=32).digest().
Deno.test("a digest is keyed BLAKE2b-256 over the path and the value, in base64url", () => {
  assertEquals(
    digestValue(utf8("3f1c-uid"), ["data", "password"], "czNjcjN0"),
    "kopf-digest:v1:I6COE71QyKCtzuDbrGf8L-z6uRmCmxNwp6SjAyKsxCc",
  );
  assertEquals(
    digestValue(utf8(""), ["spec", "n"], 1.5),
    "kopf-digest:v1:uI_hxecsMJ1Wero0mc7zSjwBxc4nln3TmJujczj-bX4",
  );
  assertMatch(digestValue(utf8("u"), ["x"], "v"), /^kopf-digest:v1:[A-Za-z0-9_-]{43}$/);
});

Deno.test("equal values give different digests on different objects and under different keys", () => {
  const a = digestValue(digestKey(secret("uid-a", {})), ["data", "p"], "c2VjcmV0");
  const b = digestValue(digestKey(secret("uid-b", {})), ["data", "p"], "c2VjcmV0");
  const c = digestValue(digestKey(secret("uid-a", {})), ["data", "q"], "c2VjcmV0");
  assertNotEquals(a, b);
  assertNotEquals(a, c);
  assertEquals(a, digestValue(digestKey(secret("uid-a", {})), ["data", "p"], "c2VjcmV0"));
  // A uid longer than BLAKE2b's 64-byte key is hashed into one.
  assertEquals(digestKey(secret("u".repeat(100), {})).length, 64);
});

Deno.test("Secrets' data and stringData are sensitive; other objects' nothing unless set", () => {
  const plain: RawBody = { apiVersion: "v1", kind: "ConfigMap", data: { a: "b" } };
  const none = sensitivePaths(plain, []);
  assertEquals(none, []);
  assert(sensitivePaths(plain, undefined) === none, "the same empty list, nothing made");
  assertEquals(sensitivePaths(secret("u", {}), []), [["data"], ["stringData"]]);
  // A Secret of another group is not the core one.
  assertEquals(sensitivePaths({ apiVersion: "x.io/v1", kind: "Secret" }, []), []);
  const fields = ["spec.password", ["spec", "tls.crt"], "data.key", "spec.password.inner"];
  assertEquals(sensitivePaths(plain, fields), [
    ["spec", "password"],
    ["spec", "tls.crt"],
    ["data", "key"],
  ]);
  // Paths within another are dropped: a value is digested once, never its digest again.
  assertEquals(sensitivePaths(secret("u", {}), fields), [
    ["data"],
    ["stringData"],
    ["spec", "password"],
    ["spec", "tls.crt"],
  ]);
  assert(sensitivePaths(plain, fields) === sensitivePaths(plain, fields), "parsed once");
  fields.push("spec.token"); // changed in place: parsed again
  assertEquals(sensitivePaths(plain, fields).length, 4);
});

Deno.test("digesting replaces every value under the paths, keeps the keys, copies along", () => {
  const essence: RawBody = {
    data: { password: "czNjcjN0", "tls.crt": "Y2VydA==" },
    spec: { creds: { user: "admin", nested: { pin: 1234 }, list: ["a"] }, other: "plain" },
    metadata: { labels: { app: "x" } },
  };
  const snapshot = structuredClone(essence);
  const key = utf8("uid-1");
  const { essence: digested, plain } = digestEssence(
    essence,
    [["data"], ["spec", "creds"], ["spec", "absent"], ["metadata", "missing", "deep"]],
    key,
  );
  assertEquals(essence, snapshot, "the input is untouched");
  assertEquals(plain, false);
  assertEquals(digested, {
    data: {
      password: digestValue(key, ["data", "password"], "czNjcjN0"),
      "tls.crt": digestValue(key, ["data", "tls.crt"], "Y2VydA=="),
    },
    spec: {
      creds: {
        user: digestValue(key, ["spec", "creds", "user"], "admin"),
        nested: { pin: digestValue(key, ["spec", "creds", "nested", "pin"], 1234) },
        list: digestValue(key, ["spec", "creds", "list"], ["a"]),
      },
      other: "plain",
    },
    metadata: { labels: { app: "x" } },
  });
  assert(digested.metadata === essence.metadata, "what lies off the paths is shared");
  assertEquals(Object.keys(digested), ["data", "spec", "metadata"], "the key order is kept");
});

Deno.test("a key named __proto__ stays a key of its own", () => {
  const data = JSON.parse('{"__proto__":"c2VjcmV0"}');
  const { essence } = digestEssence({ data }, [["data"]], utf8("u"));
  const digested = essence.data as Record<string, unknown>;
  assert(Object.hasOwn(digested, "__proto__"));
  assert(isDigest(digested["__proto__"]));
  assertEquals(Object.getPrototypeOf(digested), Object.prototype);
});

Deno.test("a stored essence keeps its digests and digests the plain values it holds", () => {
  const key = utf8("uid-1");
  const current = digestEssence({ data: { a: "YQ==", b: "Yg==" } }, [["data"]], key).essence;
  const stored = digestEssence(current, [["data"]], key, true);
  assertEquals(stored, { essence: current, plain: false }, "digests are not digested again");
  const legacy = digestEssence({ data: { a: "YQ==", b: "Yg==" } }, [["data"]], key, true);
  assertEquals(legacy, { essence: current, plain: true });
  const mixed = digestEssence(
    { data: { a: (current.data as Record<string, string>).a, b: "Yg==" } },
    [["data"]],
    key,
    true,
  );
  assertEquals(mixed, { essence: current, plain: true });
});

Deno.test("log lines mask digests, also inside JSON kept as a string", () => {
  const digest = digestValue(utf8("u"), ["data", "p"], "c2VjcmV0");
  const diff = JSON.stringify([["change", ["data", "p"], digest, digest]]);
  assertEquals(maskDigests(diff), '[["change",["data","p"],"***","***"]]');
  const nested = JSON.stringify({ annotation: JSON.stringify({ data: { p: digest } }) });
  assertEquals(maskDigests(nested), '{"annotation":"{\\"data\\":{\\"p\\":\\"***\\"}}"}');
  const untouched = '[["change",["spec","a"],1,2]]';
  assert(maskDigests(untouched) === untouched);
});
