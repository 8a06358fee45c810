/**
 * Piggybacking on @kubernetes/client-node: its kubeconfig loading produces our credentials.
 * The login runs in a child process, since it reads KUBECONFIG from the environment.
 */
import { assertEquals } from "../assert.ts";
import { ROOT, runDeno } from "../platform/commands.ts";

const PROBE = `${ROOT}/tests/client/fixtures/login_probe.ts`;

Deno.test("loginViaClient takes server, CA, client certificate, token and namespace from client-node", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kopf-piggyback-" });
  try {
    await Deno.writeTextFile(
      `${dir}/config`,
      `
apiVersion: v1
kind: Config
current-context: main
clusters:
- name: c
  cluster:
    server: https://piggy.example:6443
    certificate-authority-data: ${btoa("CA PEM")}
users:
- name: u
  user:
    token: piggy-token
    client-certificate-data: ${btoa("CERT PEM")}
    client-key-data: ${btoa("KEY PEM")}
contexts:
- name: main
  context: { cluster: c, user: u, namespace: piggy-ns }
- name: other
  context: { cluster: c, user: u }
`,
    );
    const login = async (options: Record<string, unknown>) => {
      const result = await runDeno(["run", "-A", PROBE, "client", JSON.stringify(options)], {
        cwd: ROOT,
        env: { KUBECONFIG: `${dir}/config` },
      });
      assertEquals(result.code, 0, result.stderr);
      return JSON.parse(result.stdout.trim().split("\n").pop()!);
    };
    assertEquals(await login({}), {
      info: {
        server: "https://piggy.example:6443",
        caData: "CA PEM",
        certificateData: "CERT PEM",
        privateKeyData: "KEY PEM",
        scheme: "Bearer",
        token: "piggy-token",
        defaultNamespace: "piggy-ns",
        source: 'the context "main" of @kubernetes/client-node',
      },
    });
    assertEquals((await login({ context: "other" })).info.defaultNamespace, undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
