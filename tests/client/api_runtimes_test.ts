/**
 * The client layer on Deno and on Node 20. TLS: a generated CA, a server certificate and
 * a client certificate; the server demands the client certificate. Logins: files and an
 * exec plugin. Watch streams with an inactivity reconnect. The same probe
 * (fixtures/runtime_probe.ts) runs under both runtimes; under Node it is bundled with its
 * npm packages (undici, logtape, yaml) into one module.
 */
import { assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";
import { ROOT, run, runDeno } from "../platform/commands.ts";

const PROBE = `${ROOT}/tests/client/fixtures/runtime_probe.ts`;

interface Outcome {
  ok?: { user: string | null };
  error?: string;
  message?: string;
}

/** The outcomes of a GET and of a POST. */
interface Outcomes {
  read: Outcome;
  write: Outcome;
}

interface ProbeResult {
  runtime: string;
  withCertificate: Outcomes;
  insecureWithCertificate: Outcomes;
  withoutCertificate: Outcomes;
  wrongCa: Outcomes;
  kubeconfig: unknown;
  watch: unknown;
}

function lastJsonLine(stdout: string): ProbeResult {
  return JSON.parse(stdout.trim().split("\n").pop()!);
}

function checkOutcomes(result: ProbeResult, runtime: string): void {
  assertEquals(result.runtime, runtime);
  for (const kind of ["read", "write"] as const) {
    // The server saw the client certificate's common name: client-certificate auth works.
    assertEquals(result.withCertificate[kind], { ok: { user: "alice" } }, kind);
    assertEquals(result.insecureWithCertificate[kind], { ok: { user: "alice" } }, kind);
    // Without a client certificate the server refuses the handshake: with TLS 1.3, after
    // the client may have sent its request, so a POST's outcome is unknown (and it is not
    // sent again), a GET's a connection error after its retries.
    assertEquals(
      result.withoutCertificate[kind].error,
      kind === "write" ? "APIOutcomeUnknownError" : "APIConnectionError",
      kind,
    );
    // A wrong CA is a certificate error with a one-line explanation of what to fix.
    const wrongCa = result.wrongCa[kind];
    assertEquals(wrongCa.error, "APICertificateError", kind);
    assertMatch(wrongCa.message!, /^Cannot verify the certificate of https:\/\/127\.0\.0\.1:\d+ /);
    assertStringIncludes(wrongCa.message!, "set the right CA");
    assertEquals(wrongCa.message!.includes("\n"), false);
  }
  // Files, relative paths and the exec plugin subprocess work in this runtime too.
  assertEquals(result.kubeconfig, {
    exec: {
      server: "https://probe.example",
      token: "exec-a1",
      expiration: "2031-01-01T00:00:00.000Z",
      defaultNamespace: "ns",
      source: `the context "exec" (user "plugin") of ${
        (result.kubeconfig as { exec: { source: string } }).exec.source.split(" of ")[1]
      }`,
    },
    fileToken: "file-token",
    tokenPathIsAbsolute: true,
  });
  // Watch streams: events arrive, a silent stream is reopened from the last version.
  assertEquals(result.watch, {
    items: ["LISTED", "ADDED", "MODIFIED"],
    seen: ["list", "watch@1", "watch@2"],
  });
}

Deno.test("on Deno: client certificates authenticate, insecure mode works, a wrong CA fails clearly, logins and watches run", async () => {
  const probe = await runDeno(["run", "--allow-all", PROBE], { cwd: ROOT });
  assertEquals(probe.code, 0, probe.stderr);
  checkOutcomes(lastJsonLine(probe.stdout), "deno");
});

Deno.test("on Node: client certificates authenticate, insecure mode works, a wrong CA fails clearly, logins and watches run", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kopf-tls-node-" });
  try {
    const bundle = `${dir}/probe.mjs`;
    const bundled = await runDeno(
      ["bundle", "--quiet", "--platform=deno", "--format=esm", `--output=${bundle}`, PROBE],
      { cwd: ROOT },
    );
    assertEquals(bundled.code, 0, bundled.stderr);
    const probe = await run("node", [bundle], { cwd: dir });
    assertEquals(probe.code, 0, probe.stderr);
    checkOutcomes(lastJsonLine(probe.stdout), "node");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
