// Runs under Node against the npm build (copied into the package directory, so that
// the package imports itself by name). Prints one JSON report line on stdout.
// Usage: node smoke.mjs <api-server-url of a FakeCluster running in Deno>
import https from "node:https";
import process from "node:process";
import * as named from "@kopf/kopf";
import { kopf } from "@kopf/kopf";
import { FakeCluster } from "@kopf/kopf/testing";
import { buildCli } from "@kopf/kopf/cli";

const configmaps = new kopf.Resource({
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
});

// 1. The public API against the API server served by the Deno process.
const remote = process.argv[2];
const url = configmaps.getUrl({ server: remote, namespace: "default", params: { limit: 10 } });
const response = await fetch(url, { headers: { accept: "application/json" } });
const list = await response.json();

// 2. The testing kit under Node: a FakeCluster over HTTPS with a generated CA and a token.
const local = await FakeCluster.start({ tls: true });
const info = local.connectionInfo;
const created = await new Promise((resolve, reject) => {
  const target = new URL(configmaps.getUrl({ server: info.server, namespace: "default" }));
  const request = https.request(target, {
    method: "POST",
    ca: info.caData,
    headers: { authorization: `Bearer ${info.token}`, "content-type": "application/json" },
  }, (res) => {
    let body = "";
    res.on("data", (chunk) => body += chunk);
    res.on("end", () => resolve({ status: res.statusCode, body: JSON.parse(body) }));
  });
  request.on("error", reject);
  request.end(JSON.stringify({ metadata: { name: "from-node" }, data: { runtime: "node" } }));
});
const stored = local.get("configmaps", "from-node");
await local.stop();

console.log(JSON.stringify({
  hasDeno: typeof globalThis.Deno !== "undefined",
  onlyTheNamespaceIsAValue: Object.keys(named).join(","),
  cliName: buildCli().name(),
  url,
  status: response.status,
  names: list.items.map((item) => item.metadata.name),
  localTls: info.server.startsWith("https://127.0.0.1:"),
  createdStatus: created.status,
  storedData: stored?.data,
}));
