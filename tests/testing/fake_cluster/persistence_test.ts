/**
 * A restarted fake cluster is the same server to its clients, as a restarted API server
 * is: with a state file, the CA and serving certificate, the admin's token and client
 * certificate, the tokens of users and service accounts and the port are kept, so that a
 * running client and the old kubeconfig reconnect. The file holds keys: mode 0600.
 */
import { ConfigurationError } from "../../../src/structs/errors.ts";
import { generateCertificateAuthority } from "../../../src/platform/certificates.ts";
import { FakeCluster } from "../../../src/testing/mod.ts";
import { ApiClient } from "../../../src/client/api.ts";
import { Vault } from "../../../src/client/vault.ts";
import { loginWithKubeconfig } from "../../../src/client/kubeconfig.ts";
import { createObject, getObject } from "../../../src/client/objects.ts";
import { assert, assertEquals, assertNotEquals, assertRejects } from "../../assert.ts";
import { available, run } from "../../platform/commands.ts";
import { configMap, rawRequest } from "./helpers.ts";
import { configmaps as CONFIGMAPS } from "../../fixtures/discovered.ts";

const hasKubectl = await available("kubectl", ["version", "--client"]);

async function withDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "kopf-fake-state-" });
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a client that knew the cluster reconnects after a restart from the state file", async () => {
  await withDir(async (dir) => {
    const state = `${dir}/state.json`;
    const first = await FakeCluster.start({ state, tls: true, rbac: true });
    const kubeconfig = await first.writeKubeconfig(`${dir}/kubeconfig`);
    const { port, caCertificate, token } = first;
    let logins = 0;
    const vault = new Vault({
      relogin: async () => {
        logins++;
        return { kubeconfig: await loginWithKubeconfig({ kubeconfig }) };
      },
    });
    await using api = new ApiClient(vault, { networking: { errorBackoffs: [0.05, 0.1, 0.2] } });
    await createObject(api, CONFIGMAPS, configMap("before"), { namespace: "default" });
    await first.stop();

    await using second = await FakeCluster.start({ state, tls: true, rbac: true });
    assertEquals(second.port, port, "the port of the last run, being free");
    assertEquals(second.caCertificate, caCertificate);
    assertEquals(second.token, token);
    // The same client, with its connections to the old server gone, goes on as it was.
    const kept = await getObject(api, CONFIGMAPS, { namespace: "default", name: "before" });
    assertEquals(kept.metadata?.name, "before");
    await createObject(api, CONFIGMAPS, configMap("after"), { namespace: "default" });
    assertEquals(logins, 1, "no new login was needed");
    assert(second.get("configmaps", "after"));
  });
});

Deno.test("the tokens of users and service accounts and the client certificate survive a restart", async () => {
  await withDir(async (dir) => {
    const state = `${dir}/state.json`;
    const options = { state, tls: true, rbac: true, clientCertificates: true, token: "admin" };
    const first = await FakeCluster.start(options);
    first.create({
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "op", namespace: "default" },
    });
    const alice = first.tokenFor({ user: "alice", groups: ["devs"] });
    const op = first.serviceAccountToken("default", "op");
    const client = first.clientCertificate;
    await first.stop();

    await using second = await FakeCluster.start(options);
    assertEquals(second.clientCertificate, client);
    const whoami = async (token: string) => {
      const reply = await rawRequest(
        second,
        "POST",
        "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        { authorization: `Bearer ${token}`, "content-type": "application/json" },
        JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }),
      );
      assertEquals(reply.status, 201, reply.body);
      return reply.body;
    };
    assert((await whoami(alice)).includes('"username":"alice"'));
    assert((await whoami(op)).includes('"username":"system:serviceaccount:default:op"'));
    // A service account's token still ends with its account.
    second.delete("serviceaccounts", "op");
    const gone = await rawRequest(second, "GET", "/api/v1/namespaces", {
      authorization: `Bearer ${op}`,
    });
    assertEquals(gone.status, 401);
  });
});

Deno.test("the state file is readable by its owner only, and holds the identity", async () => {
  await withDir(async (dir) => {
    const state = `${dir}/state.json`;
    await Deno.writeTextFile(state, "", { mode: 0o644 });
    await Deno.remove(state);
    const cluster = await FakeCluster.start({ state, tls: true });
    const token = cluster.token!;
    await cluster.stop();
    assertEquals((await Deno.stat(state)).mode! & 0o777, 0o600);
    const saved = JSON.parse(await Deno.readTextFile(state));
    assertEquals(saved.credentials.token, token);
    assertEquals(saved.credentials.ca.certPem, cluster.caCertificate);
    assert(saved.credentials.ca.keyPem.includes("PRIVATE KEY"));
    assert(saved.credentials.serving.keyPem.includes("PRIVATE KEY"));
    assertEquals(saved.credentials.port, cluster.port);
    // Saved again over a file of wider permissions, it is narrowed.
    await Deno.chmod(state, 0o644);
    await using again = await FakeCluster.start({ state, tls: true });
    await again.save();
    assertEquals((await Deno.stat(state)).mode! & 0o777, 0o600);
  });
});

Deno.test("another port is taken when the last one is in use; a CA about to expire is made anew", async () => {
  await withDir(async (dir) => {
    const state = `${dir}/state.json`;
    const first = await FakeCluster.start({ state, tls: true });
    await first.stop();
    const blocker = Deno.listen({ hostname: "127.0.0.1", port: first.port });
    try {
      await using second = await FakeCluster.start({ state, tls: true });
      assertNotEquals(second.port, first.port);
      assertEquals(second.caCertificate, first.caCertificate);
    } finally {
      blocker.close();
    }
    const saved = JSON.parse(await Deno.readTextFile(state));
    saved.credentials.ca = await generateCertificateAuthority({ days: 0.5 });
    await Deno.writeTextFile(state, JSON.stringify(saved));
    await using third = await FakeCluster.start({ state, tls: true });
    assertNotEquals(third.caCertificate, saved.credentials.ca.certPem);
    assertNotEquals(third.caCertificate, first.caCertificate);
    assertEquals(third.token, first.token, "the token does not depend on the CA");
  });
});

Deno.test("malformed credentials in a state file are refused with a clear message", async () => {
  await withDir(async (dir) => {
    const state = `${dir}/state.json`;
    await Deno.writeTextFile(
      state,
      JSON.stringify({
        format: "kopf.dev/fake-cluster-state/v1",
        resourceVersion: 1,
        objects: [],
        credentials: { ca: "not a certificate" },
      }),
    );
    await assertRejects(
      () => FakeCluster.start({ state, tls: true }),
      ConfigurationError,
      'malformed credentials: the CA is not a certificate with its key; remove its "credentials"',
    );
  });
});

Deno.test({
  name: "kubectl with the kubeconfig of the last run works after a restart",
  ignore: !hasKubectl,
  async fn() {
    await withDir(async (dir) => {
      const state = `${dir}/state.json`;
      const first = await FakeCluster.start({ state, tls: true, clientCertificates: true });
      const kubeconfig = await first.writeKubeconfig(`${dir}/kubeconfig`);
      first.create(configMap("kept", { a: "1" }));
      await first.stop();
      await using _second = await FakeCluster.start({
        state,
        tls: true,
        clientCertificates: true,
      });
      const args = [`--kubeconfig=${kubeconfig}`, `--cache-dir=${dir}/cache`];
      const got = await run("kubectl", [...args, "get", "configmap", "kept", "-o", "json"]);
      assertEquals(got.code, 0, got.stderr);
      assertEquals(JSON.parse(got.stdout).data, { a: "1" });
    });
  },
});
