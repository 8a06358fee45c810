/**
 * The direct (client-less) API of FakeCluster, kubeconfig and connection info, TLS, and
 * the state file.
 */
import { FakeApiError, FakeCluster } from "../../../src/testing/mod.ts";
import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
  assertThrows,
} from "../../assert.ts";
import { configMap, exampleCrd } from "./helpers.ts";
import { ConfigurationError } from "../../../src/structs/errors.ts";

Deno.test("direct create/get/list/patch/replace/delete work without a client", async () => {
  await using cluster = await FakeCluster.start();
  const created = cluster.create(configMap("a", { k: "v" }, { labels: { app: "x" } }));
  assertEquals(created.metadata?.namespace, "default");
  assertEquals(cluster.get("configmaps", "a")?.data, { k: "v" });
  assertEquals(cluster.get("cm", "missing"), undefined);
  assertEquals(cluster.list("configmap", { labelSelector: "app=x" }).length, 1);
  assertEquals(
    cluster.list({ apiVersion: "v1", kind: "ConfigMap" }, { allNamespaces: true }).length,
    1,
  );
  assertEquals(cluster.patch("configmaps", "a", { data: { k: "w" } }).data, { k: "w" });
  const replaced = cluster.replace({ ...configMap("a", { z: "1" }) });
  assertEquals(replaced.data, { z: "1" });
  assertEquals(cluster.delete("configmaps", "a"), undefined);
  assertEquals(cluster.list("configmaps"), []);
});

Deno.test("direct calls fail like the API: FakeApiError with code and reason", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(configMap("a"));
  const error = assertThrows(() => cluster.create(configMap("a")), FakeApiError);
  assertEquals([error.code, error.reason], [409, "AlreadyExists"]);
  assertThrows(() => cluster.get("nothings", "a"), FakeApiError, "no resource named");
  assertThrows(() => cluster.patch("configmaps", "zzz", {}), FakeApiError, "not found");
});

Deno.test("resources resolve by plural, singular, kind, short name, plural.group and plural.version.group", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(exampleCrd());
  cluster.create({
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "e" },
    spec: {},
  });
  for (
    const name of [
      "kopfexamples",
      "kopfexample",
      "KopfExample",
      "kex",
      "kopfexamples.kopf.dev",
      "kopfexamples.v1.kopf.dev",
    ]
  ) {
    assertEquals(cluster.get(name, "e")?.metadata?.name, "e", name);
  }
  assertEquals(cluster.get("deployments.apps", "none"), undefined);
});

Deno.test("waitFor resolves on the change that satisfies it, including deletion; times out clearly", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(configMap("a", {}, { finalizers: ["x/y"] }));
  const labelled = cluster.waitFor("configmaps", "a", (o) => o?.metadata?.labels?.ready === "yes");
  cluster.patch("configmaps", "a", { metadata: { labels: { ready: "yes" } } });
  assertEquals((await labelled)?.metadata?.labels, { ready: "yes" });
  const gone = cluster.waitFor("configmaps", "a", (o) => o === undefined);
  cluster.delete("configmaps", "a");
  cluster.patch("configmaps", "a", { metadata: { finalizers: null } });
  assertEquals(await gone, undefined);
  await assertRejects(
    () => cluster.waitFor("configmaps", "never", (o) => o !== undefined, { timeout: 0.05 }),
    Error,
    'configmaps "never" in namespace default',
  );
});

Deno.test("the kubeconfig and connection info point at the cluster", async () => {
  await using cluster = await FakeCluster.start({ token: "t0k" });
  const path = await cluster.writeKubeconfig();
  const text = await Deno.readTextFile(path);
  assertEquals(text, cluster.kubeconfig);
  assertStringIncludes(text, `server: ${cluster.url}`);
  assertStringIncludes(text, "token: t0k");
  assertEquals(cluster.connectionInfo.server, cluster.url);
  assertEquals(cluster.connectionInfo.token, "t0k");
  await cluster.stop();
  await assertRejects(() => Deno.stat(path), Deno.errors.NotFound, undefined);
});

Deno.test("TLS: HTTPS with the generated CA, a token by default, the CA in kubeconfig and connection info", async () => {
  await using cluster = await FakeCluster.start({ tls: true });
  assert(cluster.url.startsWith("https://127.0.0.1:"));
  assert(cluster.token, "a token is made up by default with TLS");
  assertStringIncludes(cluster.kubeconfig, "certificate-authority-data:");
  const ca = cluster.connectionInfo.caData!;
  assertStringIncludes(ca, "BEGIN CERTIFICATE");
  const client = Deno.createHttpClient({ caCerts: [ca] });
  try {
    const response = await fetch(`${cluster.url}/api/v1/namespaces`, {
      client,
      headers: { authorization: `Bearer ${cluster.token}` },
    });
    assertEquals(response.status, 200);
    assertEquals((await response.json()).items.length, 3);
    const anonymous = await fetch(`${cluster.url}/api/v1/namespaces`, { client });
    assertEquals(anonymous.status, 401);
    await anonymous.body?.cancel();
  } finally {
    client.close();
  }
});

Deno.test("the state file keeps objects, CRDs and the resourceVersion across restarts", async () => {
  const dir = await Deno.makeTempDir();
  const state = `${dir}/state.json`;
  try {
    const first = await FakeCluster.start({ state });
    first.create(exampleCrd());
    first.create({
      apiVersion: "kopf.dev/v1",
      kind: "KopfExample",
      metadata: { name: "e" },
      spec: { field: "x" },
    });
    first.create(configMap("c", { k: "v" }));
    const rv = first.resourceVersion;
    const uid = first.get("configmaps", "c")?.metadata?.uid;
    await first.stop();
    await using second = await FakeCluster.start({ state });
    assertEquals(second.get("configmaps", "c")?.metadata?.uid, uid);
    assertEquals(second.get("kopfexamples.kopf.dev", "e")?.spec, { field: "x", replicas: 1 });
    assertEquals(second.resourceVersion, rv);
    assertEquals(second.list("namespaces").length, 3, "no duplicate namespaces");
    second.create(configMap("d"));
    assert(Number(second.resourceVersion) > Number(rv));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a state file that is not ours is refused with a clear message", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/s.json`, '{"hello": 1}');
    await assertRejects(
      () => FakeCluster.start({ state: `${dir}/s.json` }),
      ConfigurationError,
      "not a fake cluster state file",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("client certificates from the cluster's CA authenticate; requests without one get 401", async () => {
  await using cluster = await FakeCluster.start({ tls: true, clientCertificates: true });
  assertEquals(cluster.token, undefined, "the certificate is the credential");
  const info = cluster.connectionInfo;
  assertStringIncludes(info.certificateData!, "BEGIN CERTIFICATE");
  assertStringIncludes(cluster.kubeconfig, "client-certificate-data:");
  const withCert = Deno.createHttpClient({
    caCerts: [info.caData!],
    cert: info.certificateData!,
    key: info.privateKeyData!,
  });
  const without = Deno.createHttpClient({ caCerts: [info.caData!] });
  try {
    const ok = await fetch(`${cluster.url}/api/v1/namespaces`, { client: withCert });
    assertEquals(ok.status, 200);
    await ok.body?.cancel();
    const anonymous = await fetch(`${cluster.url}/api/v1/namespaces`, { client: without });
    assertEquals(anonymous.status, 401);
    await anonymous.body?.cancel();
  } finally {
    withCert.close();
    without.close();
  }
});

Deno.test("clientCertificates without tls is refused with a clear message", async () => {
  await assertRejects(
    () => FakeCluster.start({ clientCertificates: true }),
    ConfigurationError,
    "needs tls: true",
  );
});
