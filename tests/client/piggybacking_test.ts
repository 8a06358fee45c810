/**
 * Piggybacking on @kubernetes/client-node: its kubeconfig loading produces our credentials.
 */
import { assertEquals } from "../assert.ts";
import { loginViaClient } from "../../src/client/piggybacking.ts";

Deno.test("loginViaClient takes server, CA, client certificate, token and namespace from client-node", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kopf-piggyback-" });
  const saved = Deno.env.get("KUBECONFIG");
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
    Deno.env.set("KUBECONFIG", `${dir}/config`);
    assertEquals(await loginViaClient(), {
      server: "https://piggy.example:6443",
      caData: "CA PEM",
      certificateData: "CERT PEM",
      privateKeyData: "KEY PEM",
      scheme: "Bearer",
      token: "piggy-token",
      defaultNamespace: "piggy-ns",
    });
    assertEquals((await loginViaClient({ context: "other" }))?.defaultNamespace, undefined);
  } finally {
    saved === undefined ? Deno.env.delete("KUBECONFIG") : Deno.env.set("KUBECONFIG", saved);
    await Deno.remove(dir, { recursive: true });
  }
});
