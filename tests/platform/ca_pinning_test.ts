/**
 * A given CA replaces the runtime's roots, as in client-go: on Node by undici's `ca`, on
 * Deno by checking each origin's certificate against the CA alone (`ca_pinning.ts`). The
 * runtime is made to trust another CA, as a publicly trusted one would be.
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import { ROOT, run, runDeno } from "./commands.ts";
import {
  generateCertificateAuthority,
  issueServerCertificate,
} from "../../src/platform/certificates.ts";
import {
  CaPinning,
  caPinningCaveat,
  UntrustedCertificateError,
  verifyAgainstCa,
} from "../../src/platform/ca_pinning.ts";
import { deliveryOf } from "../../src/platform/request_delivery.ts";

const PROBE = `${ROOT}/tests/platform/fixtures/ca_only_probe.ts`;

interface ProbeReport {
  runtime: string;
  runtimeTrust: string;
  otherCa: Record<string, string>;
  sameCa: Record<string, string>;
}

/** A CA written to a temporary directory, for the runtime to trust from its start. */
async function withTrustedCa(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "kopf-ca-only-" });
  try {
    const ca = await generateCertificateAuthority({ commonName: "runtime-trusted-ca" });
    await Deno.writeTextFile(`${dir}/ca.pem`, ca.certPem);
    await Deno.writeTextFile(`${dir}/ca.key`, ca.keyPem);
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function checkReport(report: ProbeReport, runtime: string): void {
  assertEquals(report.runtime, runtime);
  assertEquals(report.runtimeTrust, "trusted", "the runtime itself trusts the server's CA");
  for (const kind of ["read", "write"]) {
    const outcome = report.otherCa[kind];
    assert(outcome.startsWith("APICertificateError: Cannot verify the certificate"), outcome);
    assertEquals(report.sameCa[kind], "ok", kind);
  }
}

Deno.test("on Deno: a server trusted by the runtime's roots but not by the given CA is refused", async () => {
  await withTrustedCa(async (dir) => {
    const probe = await runDeno(["run", "--allow-all", PROBE], {
      cwd: ROOT,
      env: { DENO_TLS_CA_STORE: "system", SSL_CERT_FILE: `${dir}/ca.pem`, KOPF_PROBE_CA_DIR: dir },
    });
    assertEquals(probe.code, 0, probe.stderr);
    const report: ProbeReport = JSON.parse(probe.stdout.trim().split("\n").pop()!);
    checkReport(report, "deno");
    assertStringIncludes(report.otherCa.read, "not verified by the given CA alone");
  });
});

Deno.test("on Deno with DENO_TLS_CA_STORE empty but a root from DENO_CERT: still refused", async () => {
  await withTrustedCa(async (dir) => {
    const probe = await runDeno(["run", "--allow-all", PROBE], {
      cwd: ROOT,
      env: { DENO_TLS_CA_STORE: "", DENO_CERT: `${dir}/ca.pem`, KOPF_PROBE_CA_DIR: dir },
    });
    assertEquals(probe.code, 0, probe.stderr);
    const report: ProbeReport = JSON.parse(probe.stdout.trim().split("\n").pop()!);
    // DENO_CERT adds A to the (otherwise empty) store: the checks must not rely on it.
    checkReport(report, "deno");
  });
});

Deno.test("on Node: a server trusted by the runtime's roots but not by the given CA is refused", async () => {
  await withTrustedCa(async (dir) => {
    const bundle = `${dir}/probe.mjs`;
    const bundled = await runDeno(
      ["bundle", "--quiet", "--platform=deno", "--format=esm", `--output=${bundle}`, PROBE],
      { cwd: ROOT },
    );
    assertEquals(bundled.code, 0, bundled.stderr);
    const probe = await run("node", [bundle], {
      cwd: dir,
      env: { NODE_EXTRA_CA_CERTS: `${dir}/ca.pem`, KOPF_PROBE_CA_DIR: dir },
    });
    assertEquals(probe.code, 0, probe.stderr);
    checkReport(JSON.parse(probe.stdout.trim().split("\n").pop()!), "node");
  });
});

/** A TLS server with a certificate of a fresh CA; its URL and that CA. */
async function tlsServer() {
  const ca = await generateCertificateAuthority({ commonName: "server-ca" });
  const cert = await issueServerCertificate(ca, { hostnames: ["127.0.0.1"] });
  const listener = Deno.listenTls({
    hostname: "127.0.0.1",
    port: 0,
    cert: cert.certPem,
    key: cert.keyPem,
  });
  let handshakes = 0;
  const serving = (async () => {
    for await (const connection of listener) {
      connection.handshake().then(() => handshakes++, () => {}).finally(() => connection.close());
    }
  })().catch(() => {});
  return {
    url: `https://127.0.0.1:${listener.addr.port}`,
    ca,
    handshakes: () => handshakes,
    async [Symbol.asyncDispose]() {
      listener.close();
      await serving;
    },
  };
}

Deno.test("the check passes for the server's own CA and refuses another, whatever the runtime trusts", async () => {
  await using server = await tlsServer();
  await verifyAgainstCa(server.url, { caCertificates: [server.ca.certPem] });
  const other = await generateCertificateAuthority({ commonName: "other" });
  const error = await assertRejects(
    () => verifyAgainstCa(server.url, { caCertificates: [other.certPem] }),
    UntrustedCertificateError,
    "not verified by the given CA alone",
  );
  assertEquals(deliveryOf(error).unsent, true, "the request that waited was never sent");
});

Deno.test("a refused connection fails the check as a network failure of an unsent request", async () => {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = probe.addr.port;
  probe.close();
  const ca = await generateCertificateAuthority({ commonName: "any" });
  const error = await assertRejects(() =>
    verifyAgainstCa(`https://127.0.0.1:${port}`, { caCertificates: [ca.certPem] })
  );
  assert(!(error instanceof UntrustedCertificateError));
  assertEquals(deliveryOf(error).unsent, true);
});

Deno.test("an origin is checked once, then not again until the check is due", async () => {
  await using server = await tlsServer();
  const pinning = new CaPinning({ caCertificates: [server.ca.certPem] });
  const first = pinning.before(`${server.url}/api/v1/pods`, undefined);
  const second = pinning.before(`${server.url}/api/v1/nodes`, undefined);
  assert(first !== undefined && first === second, "one check for concurrent requests");
  await first;
  assertEquals(pinning.before(`${server.url}/apis`, undefined), undefined, "no wait after it");
});

Deno.test("the gap is said only for names a public CA could certify", () => {
  for (
    const url of [
      "https://10.96.0.1",
      "https://kubernetes.default.svc",
      "https://127.0.0.1:6443",
      "https://[::1]:6443",
      "https://192.168.1.5",
      "https://api.cluster.local",
      "https://kubernetes",
      "http://example.com",
    ]
  ) {
    assertEquals(caPinningCaveat(url), undefined, url);
  }
  for (const url of ["https://api.example.com:6443", "https://34.1.2.3"]) {
    assertStringIncludes(caPinningCaveat(url) ?? "", "DENO_TLS_CA_STORE", url);
  }
});

Deno.test("the gap is not said with the root store emptied; said as unknown where the variables are not readable", async () => {
  const caveat = async (env: Record<string, string>, allowEnv: string) => {
    const probe = await runDeno(
      ["run", allowEnv, `${ROOT}/tests/platform/fixtures/ca_pinning_caveat.ts`],
      { cwd: ROOT, env },
    );
    assertEquals(probe.code, 0, probe.stderr);
    return JSON.parse(probe.stdout.trim()) as string | null;
  };
  assertEquals(await caveat({ DENO_TLS_CA_STORE: "" }, "--allow-env"), null);
  const publicRoots = await caveat({ DENO_TLS_CA_STORE: "mozilla" }, "--allow-env");
  assertStringIncludes(publicRoots ?? "", "trust its given CA besides the runtime's root store;");
  const added = await caveat(
    { DENO_TLS_CA_STORE: "", DENO_CERT: "/nonexistent.pem" },
    "--allow-env",
  );
  assertStringIncludes(added ?? "", "trust its given CA besides the runtime's root store;");
  // A binary compiled with the planned permissions reads neither variable.
  const unknown = await caveat({ DENO_TLS_CA_STORE: "" }, "--allow-env=HOME");
  assertStringIncludes(unknown ?? "", "unless DENO_TLS_CA_STORE is empty (this process may not");
});
