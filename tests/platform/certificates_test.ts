/**
 * Certificates made by src/platform/certificates.ts must be accepted by the TLS stacks
 * operators meet: rustls (Deno.serve, Deno.createHttpClient), OpenSSL (Node), and must
 * say what they claim (SANs, names, validity), as read back by openssl when present.
 */
import {
  type CertificateAuthority,
  type CertificatePem,
  describeCertificate,
  generateCertificateAuthority,
  issueClientCertificate,
  issueServerCertificate,
} from "../../src/platform/certificates.ts";
import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
  assertThrows,
} from "../assert.ts";
import { ROOT, run, runDeno } from "./commands.ts";
import { CertificateError } from "../../src/structs/errors.ts";

let shared: Promise<{ ca: CertificateAuthority; server: CertificatePem }> | undefined;

/** One CA and one server certificate for the tests that only need a working pair. */
function sharedPki(): Promise<{ ca: CertificateAuthority; server: CertificatePem }> {
  shared ??= (async () => {
    const ca = await generateCertificateAuthority({ commonName: "test-ca" });
    const server = await issueServerCertificate(ca, {
      hostnames: ["localhost", "127.0.0.1", "::1"],
    });
    return { ca, server };
  })();
  return shared;
}

function serveTls(cert: CertificatePem): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: cert.certPem, key: cert.keyPem, onListen() {} },
    () => new Response("hello over tls"),
  );
}

async function fetchText(url: string, caCerts: string[]): Promise<string> {
  const client = Deno.createHttpClient({ caCerts });
  try {
    const response = await fetch(url, { client });
    return await response.text();
  } finally {
    client.close();
  }
}

Deno.test("a Deno TLS server with an issued certificate is trusted via the CA by name and by IP", async () => {
  const { ca, server } = await sharedPki();
  const http = serveTls(server);
  try {
    const port = http.addr.port;
    assertEquals(await fetchText(`https://localhost:${port}/`, [ca.certPem]), "hello over tls");
    assertEquals(await fetchText(`https://127.0.0.1:${port}/`, [ca.certPem]), "hello over tls");
  } finally {
    await http.shutdown();
  }
});

Deno.test("a client trusting a different CA refuses the server", async () => {
  const { server } = await sharedPki();
  const stranger = await generateCertificateAuthority({ commonName: "stranger" });
  const http = serveTls(server);
  try {
    await assertRejects(() =>
      fetchText(`https://localhost:${http.addr.port}/`, [stranger.certPem])
    );
  } finally {
    await http.shutdown();
  }
});

Deno.test("a server certificate is refused for an address that is not among its SANs", async () => {
  const { ca } = await sharedPki();
  const elsewhere = await issueServerCertificate(ca, { hostnames: ["api.example.test"] });
  const http = serveTls(elsewhere);
  try {
    await assertRejects(() => fetchText(`https://127.0.0.1:${http.addr.port}/`, [ca.certPem]));
  } finally {
    await http.shutdown();
  }
});

Deno.test("issued certificates say what was asked: names, SANs, usages, validity", async () => {
  const before = Date.now();
  const ca = await generateCertificateAuthority({ commonName: "my-ca", days: 10 });
  const server = await issueServerCertificate(ca, {
    hostnames: ["localhost", "*.svc.cluster.local", "127.0.0.1", "::1", "2001:db8::a:0:1"],
    days: 30,
  });
  const client = await issueClientCertificate(ca, {
    commonName: "alice",
    organizations: ["system:masters", "developers"],
    days: 2,
  });
  const after = Date.now();

  const caInfo = describeCertificate(ca.certPem);
  assertEquals(caInfo.isCa, true);
  assertEquals(caInfo.subject, { commonName: "my-ca", organizations: [] });
  assertEquals(caInfo.issuer, caInfo.subject);

  const serverInfo = describeCertificate(server.certPem);
  assertEquals(serverInfo.isCa, false);
  assertEquals(serverInfo.issuer.commonName, "my-ca");
  assertEquals(serverInfo.subject.commonName, "localhost");
  assertEquals(serverInfo.dnsNames, ["localhost", "*.svc.cluster.local"]);
  assertEquals(serverInfo.ipAddresses, ["127.0.0.1", "::1", "2001:db8::a:0:1"]);
  assertEquals(serverInfo.extendedKeyUsages, ["serverAuth"]);
  // Back-dated by a few minutes for clock skew; valid for the days asked from now.
  const second = 1000, day = 86_400_000;
  assert(serverInfo.notBefore.getTime() <= before - 4 * 60 * second, "notBefore is back-dated");
  assert(serverInfo.notBefore.getTime() >= before - 6 * 60 * second, "notBefore is recent");
  assert(serverInfo.notAfter.getTime() >= before - second + 30 * day, "notAfter ≥ now + 30d");
  assert(serverInfo.notAfter.getTime() <= after + 30 * day, "notAfter ≤ now + 30d");

  const clientInfo = describeCertificate(client.certPem);
  assertEquals(clientInfo.subject, {
    commonName: "alice",
    organizations: ["system:masters", "developers"],
  });
  assertEquals(clientInfo.extendedKeyUsages, ["clientAuth"]);
  assertEquals(clientInfo.dnsNames, []);
  assert(clientInfo.notAfter.getTime() <= after + 2 * day, "client notAfter ≤ now + 2d");
  assert(serverInfo.serialNumber !== clientInfo.serialNumber, "serial numbers are unique");
});

Deno.test("validity past 2049 is encoded as GeneralizedTime and read back exactly", async () => {
  const notBefore = new Date("2049-12-31T23:00:00Z");
  const ca = await generateCertificateAuthority({ notBefore, days: 1 });
  const info = describeCertificate(ca.certPem);
  assertEquals(info.notBefore, notBefore);
  assertEquals(info.notAfter, new Date("2050-01-01T23:00:00Z"));
});

Deno.test("a CA given as PEM text (e.g. loaded from files) keeps issuing certificates", async () => {
  const { ca } = await sharedPki();
  const reloaded = { certPem: String(ca.certPem), keyPem: String(ca.keyPem) };
  const server = await issueServerCertificate(reloaded, { hostnames: ["127.0.0.1"] });
  const http = serveTls(server);
  try {
    assertEquals(
      await fetchText(`https://127.0.0.1:${http.addr.port}/`, [ca.certPem]),
      "hello over tls",
    );
  } finally {
    await http.shutdown();
  }
});

Deno.test("bad input to the certificate functions fails with one clear line", async () => {
  const { ca, server } = await sharedPki();
  const lines: string[] = [];
  const capture = async (fn: () => Promise<unknown>, fragment: string) => {
    const error = await assertRejects(fn, CertificateError, fragment);
    lines.push(error.message);
  };
  await capture(() => issueServerCertificate(ca, { hostnames: [] }), "at least one hostname");
  await capture(
    () => issueServerCertificate(ca, { hostnames: ["not a host"] }),
    '"not a host" is neither a DNS name nor an IP address',
  );
  await capture(
    () => issueServerCertificate(ca, { hostnames: ["1:2:3:4:5:6:7:8:9"] }),
    "neither a DNS name nor an IP address",
  );
  await capture(() => generateCertificateAuthority({ days: 0 }), "positive number of days");
  await capture(() => issueClientCertificate(ca, { commonName: "" }), "needs a commonName");
  await capture(
    () => issueClientCertificate(server, { commonName: "x" }),
    "is not a CA certificate",
  );
  await capture(
    () =>
      issueClientCertificate({ certPem: ca.certPem, keyPem: server.certPem }, { commonName: "x" }),
    "PKCS#8",
  );
  await capture(
    () => issueClientCertificate({ certPem: "garbage", keyPem: ca.keyPem }, { commonName: "x" }),
    'no "-----BEGIN CERTIFICATE-----" block',
  );
  assertThrows(() => describeCertificate("nothing here"), CertificateError, "BEGIN CERTIFICATE");
  for (const line of lines) assert(!line.includes("\n"), `one line: ${line}`);
});

Deno.test("openssl agrees with what the certificates claim (skipped without openssl)", async () => {
  const openssl = await run("openssl", ["version"]).catch(() => undefined);
  if (!openssl || openssl.code !== 0) return; // not installed here: nothing to compare with
  const dir = await Deno.makeTempDir();
  try {
    const ca = await generateCertificateAuthority({ commonName: "openssl-ca" });
    const server = await issueServerCertificate(ca, { hostnames: ["localhost", "::1"] });
    const client = await issueClientCertificate(ca, { commonName: "bob", organizations: ["ops"] });
    await Deno.writeTextFile(`${dir}/ca.pem`, ca.certPem);
    await Deno.writeTextFile(`${dir}/server.pem`, server.certPem);
    await Deno.writeTextFile(`${dir}/client.pem`, client.certPem);
    await Deno.writeTextFile(`${dir}/client.key`, client.keyPem);

    const text = await run("openssl", ["x509", "-in", `${dir}/server.pem`, "-noout", "-text"]);
    assertStringIncludes(text.stdout, "Version: 3");
    assertStringIncludes(text.stdout, "ecdsa-with-SHA256");
    assertStringIncludes(text.stdout, "DNS:localhost, IP Address:0:0:0:0:0:0:0:1");
    assertStringIncludes(text.stdout, "TLS Web Server Authentication");
    assertStringIncludes(text.stdout, "CA:FALSE");
    const subject = await run("openssl", [
      "x509",
      "-in",
      `${dir}/client.pem`,
      "-noout",
      "-subject",
      "-nameopt",
      "RFC2253",
    ]);
    assertStringIncludes(subject.stdout, "CN=bob,O=ops");
    const verify = await run("openssl", [
      "verify",
      "-CAfile",
      `${dir}/ca.pem`,
      `${dir}/server.pem`,
      `${dir}/client.pem`,
    ]);
    assertEquals(verify.code, 0, verify.stderr);
    const key = await run("openssl", ["pkey", "-in", `${dir}/client.key`, "-noout", "-text"]);
    assertStringIncludes(key.stdout, "NIST CURVE: P-256");
    const stranger = await generateCertificateAuthority();
    await Deno.writeTextFile(`${dir}/stranger.pem`, stranger.certPem);
    const refused = await run("openssl", [
      "verify",
      "-CAfile",
      `${dir}/stranger.pem`,
      `${dir}/server.pem`,
    ]);
    assert(refused.code !== 0, "openssl refuses a certificate of another CA");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A Node script: an HTTPS server demanding client certificates, and a Node client. */
const NODE_TLS_SCRIPT = `
import https from "node:https";
import fs from "node:fs";
const dir = process.argv[2];
const read = (name) => fs.readFileSync(dir + "/" + name, "utf8");
const server = https.createServer({
  cert: read("server.pem"), key: read("server.key"), ca: read("ca.pem"),
  requestCert: true, rejectUnauthorized: true,
}, (req, res) => {
  const peer = req.socket.getPeerCertificate();
  res.end(JSON.stringify({ cn: peer.subject.CN, o: peer.subject.O }));
});
server.listen(0, "127.0.0.1", () => {
  const port = server.address().port;
  const get = (options) => new Promise((resolve, reject) => {
    https.get({ host: "127.0.0.1", port, path: "/", ...options }, (res) => {
      let body = ""; res.on("data", (c) => body += c); res.on("end", () => resolve(body));
    }).on("error", reject);
  });
  (async () => {
    const ok = await get({ ca: read("ca.pem"), cert: read("client.pem"), key: read("client.key") });
    const wrongCa = await get({ ca: read("stranger.pem"), cert: read("client.pem"), key: read("client.key") })
      .then(() => "accepted", (e) => e.code);
    const noClientCert = await get({ ca: read("ca.pem") }).then(() => "accepted", () => "refused");
    console.log(JSON.stringify({ port, ok: JSON.parse(ok), wrongCa, noClientCert }));
  })().catch((e) => { console.error(e); process.exit(1); });
  process.stdin.on("end", () => server.close()).resume();
});
`;

Deno.test("Node's https accepts the server certificate, and both Node and Deno authenticate with a client certificate", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const ca = await generateCertificateAuthority({ commonName: "node-ca" });
    const stranger = await generateCertificateAuthority({ commonName: "stranger" });
    const server = await issueServerCertificate(ca, { hostnames: ["127.0.0.1"] });
    const client = await issueClientCertificate(ca, {
      commonName: "carol",
      organizations: ["system:masters"],
    });
    const files: Record<string, string> = {
      "ca.pem": ca.certPem,
      "stranger.pem": stranger.certPem,
      "server.pem": server.certPem,
      "server.key": server.keyPem,
      "client.pem": client.certPem,
      "client.key": client.keyPem,
      "check.mjs": NODE_TLS_SCRIPT,
    };
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(`${dir}/${name}`, text);
    }

    const child = new Deno.Command("node", {
      args: [`${dir}/check.mjs`, dir],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    // A safety net only: the test waits for the output and the exit, never for a fixed time.
    let overdue = false;
    const guard = setTimeout(() => {
      overdue = true;
      child.kill("SIGKILL");
    }, 60_000);
    void child.status.finally(() => clearTimeout(guard));
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let firstLine = "";
    while (!firstLine.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) break;
      firstLine += value;
    }
    assert(!overdue, "the Node TLS check was killed after 60s without a report");
    const report = JSON.parse(firstLine);
    assertEquals(report.ok, { cn: "carol", o: "system:masters" });
    // Node's server also sends the CA from its `ca` option, hence either code.
    assert(
      ["SELF_SIGNED_CERT_IN_CHAIN", "UNABLE_TO_VERIFY_LEAF_SIGNATURE"].includes(report.wrongCa),
      `a Node client trusting another CA refuses the server: ${report.wrongCa}`,
    );
    assertEquals(report.noClientCert, "refused");

    // Deno (rustls) presenting the client certificate to Node's OpenSSL server.
    const denoClient = Deno.createHttpClient({
      caCerts: [ca.certPem],
      cert: client.certPem,
      key: client.keyPem,
    });
    try {
      const response = await fetch(`https://127.0.0.1:${report.port}/`, { client: denoClient });
      assertEquals(await response.json(), { cn: "carol", o: "system:masters" });
    } finally {
      denoClient.close();
    }

    await child.stdin.close();
    await lines.cancel();
    const status = await child.status;
    await child.stderr.cancel();
    assert(!overdue, "the Node TLS check was killed after 60s: it did not exit");
    assertEquals(status.code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Generates certificates under Node with the bundled module and serves TLS with them. */
const NODE_GENERATE_SCRIPT = `
import https from "node:https";
import * as certs from "./certificates.js";
const ca = await certs.generateCertificateAuthority({ commonName: "made-in-node" });
const server = await certs.issueServerCertificate(ca, { hostnames: ["127.0.0.1"] });
const client = await certs.issueClientCertificate(ca, { commonName: "dave", organizations: ["g"] });
const tls = https.createServer({
  cert: server.certPem, key: server.keyPem, ca: ca.certPem, requestCert: true,
}, (req, res) => res.end(req.socket.getPeerCertificate().subject.CN));
tls.listen(0, "127.0.0.1", () => {
  https.get({
    host: "127.0.0.1", port: tls.address().port, ca: ca.certPem,
    cert: client.certPem, key: client.keyPem,
  }, (res) => {
    let body = "";
    res.on("data", (c) => body += c);
    res.on("end", () => {
      console.log(JSON.stringify({ body, ca: ca.certPem, server: server.certPem }));
      tls.close();
    });
  }).on("error", (e) => { console.error(e); process.exit(1); });
});
`;

Deno.test("certificates generated under Node (its WebCrypto) work with Node's TLS", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const bundled = await runDeno([
      "bundle",
      "--quiet",
      "--platform=deno",
      `--output=${dir}/certificates.js`,
      `${ROOT}/src/platform/certificates.ts`,
    ]);
    assertEquals(bundled.code, 0, bundled.stderr);
    await Deno.writeTextFile(`${dir}/generate.mjs`, NODE_GENERATE_SCRIPT);
    const node = await run("node", [`${dir}/generate.mjs`]);
    assertEquals(node.code, 0, node.stderr);
    const report = JSON.parse(node.stdout);
    assertEquals(report.body, "dave");
    const info = describeCertificate(report.server);
    assertEquals(info.issuer.commonName, "made-in-node");
    assertEquals(info.ipAddresses, ["127.0.0.1"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
