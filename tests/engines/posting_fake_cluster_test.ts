/**
 * Events posted over real HTTP into the fake cluster: what `kubectl describe` would list.
 */
import { assertEquals } from "../assert.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { FakeCluster } from "../../src/testing/fake_cluster/mod.ts";
import { configure } from "../../src/platform/logging.ts";
import { info, startEventPoster } from "../../src/engines/posting.ts";
import { createObjectLogger, runInObjectScope } from "../../src/handling/object_loggers.ts";
import { runWithPostingTarget } from "../../src/handling/posting_queue.ts";
import { OperatorSettings } from "../../src/settings/operator_settings.ts";

configure({ logFormat: "plain", writer: () => {} });

Deno.test("log records and kopf.info() become Events stored by the cluster, cluster-scoped in default", async () => {
  await using cluster = await FakeCluster.start();
  const configMap = cluster.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm", namespace: "default" },
  });
  const namespace = cluster.create({
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: "team" },
  });
  const vault = new Vault({ relogin: () => Promise.resolve({ fake: cluster.connectionInfo }) });
  const api = new ApiClient(vault);
  const stop = new AbortController();
  try {
    const posting = startEventPoster({
      creator: api,
      settings: new OperatorSettings(),
      signal: stop.signal,
    });
    await runWithPostingTarget(posting.target, async () => {
      const logger = createObjectLogger(configMap);
      await runInObjectScope({ body: configMap, logger }, async () => {
        await Promise.resolve();
        logger.info("Handler 'create_fn' succeeded.");
        info(namespace, { reason: "Adopted", message: "The namespace is ours." });
      });
    });
    stop.abort();
    await posting.done;
  } finally {
    await api.close();
  }
  const events = cluster.list({ apiVersion: "v1", kind: "Event" }, { allNamespaces: true });
  const seen = events.map((e) => {
    const involved = e.involvedObject as Record<string, string>;
    return [e.metadata?.namespace, involved.kind, involved.name, e.type, e.reason, e.message];
  }).sort((a, b) => String(a[1]).localeCompare(String(b[1])));
  assertEquals(seen, [
    ["default", "ConfigMap", "cm", "Normal", "Logging", "Handler 'create_fn' succeeded."],
    ["default", "Namespace", "team", "Normal", "Adopted", "The namespace is ours."],
  ]);
  for (const event of events) {
    assertEquals(event.metadata?.name?.startsWith("kopf-event-"), true);
    assertEquals(event.source, { component: "kopf" });
    assertEquals(event.count, 1);
  }
  const cm = events.find((e) => (e.involvedObject as Record<string, string>).kind === "ConfigMap");
  assertEquals((cm?.involvedObject as Record<string, string>).uid, configMap.metadata?.uid);
});
