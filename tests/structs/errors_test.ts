import {
  AdmissionError,
  CertificateError,
  ConfigurationError,
  ErrorsMode,
  HandlerRetriesError,
  HandlerTimeoutError,
  KopfError,
  LoginError,
  PermanentError,
  StoredStateError,
  TemporaryError,
  UsageError,
} from "../../src/structs/errors.ts";
import { kopf } from "../../mod.ts";
import { assert, assertEquals, assertRejects, assertThrows } from "../assert.ts";
import { OperatorConfigurationError } from "../../src/reactor/operator_options.ts";
import { PeeringConfigurationError } from "../../src/engines/peering.ts";
import {
  describeCertificate,
  generateCertificateAuthority,
  issueServerCertificate,
} from "../../src/platform/certificates.ts";
import { toPem } from "../../src/platform/der.ts";
import { planPermissions } from "../../src/cli/permissions.ts";
import { FakeCluster } from "../../src/testing/mod.ts";

Deno.test("a temporary error retries in 60 seconds unless told otherwise", () => {
  assertEquals(new TemporaryError("later").delay, 60);
  assertEquals(new TemporaryError("soon", { delay: 10 }).delay, 10);
  assertEquals(new TemporaryError("now", { delay: null }).delay, null);
  assertEquals(new TemporaryError().message, "");
  assertThrows(() => new TemporaryError("x", { delay: -1 }), TypeError, "seconds ≥ 0 or null");
});

Deno.test("timeouts, retries and admission errors are permanent errors", () => {
  for (
    const e of [new HandlerTimeoutError("t"), new HandlerRetriesError("r"), new AdmissionError("a")]
  ) {
    assert(e instanceof PermanentError && e instanceof Error);
  }
  assertEquals(new HandlerTimeoutError("t").name, "HandlerTimeoutError");
});

Deno.test("an admission error carries an HTTP code, 500 by default", () => {
  assertEquals(new AdmissionError("no").code, 500);
  assertEquals(new AdmissionError("Meh!", { code: 400 }).code, 400);
  assertThrows(() => new AdmissionError("x", { code: 42 }), TypeError, "HTTP status");
});

Deno.test("errors modes are named values", () => {
  assertEquals([ErrorsMode.TEMPORARY, ErrorsMode.PERMANENT, ErrorsMode.IGNORED], [
    "temporary",
    "permanent",
    "ignored",
  ]);
});

Deno.test("the login error lives with the other public errors and is kopf.LoginError", () => {
  const e = new LoginError("no credentials");
  assert(e instanceof Error && !(e instanceof PermanentError));
  assertEquals(e.name, "LoginError");
  assertEquals(kopf.LoginError, LoginError);
});

Deno.test("the framework's own errors form one family under KopfError", () => {
  const cases: [KopfError, string, typeof KopfError][] = [
    [new KopfError("k"), "KopfError", KopfError],
    [new ConfigurationError("c"), "ConfigurationError", KopfError],
    [new UsageError("u"), "UsageError", KopfError],
    [new StoredStateError("s"), "StoredStateError", KopfError],
    [new CertificateError("x"), "CertificateError", ConfigurationError],
    [new OperatorConfigurationError("o"), "OperatorConfigurationError", ConfigurationError],
    [new PeeringConfigurationError("p"), "PeeringConfigurationError", ConfigurationError],
  ];
  for (const [error, name, parent] of cases) {
    assert(error instanceof parent && error instanceof KopfError && error instanceof Error, name);
    assertEquals(error.name, name);
    assertEquals(String(error).split(":")[0], name, "the name leads the text in logs");
  }
  // Configuration and usage are told apart; the handler-steering errors are not the framework's.
  assert(!(new UsageError("u") instanceof ConfigurationError));
  assert(!(new ConfigurationError("c") instanceof UsageError));
  assert(!(new TemporaryError("t") instanceof KopfError));
  assert(!(new PermanentError("p") instanceof KopfError));
  assertEquals(new ConfigurationError("c", { cause: 42 }).cause, 42);
});

Deno.test("the family is public: kopf.KopfError and the others are the same classes", () => {
  assertEquals(
    [kopf.KopfError, kopf.ConfigurationError, kopf.UsageError, kopf.CertificateError],
    [KopfError, ConfigurationError, UsageError, CertificateError],
  );
  assertEquals(kopf.StoredStateError, StoredStateError);
});

Deno.test("a settings storage with a bad prefix is a ConfigurationError", () => {
  assertThrows(
    () => new kopf.AnnotationsProgressStorage({ prefix: "" }),
    ConfigurationError,
    "AnnotationsProgressStorage needs a non-empty annotations prefix",
  );
  assertThrows(
    () => new kopf.OperatorSettings({ watching: { serverTimout: 1 } as never }),
    ConfigurationError,
    "Unknown setting settings.watching.serverTimout",
  );
});

Deno.test("bad certificate options and PEM input are CertificateErrors", async () => {
  const ca = await generateCertificateAuthority();
  await assertRejects(
    () => issueServerCertificate(ca, { hostnames: [] }),
    CertificateError,
    "needs at least one hostname",
  );
  await assertRejects(
    () => issueServerCertificate({ certPem: ca.certPem, keyPem: "" }, { hostnames: ["a"] }),
    CertificateError,
    "The CA's keyPem must be a PKCS#8",
  );
  // The DER reader's own failures surface as one CertificateError, with the reason kept.
  const truncated = toPem("CERTIFICATE", Uint8Array.of(0x30, 0x10, 0x01));
  const error = assertThrows(() => describeCertificate(truncated), CertificateError);
  assertEquals(
    error.message,
    "The certificate is not a valid X.509 certificate (DER: an element is longer than the data).",
  );
  assert(error.cause instanceof Error, "the reader's failure is the cause");
  const notBase64 = "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n";
  assertThrows(() => describeCertificate(notBase64), CertificateError, "not base64");
});

Deno.test("a kubeconfig problem found while planning permissions is a ConfigurationError", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const env = () => undefined;
    await Deno.writeTextFile(
      `${dir}/config`,
      "apiVersion: v1\nkind: Config\ncurrent-context: dev\n" +
        "contexts: [{ name: dev, context: { cluster: gone } }]\n",
    );
    await assertRejects(
      () => planPermissions({ kubeconfig: `${dir}/config`, env }),
      ConfigurationError,
      'The context "dev" refers to the cluster "gone", which is not defined in',
    );
    // The login's reading of a broken file is the same kind of problem here.
    await Deno.writeTextFile(`${dir}/broken`, "clusters: [unclosed\n");
    const broken = await assertRejects(
      () => planPermissions({ kubeconfig: `${dir}/broken`, env }),
      ConfigurationError,
      "is not valid YAML",
    );
    assert(broken.cause instanceof LoginError, "the login's error is the cause");
    await assertRejects(
      () => planPermissions({ inCluster: true, env, listen: ["nowhere"] }),
      UsageError,
      "--listen",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("posting an event outside a running operator is a UsageError", () => {
  const obj = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns" } };
  assertThrows(
    () => kopf.info(obj, { reason: "Hello" }),
    UsageError,
    "kopf.info() needs a running operator",
  );
  assertThrows(() => kopf.adopt({}), UsageError, "kopf.adopt() needs an owner");
});

Deno.test("FakeCluster options that cannot work are ConfigurationError or UsageError", async () => {
  await assertRejects(
    () => FakeCluster.start({ clientCertificates: true }),
    ConfigurationError,
    "clientCertificates needs tls: true",
  );
  await using cluster = await FakeCluster.start();
  await assertRejects(() => cluster.save(), UsageError, "save() needs a path");
});

Deno.test("state stored on an object that cannot be read back is a StoredStateError", () => {
  const storage = new kopf.AnnotationsDiffBaseStorage();
  const body = {
    metadata: {
      name: "x",
      namespace: "ns",
      annotations: { "kopf.zalando.org/last-handled-configuration": "[1]" },
    },
  };
  const error = assertThrows(() => storage.fetch({ body }), StoredStateError, "ns/x");
  assert(!(error instanceof ConfigurationError), "the operator's configuration is fine");
});
