/**
 * Webhook servers over real HTTPS: self-signed certificates and their CA bundle, given
 * certificates, routing by handler id, bad requests, client certificates, the K3d and
 * Minikube host names, auto-detection, and the tunnels' refusal.
 */
import {
  describeCertificate,
  generateCertificateAuthority,
  issueClientCertificate,
  issueServerCertificate,
} from "../../src/platform/certificates.ts";
import { createHttpClient } from "../../src/platform/http_client.ts";
import {
  WebhookAutoServer,
  WebhookAutoTunnel,
  WebhookK3dServer,
  WebhookMinikubeServer,
  WebhookNgrokTunnel,
  WebhookServer,
  type WebhookServerOptions,
} from "../../src/kits/webhooks.ts";
import {
  AdmissionRequestError,
  type AdmissionServerContext,
  type AdmissionServerLimits,
  admissionServerLimits,
  type ClusterFacts,
  type WebhookClientConfig,
  type WebhookFn,
  type WebhookRequestInfo,
} from "../../src/engines/webhook_servers.ts";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import { ConfigurationError } from "../../src/structs/errors.ts";

const quiet = { debug() {}, info() {}, warning() {}, error() {} };

/** Calls of the fake engine, and the fake engine answering them. */
function engine() {
  const calls: { request: unknown; info: WebhookRequestInfo }[] = [];
  const fn: WebhookFn = (request, info = {}) => {
    calls.push({ request, info });
    if ((request as { fail?: boolean }).fail) {
      return Promise.reject(new AdmissionRequestError("not a review"));
    }
    return Promise.resolve({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid: "u1", allowed: true, warnings: [String(info.webhook)] },
    });
  };
  return { calls, fn };
}

/** Start a server; returns its client config and a stopper. */
async function start(
  server: { serve: WebhookServer["serve"] },
  fn: WebhookFn,
  cluster?: ClusterFacts,
  limits?: AdmissionServerLimits,
): Promise<{ config: WebhookClientConfig } & AsyncDisposable> {
  const controller = new AbortController();
  const context: AdmissionServerContext = {
    signal: controller.signal,
    logger: quiet,
    cluster,
    limits,
  };
  const iterator = server.serve(fn, context);
  const first = await iterator.next();
  assert(!first.done);
  return {
    config: first.value,
    async [Symbol.asyncDispose]() {
      controller.abort();
      await iterator.return(undefined);
    },
  };
}

async function post(
  url: string,
  body: unknown,
  options: { ca?: string; certificate?: string; privateKey?: string; method?: string } = {},
) {
  const client = await createHttpClient({
    caCertificates: options.ca ? [options.ca] : [],
    certificate: options.certificate,
    privateKey: options.privateKey,
  });
  try {
    const response = await client.fetch(url, {
      method: options.method ?? "POST",
      headers: { "content-type": "application/json", authorization: "Bearer t0k" },
      body: options.method === "GET"
        ? undefined
        : typeof body === "string"
        ? body
        : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  } finally {
    await client.close();
  }
}

Deno.test("a server without certificates makes a CA and serves HTTPS that it verifies", async () => {
  const dir = await Deno.makeTempDir();
  const cadump = `${dir}/ca.pem`;
  const { calls, fn } = engine();
  const server = new WebhookServer({ port: 0, path: "/hooks", cadump });
  await using running = await start(server, fn);
  const { url, caBundle } = running.config;
  assert(url !== undefined && caBundle !== undefined);
  assert(url.startsWith("https://127.0.0.1:"), url);
  assert(url.endsWith("/hooks"), url);
  const ca = atob(caBundle);
  assertEquals(await Deno.readTextFile(cadump), ca);
  assertEquals(server.caBundle, ca);
  assert(describeCertificate(ca).isCa);

  const answer = await post(`${url}/check_numbers`, { request: { uid: "u1" } }, { ca });
  assertEquals(answer.status, 200);
  assertEquals(answer.body.response.warnings, ["check_numbers"]);
  assertEquals(calls[0].request, { request: { uid: "u1" } });
  assertEquals(calls[0].info.webhook, "check_numbers");
  assertEquals(calls[0].info.headers?.authorization, "Bearer t0k");
  assertEquals(calls[0].info.sslpeer, null);
  // The bare path runs all handlers; ids are URL-decoded.
  await post(url, {}, { ca });
  assertEquals(calls[1].info.webhook, undefined);
  await post(`${url}/a%2Fb`, {}, { ca });
  assertEquals(calls[2].info.webhook, "a/b");
  // Elsewhere, other methods, bad JSON and non-reviews are refused.
  assertEquals((await post(`${url.replace("/hooks", "/other")}/x`, {}, { ca })).status, 404);
  assertEquals((await post(`${url}/x`, undefined, { ca, method: "GET" })).status, 405);
  assertEquals((await post(`${url}/x`, "{not json", { ca })).status, 400);
  const refused = await post(`${url}/x`, { fail: true }, { ca });
  assertEquals(refused.status, 400);
  assertStringIncludes(refused.body.message, "not a review");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("given certificates are served, and the given CA goes to the client config", async () => {
  const authority = await generateCertificateAuthority({ commonName: "my-ca" });
  const cert = await issueServerCertificate(authority, { hostnames: ["127.0.0.1"] });
  const { fn } = engine();
  const server = new WebhookServer({
    port: 0,
    certdata: cert.certPem,
    pkeydata: cert.keyPem,
    cadata: authority.certPem,
  });
  await using running = await start(server, fn);
  assertEquals(atob(running.config.caBundle!), authority.certPem);
  assertEquals((await post(`${running.config.url}/x`, {}, { ca: authority.certPem })).status, 200);
});

Deno.test("a verified client certificate reaches the handlers as sslpeer", async () => {
  const clients = await generateCertificateAuthority({ commonName: "clients" });
  const client = await issueClientCertificate(clients, {
    commonName: "apiserver",
    organizations: ["system:masters"],
  });
  const { calls, fn } = engine();
  await using running = await start(
    new WebhookServer({ port: 0, verifyCadata: clients.certPem }),
    fn,
  );
  const ca = atob(running.config.caBundle!);
  await post(`${running.config.url}/x`, {}, {
    ca,
    certificate: client.certPem,
    privateKey: client.keyPem,
  });
  assertEquals(calls[0].info.sslpeer, {
    commonName: "apiserver",
    organizations: ["system:masters"],
  });
  await post(`${running.config.url}/x`, {}, { ca });
  assertEquals(calls[1].info.sslpeer, null);
});

Deno.test("an insecure server serves plain HTTP without a CA bundle", async () => {
  const { calls, fn } = engine();
  await using running = await start(new WebhookServer({ port: 0, insecure: true }), fn);
  assert(running.config.url!.startsWith("http://127.0.0.1:"));
  assertEquals(running.config.caBundle, undefined);
  assertEquals((await post(`${running.config.url}/x`, {})).status, 200);
  assertEquals(calls.length, 1);
});

Deno.test("a review over the context's body limit gets 413 and never reaches the engine", async () => {
  const { calls, fn } = engine();
  const limits = { ...admissionServerLimits(), bodyLimit: 1000 };
  await using running = await start(new WebhookServer({ port: 0 }), fn, undefined, limits);
  const client = await createHttpClient({
    caCertificates: [atob(running.config.caBundle!)],
  });
  try {
    const url = `${running.config.url}/check`;
    const big = await client.fetch(url, { method: "POST", body: "x".repeat(1001) });
    assertEquals(big.status, 413);
    assertStringIncludes(await big.text(), "over the limit of 1000 bytes");
    const small = await client.fetch(url, { method: "POST", body: JSON.stringify({ a: 1 }) });
    assertEquals(small.status, 200);
    await small.body?.cancel();
    assertEquals(calls.length, 1);
  } finally {
    await client.close();
  }
});

Deno.test("without limits in the context, the defaults of settings.admission hold", async () => {
  const { calls, fn } = engine();
  await using running = await start(new WebhookServer({ port: 0, insecure: true }), fn);
  const { hostname, port } = new URL(running.config.url!);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  try {
    const length = 7 * 1024 * 1024 + 1;
    await conn.write(new TextEncoder().encode(
      `POST /check HTTP/1.1\r\nHost: x\r\nContent-Length: ${length}\r\n\r\n`,
    ));
    // A server that waits for the body instead would leave the read pending: 5 s at most.
    const give = setTimeout(() => conn.close(), 5000);
    const answer = new Uint8Array(1024);
    const n = await conn.read(answer).catch(() => null).finally(() => clearTimeout(give));
    assertStringIncludes(new TextDecoder().decode(answer.subarray(0, n ?? 0)), " 413 ");
    assertEquals(calls.length, 0);
  } finally {
    try {
      conn.close();
    } catch {
      // closed when the server did not answer in time
    }
  }
});

Deno.test("an encrypted key or half a certificate fails the start with one line", async () => {
  const { fn } = engine();
  const cases: [WebhookServerOptions, string][] = [
    [{ port: 0, password: "secret" }, "not supported"],
    [{ port: 0, certdata: "x" }, "both a certificate"],
  ];
  for (const [options, text] of cases) {
    const error = await assertRejects(
      () => start(new WebhookServer(options), fn),
      ConfigurationError,
    );
    assertStringIncludes(error.message, text);
    assert(!error.message.includes("\n"));
  }
});

Deno.test("K3d and Minikube servers use their clusters' host names and listen on all addresses", async () => {
  const { fn } = engine();
  for (
    const [server, host] of [
      [new WebhookK3dServer({ port: 0 }), "host.k3d.internal"],
      [new WebhookMinikubeServer({ port: 0 }), "host.minikube.internal"],
    ] as const
  ) {
    await using running = await start(server, fn);
    const url = new URL(running.config.url!);
    assertEquals(url.hostname, host);
    // Listening on all addresses: reachable on the loopback with the same certificate.
    const ca = atob(running.config.caBundle!);
    const answer = await post(`https://127.0.0.1:${url.port}/x`, {}, { ca });
    assertEquals(answer.status, 200);
  }
});

const facts = (version: string, labels: Record<string, string>[] = []): ClusterFacts => ({
  gitVersion: () => Promise.resolve(version),
  nodeLabels: () => Promise.resolve(labels),
});

Deno.test("the auto server recognises K3s and Minikube, else serves locally", async () => {
  const { fn } = engine();
  const cases: [ClusterFacts | undefined, string][] = [
    [facts("v1.31.1+k3s1"), "host.k3d.internal"],
    [facts("v1.31.0", [{ "minikube.k8s.io/name": "minikube" }]), "host.minikube.internal"],
    [facts("v1.31.0", [{ "kubernetes.io/os": "linux" }]), "127.0.0.1"],
    [undefined, "127.0.0.1"],
  ];
  for (const [cluster, host] of cases) {
    await using running = await start(new WebhookAutoServer({ port: 0 }), fn, cluster);
    assertEquals(new URL(running.config.url!).hostname, host);
  }
});

Deno.test("tunnels are refused in one line saying what to use; the auto tunnel serves local clusters", async () => {
  const { fn } = engine();
  for (const tunnel of [new WebhookNgrokTunnel({ token: "x" }), new WebhookAutoTunnel()]) {
    const error = await assertRejects(
      () => start(tunnel, fn, facts("v1.31.0")),
      ConfigurationError,
    );
    assertStringIncludes(error.message, "tunnels (ngrok) are not supported by this version");
    assertStringIncludes(error.message, "kopf.WebhookServer");
    assert(!error.message.includes("\n"));
  }
  await using running = await start(new WebhookAutoTunnel({ port: 0 }), fn, facts("v1.3+k3s1"));
  assertEquals(new URL(running.config.url!).hostname, "host.k3d.internal");
});

Deno.test("a review that fails in the framework is answered with 500 and logged", async () => {
  const errors: string[] = [];
  const logger = { ...quiet, error: (message: string) => void errors.push(message) };
  const controller = new AbortController();
  const fn: WebhookFn = () => Promise.reject(new Error("the memo exploded"));
  const iterator = new WebhookServer({ port: 0, insecure: true }).serve(fn, {
    signal: controller.signal,
    logger,
  });
  try {
    const first = await iterator.next();
    assert(!first.done);
    const answer = await post(`${first.value.url}/check`, { request: {} });
    assertEquals(answer.status, 500);
    assertStringIncludes(answer.body.message, "the memo exploded");
    assertEquals(errors.length, 1, "the failure is not logged");
    assertStringIncludes(errors[0], "the memo exploded");
  } finally {
    controller.abort();
    await iterator.return(undefined);
  }
});

Deno.test("with a generated certificate, the client config carries its CA even if another one is given", async () => {
  const other = await generateCertificateAuthority({ commonName: "unrelated-ca" });
  const dir = await Deno.makeTempDir();
  const { fn } = engine();
  const server = new WebhookServer({ port: 0, cadata: other.certPem, cadump: `${dir}/ca.pem` });
  await using running = await start(server, fn);
  const ca = atob(running.config.caBundle!);
  assert(ca !== other.certPem, "the given CA did not sign the generated certificate");
  assertEquals((await post(`${running.config.url}/x`, {}, { ca })).status, 200);
  assertEquals(await Deno.readTextFile(`${dir}/ca.pem`), ca);
  await Deno.remove(dir, { recursive: true });
});
