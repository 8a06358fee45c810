// Runs under Node against the npm build (copied into the package directory, so that
// the package imports itself by name). Prints one JSON report line on stdout.
// Usage: node smoke.mjs <api-server-url>
import process from "node:process";
import * as named from "@kopf/kopf";
import { kopf } from "@kopf/kopf";
import * as testing from "@kopf/kopf/testing";
import { buildCli } from "@kopf/kopf/cli";

const server = process.argv[2];
const configmaps = new kopf.Resource({
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
});
const url = configmaps.getUrl({ server, namespace: "default", params: { limit: 10 } });
const response = await fetch(url, { headers: { accept: "application/json" } });
const list = await response.json();

console.log(JSON.stringify({
  node: process.versions.node,
  hasDeno: typeof globalThis.Deno !== "undefined",
  namespaceMatchesNamedExports: named.Resource === kopf.Resource,
  testingExports: Object.keys(testing).sort(),
  cliName: buildCli().name(),
  url,
  status: response.status,
  names: list.items.map((item) => item.metadata.name),
}));
