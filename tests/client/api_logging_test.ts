/**
 * Debug logs of the client show every request (method, path, status, duration) and never
 * a secret: tokens, passwords, private keys — not even on 401s, errors and re-logins.
 */
import { configure, type LogRecord, reset } from "@logtape/logtape";
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { Discovery } from "../../src/client/discovery.ts";
import { watchObjects } from "../../src/client/watch.ts";
import { loginWithKubeconfig } from "../../src/client/kubeconfig.ts";
import { APINotFoundError } from "../../src/client/api_errors.ts";
import { Resource } from "../../src/structs/resources.ts";
import { json, list, ScriptedServer, status } from "./scripted_server.ts";

const SECRETS = {
  staleToken: "stale-token-5f3a9c",
  token: "fresh-token-8e1d77",
  password: "hunter2-password-q9",
  key: "-----BEGIN PRIVATE KEY-----\nMIIsecretkeymaterial\n-----END PRIVATE KEY-----",
};

function render(record: LogRecord): string {
  return `${record.category.join(".")} ${record.level} ${
    record.message.map((part) => typeof part === "string" ? part : JSON.stringify(part)).join("")
  } ${JSON.stringify(record.properties)}`;
}

Deno.test("debug logs show requests with method, path, status and duration, and no secrets", async () => {
  const records: LogRecord[] = [];
  await configure({
    reset: true,
    sinks: { capture: (record: LogRecord) => records.push(record) },
    loggers: [
      { category: ["kopf"], lowestLevel: "debug", sinks: ["capture"] },
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: [] },
    ],
  });
  const dir = await Deno.makeTempDir({ prefix: "kopf-logs-" });
  try {
    await using server = ScriptedServer.start((request) => {
      const auth = request.headers.get("authorization") ?? "";
      if (auth.includes(SECRETS.staleToken)) return status(401, "Unauthorized", "token expired");
      if (request.path === "/api") return json({ versions: ["v1"] });
      if (request.path === "/apis") return json({ groups: [] });
      if (request.path === "/api/v1") {
        return json({
          resources: [{ name: "configmaps", kind: "ConfigMap", namespaced: true, verbs: ["list"] }],
        });
      }
      if (request.path.endsWith("/missing")) return status(404, "NotFound", "no such thing");
      if (request.query.get("watch") === "true") {
        const body = server.stream();
        body.event("ADDED", { metadata: { name: "cm", resourceVersion: "2" } });
        return body.response();
      }
      return list([], "1");
    });
    // The kubeconfig carries every kind of secret; the first login yields a stale token.
    const kubeconfig = (token: string) => `
current-context: ctx
clusters: [{ name: c, cluster: { server: "${server.url}" } }]
contexts: [{ name: ctx, context: { cluster: c, user: u } }]
users:
- name: u
  user:
    token: ${token}
    username: admin
    password: ${SECRETS.password}
`;
    let logins = 0;
    const vault = new Vault({
      relogin: async () => {
        await Deno.writeTextFile(
          `${dir}/config`,
          kubeconfig(logins++ ? SECRETS.token : SECRETS.staleToken),
        );
        return { kubeconfig: await loginWithKubeconfig({ kubeconfig: `${dir}/config` }) };
      },
    });
    // Listed in pages: this server streams no listing, and would be waited for until the
    // stream's inactivity timeout twice before the client fell back to pages by itself.
    await using api = new ApiClient(vault, {
      networking: { errorBackoffs: [] },
      watching: { listMode: "paginate" },
    });
    const resources = await new Discovery(api).resources();
    assertEquals(resources.map((r) => r.plural), ["configmaps"]);
    await assertRejects(
      () => api.request("GET", "/api/v1/namespaces/x/configmaps/missing"),
      APINotFoundError,
    );
    const controller = new AbortController();
    const cm = new Resource({ group: "", version: "v1", plural: "configmaps", namespaced: true });
    for await (const item of watchObjects(api, cm, { namespace: "x", signal: controller.signal })) {
      if (item.type === "ADDED") controller.abort();
    }
    // A client-certificate login whose key would be a secret too.
    const keyVault = new Vault();
    keyVault.populate({
      keyed: { server: server.url, certificateData: "CERT", privateKeyData: SECRETS.key },
    });
    await keyVault.select();
    assertEquals(logins, 2); // the stale token was rejected, a re-login fixed it
  } finally {
    await reset();
    await Deno.remove(dir, { recursive: true });
  }

  const lines = records.map(render);
  const traffic = records.filter((r) =>
    r.category.join(".") === "kopf.traffic" && r.level === "debug"
  );
  const seen = traffic.map((r) =>
    `${r.properties.method} ${r.properties.path} ${r.properties.status}`
  );
  assert(seen.includes("GET /api 401"), seen.join("\n"));
  assert(seen.includes("GET /api 200"), seen.join("\n"));
  assert(seen.includes("GET /api/v1/namespaces/x/configmaps/missing 404"), seen.join("\n"));
  assert(seen.some((s) => s.includes("watch=true") && s.endsWith(" 200")), seen.join("\n"));
  for (const r of traffic) assert(typeof r.properties.duration === "number", render(r));
  assert(lines.some((l) => l.includes("refused the credentials")), "the 401 refusal is logged");
  for (const secret of Object.values(SECRETS)) {
    for (const line of lines) {
      assert(!line.includes(secret), `a secret leaked into the logs: ${line}`);
    }
    assert(!lines.some((l) => l.includes(btoa(`admin:${SECRETS.password}`))), "basic auth leaked");
  }
});
