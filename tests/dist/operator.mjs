// Runs a whole operator under Node with the npm build: a FakeCluster over HTTPS (its CA
// and token through a login handler), a create handler, and a graceful stop. Prints one
// JSON report line on stdout. Usage: node operator.mjs (from the package directory).
import process from "node:process";
import { kopf } from "@kopf/kopf";
import { FakeCluster } from "@kopf/kopf/testing";

const cluster = await FakeCluster.start({ tls: true });
kopf.on.login({ id: "fake-cluster" }, () => cluster.connectionInfo);

const handled = new Promise((resolve) => {
  kopf.on.create("v1", "configmaps", { id: "greet" }, ({ name, logger }) => {
    logger.info(`Greeting ${name}.`);
    resolve(name);
    return { runtime: `node ${process.versions.node}` };
  });
});

const stop = new AbortController();
const running = kopf.operator({
  clusterwide: true,
  standalone: true,
  signal: stop.signal,
  onReady: () => {
    cluster.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "hello", namespace: "default" },
      data: { greeting: "hi" },
    });
  },
});

const name = await handled;
const marker = "kopf.zalando.org/last-handled-configuration";
const finished = await cluster.waitFor(
  "configmaps",
  name,
  (object) => Boolean(object?.metadata?.annotations?.[marker]),
  { namespace: "default", timeout: 20 },
);
stop.abort();
await running;
await cluster.stop();

console.log(JSON.stringify({
  handled: name,
  diffBase: JSON.parse(finished.metadata.annotations[marker]),
  watched: cluster.requests.some((r) => r.path.endsWith("/configmaps") && r.method === "GET"),
}));
