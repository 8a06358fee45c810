/**
 * Secrets as the API server reads them: `stringData` merged into `data` as base64 (and
 * winning over it) on create, update and every kind of patch, never stored nor returned;
 * `data` checked as base64; `type` defaulted and immutable. Over HTTP, with the project's
 * client and with kubectl.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { ApiClient } from "../../../src/client/api.ts";
import { Vault } from "../../../src/client/vault.ts";
import { createObject, patchObject, replaceObject } from "../../../src/client/objects.ts";
import { Resource } from "../../../src/structs/resources.ts";
import { assert, assertEquals, assertStringIncludes } from "../../assert.ts";
import { available, run } from "../../platform/commands.ts";
import { call } from "./helpers.ts";
import { quote } from "../../doc_quotes.ts";

const hasKubectl = await available("kubectl", ["version", "--client"]);
const SECRETS = "/api/v1/namespaces/default/secrets";
const SECRET = new Resource({ group: "", version: "v1", plural: "secrets", namespaced: true });

/** Base64 of the UTF-8 of a text. */
function b64(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}

function secret(name: string, fields: Record<string, unknown>) {
  return { apiVersion: "v1", kind: "Secret", metadata: { name }, ...fields };
}

Deno.test("stringData is merged into data on create, wins over it, and is neither stored nor returned", async () => {
  await using cluster = await FakeCluster.start();
  const created = await call(
    cluster,
    "POST",
    SECRETS,
    secret("s", {
      data: { a: b64("from data"), b: b64("kept") },
      stringData: { a: "wins", c: "héllo ✓" },
    }),
  );
  assertEquals(created.status, 201, JSON.stringify(created.body));
  const expected = { a: b64("wins"), b: b64("kept"), c: b64("héllo ✓") };
  assertEquals(created.body.data, expected);
  assertEquals(created.body.type, "Opaque");
  assert(!("stringData" in created.body));
  const got = await call(cluster, "GET", `${SECRETS}/s`);
  assertEquals(got.body.data, expected);
  assert(!("stringData" in got.body));
  assert(!("stringData" in cluster.get("secrets", "s")!));
  // The direct API reads Secrets the same way.
  const direct = cluster.create(secret("d", { stringData: { x: "y" } }));
  assertEquals([direct.data, direct.stringData], [{ x: b64("y") }, undefined]);
});

Deno.test("stringData is merged on update and on merge, strategic and JSON patches", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(secret("s", { data: { a: b64("1") } }));
  const rv = cluster.get("secrets", "s")!.metadata!.resourceVersion;
  const put = await call(
    cluster,
    "PUT",
    `${SECRETS}/s`,
    secret("s", {
      metadata: { name: "s", resourceVersion: rv },
      data: { a: b64("1") },
      stringData: { b: "2" },
    }),
  );
  assertEquals(put.status, 200, JSON.stringify(put.body));
  assertEquals(put.body.data, { a: b64("1"), b: b64("2") });
  for (
    const [type, patch, key, value] of [
      ["application/merge-patch+json", { stringData: { c: "3" } }, "c", "3"],
      ["application/strategic-merge-patch+json", { stringData: { d: "4" } }, "d", "4"],
      [
        "application/json-patch+json",
        [{ op: "add", path: "/stringData", value: { e: "5" } }],
        "e",
        "5",
      ],
    ] as const
  ) {
    const patched = await call(cluster, "PATCH", `${SECRETS}/s`, patch, { "content-type": type });
    assertEquals(patched.status, 200, `${type}: ${JSON.stringify(patched.body)}`);
    assertEquals(patched.body.data[key], b64(value), type);
    assert(!("stringData" in patched.body), type);
  }
  const stored = cluster.get("secrets", "s")!.data as Record<string, string>;
  assertEquals(Object.keys(stored).sort(), ["a", "b", "c", "d", "e"]);
  // A dry run answers the merged object and stores nothing.
  const dry = await call(cluster, "PATCH", `${SECRETS}/s?dryRun=All`, { stringData: { f: "6" } }, {
    "content-type": "application/merge-patch+json",
  });
  assertEquals(dry.body.data.f, b64("6"));
  assertEquals((cluster.get("secrets", "s")!.data as Record<string, string>).f, undefined);
});

Deno.test("Secrets: data must be base64, stringData strings, keys config keys; type is immutable", async () => {
  await using cluster = await FakeCluster.start();
  const badData = await call(cluster, "POST", SECRETS, secret("x", { data: { a: "not base64!" } }));
  assertEquals([badData.status, badData.body.reason], [400, "BadRequest"]);
  // In the words docs/testing.md quotes.
  const words = await quote("testing.md", "cannot be handled as a ");
  assertStringIncludes(badData.body.message, `${words}: illegal base64 data`);
  const badString = await call(cluster, "POST", SECRETS, secret("x", { stringData: { a: 1 } }));
  assertEquals(badString.status, 400);
  assertStringIncludes(badString.body.message, "Secret.stringData of type string");
  const badKey = await call(cluster, "POST", SECRETS, secret("x", { stringData: { "a b": "1" } }));
  assertEquals([badKey.status, badKey.body.reason], [422, "Invalid"]);
  assertStringIncludes(badKey.body.message, "a valid config key");
  // Line breaks in base64 are skipped, as Go's decoder skips them.
  const wrapped = await call(cluster, "POST", SECRETS, secret("w", { data: { a: "aGVs\nbG8=" } }));
  assertEquals(wrapped.body.data, { a: b64("hello") });
  cluster.create(secret("t", { type: "kubernetes.io/basic-auth", stringData: { username: "u" } }));
  const retyped = await call(cluster, "PATCH", `${SECRETS}/t`, { type: "Opaque" }, {
    "content-type": "application/merge-patch+json",
  });
  assertEquals(retyped.status, 422);
  assertStringIncludes(retyped.body.message, "type: Invalid value");
});

Deno.test("the project's client writes stringData and reads data back", async () => {
  await using cluster = await FakeCluster.start();
  const vault = new Vault({ relogin: () => Promise.resolve({ fake: cluster.connectionInfo }) });
  await using api = new ApiClient(vault);
  const ref = { namespace: "default", name: "c" };
  const created = await createObject(api, SECRET, secret("c", { stringData: { a: "1" } }), {
    namespace: "default",
  });
  assertEquals([created.data, created.stringData], [{ a: b64("1") }, undefined]);
  const patched = await patchObject(api, SECRET, ref, { stringData: { a: "2" } });
  assertEquals(patched.data, { a: b64("2") });
  const replaced = await replaceObject(
    api,
    SECRET,
    ref,
    secret("c", { metadata: { name: "c" }, stringData: { b: "3" } }),
  );
  assertEquals(replaced.data, { b: b64("3") }, "a PUT replaces data, then merges stringData");
});

Deno.test({
  name: "kubectl apply of a Secret with stringData, then get: data in base64, no stringData",
  ignore: !hasKubectl,
  async fn() {
    await using cluster = await FakeCluster.start({ tls: true });
    const kubeconfig = await cluster.writeKubeconfig();
    const dir = kubeconfig.slice(0, kubeconfig.lastIndexOf("/"));
    const kubectl = async (stdin: string | undefined, ...args: string[]) => {
      const result = await run(
        "kubectl",
        [`--kubeconfig=${kubeconfig}`, `--cache-dir=${dir}/cache`, ...args],
        { stdin },
      );
      assertEquals(result.code, 0, `kubectl ${args.join(" ")}: ${result.stderr}`);
      return result.stdout;
    };
    const manifest = (value: string) =>
      `apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData: {password: ${value}}\n`;
    await kubectl(manifest("first"), "apply", "-f", "-");
    let got = JSON.parse(await kubectl(undefined, "get", "secret", "creds", "-o", "json"));
    assertEquals(got.data, { password: b64("first") });
    assertEquals([got.stringData, got.type], [undefined, "Opaque"]);
    await kubectl(manifest("second"), "apply", "-f", "-");
    got = JSON.parse(await kubectl(undefined, "get", "secret", "creds", "-o", "json"));
    assertEquals(got.data, { password: b64("second") });
    const decoded = await kubectl(
      undefined,
      "get",
      "secret",
      "creds",
      "-o",
      "jsonpath={.data.password}",
    );
    assertEquals(atob(decoded), "second");
  },
});
