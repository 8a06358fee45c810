/**
 * What an operator asks discovery at its start: only the groups its handlers name — the
 * group's document and the version served — not every group-version the cluster serves,
 * which is a burst of requests under API Priority and Fairness; all of them when a handler
 * names its resource without a group, in the two aggregated documents (`/api`, `/apis`).
 * A resource whose CRD comes later is still served once it comes.
 */
import { assertEquals } from "../assert.ts";
import { on } from "../../src/intents/registration.ts";
import { WebhookServer } from "../../src/kits/webhooks.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import type { FakeCluster } from "../../src/testing/fake_cluster/mod.ts";
import {
  Calls,
  clusterRegistry,
  kex,
  kexCrd,
  startCluster,
  startOperator,
  whileRunning,
} from "./harness.ts";
import { FakeCluster as Cluster } from "../../src/testing/mod.ts";
import { OperatorRegistry } from "../../src/intents/registry.ts";

/** The discovery documents asked so far: `/api`, `/apis`, a group's, a group-version's. */
function discoveryRequests(cluster: FakeCluster): string[] {
  return cluster.requests
    .filter((r) => r.verb === "" && /^\/(api(\/[^/]+)?|apis(\/[^/]+){0,2})$/.test(r.path))
    .map((r) => r.path);
}

Deno.test("an operator on kopfexamples.kopf.dev asks discovery for kopf.dev only: two requests", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const created = new Calls<string>();
  on.create("kopfexamples.kopf.dev", { registry }, ({ name }) => created.add(String(name)));
  await whileRunning(registry, async () => {
    assertEquals(discoveryRequests(cluster), ["/apis/kopf.dev", "/apis/kopf.dev/v1"]);
    cluster.create(kex("kex1"));
    await created.until(1);
  });
});

Deno.test("with peering, the peering's groups are asked too, and a group's documents once", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  on.event("kopfexamples.kopf.dev", { registry }, () => {});
  await whileRunning(registry, () => {
    assertEquals(discoveryRequests(cluster).sort(), [
      "/apis/kopf.dev",
      "/apis/kopf.dev/v1",
      "/apis/kopf.zalando.org",
    ]);
    return Promise.resolve();
  }, { standalone: false });
});

Deno.test("admission asks the same groups as the observation: the same two documents", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  on.startup({ registry }, ({ settings }) => {
    settings.admission.server = new WebhookServer({ port: 0 });
    settings.admission.managed = "start.kopf.dev";
  });
  on.validate("kopfexamples.kopf.dev", { registry }, () => {});
  on.event("kopfexamples.kopf.dev", { registry }, () => {});
  await whileRunning(registry, () => {
    assertEquals(discoveryRequests(cluster), ["/apis/kopf.dev", "/apis/kopf.dev/v1"]);
    const config = cluster.get(
      { apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingWebhookConfiguration" },
      "start.kopf.dev",
    ) as RawBody & { webhooks: { rules: { resources: string[] }[] }[] };
    assertEquals(config.webhooks[0].rules[0].resources, ["kopfexamples"]);
    return Promise.resolve();
  });
});

Deno.test("a group and a version named, or the core group's v1: one or two requests", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  on.event("kopfexamples.v1.kopf.dev", { registry }, () => {});
  on.event("v1", "configmaps", { registry }, () => {});
  on.event({ group: "apps", version: "v1", plural: "deployments", registry }, () => {});
  await whileRunning(registry, () => {
    assertEquals(discoveryRequests(cluster).sort(), [
      "/api/v1",
      "/apis/apps",
      "/apis/apps/v1",
      "/apis/kopf.dev",
      "/apis/kopf.dev/v1",
    ]);
    return Promise.resolve();
  });
});

Deno.test("a resource named without its group: every group, in the two aggregated documents", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const created = new Calls<string>();
  on.create("kopfexamples", { registry }, ({ name }) => created.add(String(name)));
  await whileRunning(registry, async () => {
    assertEquals(discoveryRequests(cluster).sort(), ["/api", "/apis"]);
    cluster.create(kex("kex1"));
    await created.until(1);
  });
});

Deno.test("a resource of a group not served yet is served once its CRD comes", async () => {
  await using cluster = await Cluster.start();
  const registry = clusterRegistry(cluster);
  const created = new Calls<string>();
  on.create("kopfexamples.kopf.dev", { registry }, ({ name }) => created.add(String(name)));
  const operator = await startOperator(registry);
  try {
    assertEquals(discoveryRequests(cluster), ["/apis/kopf.dev"], "the group is not served");
    cluster.create(kexCrd());
    await cluster.waitFor(
      "customresourcedefinitions",
      "kopfexamples.kopf.dev",
      (crd) =>
        (crd?.status as { conditions?: { type: string; status: string }[] })?.conditions
          ?.some((c) => c.type === "Established" && c.status === "True") ?? false,
    );
    cluster.create(kex("kex1"));
    await created.until(1);
    assertEquals(
      discoveryRequests(cluster).filter((path) => !path.startsWith("/apis/kopf.dev")),
      [],
      "only kopf.dev is asked again",
    );
  } finally {
    await operator.stop();
  }
});

/**
 * In front of the fake cluster: holds the answer to the watch of CRDs until released, as a
 * cluster's many CRDs, schemas and all, take long to list; passes everything else.
 */
function crdHoldingProxy(upstream: string): {
  url: string;
  release: () => void;
  [Symbol.asyncDispose]: () => Promise<void>;
} {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const aborts = new Set<AbortController>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    if (url.pathname.endsWith("/customresourcedefinitions")) await released;
    const headers = new Headers(req.headers);
    headers.delete("host");
    const abort = new AbortController();
    aborts.add(abort);
    const body = req.body === null ? undefined : await req.arrayBuffer();
    const answer = await fetch(upstream + url.pathname + url.search, {
      method: req.method,
      headers,
      body,
      signal: abort.signal,
    });
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    release,
    [Symbol.asyncDispose]: async () => {
      release();
      for (const abort of aborts) abort.abort();
      await server.shutdown();
    },
  };
}

Deno.test("objects are served while the CRDs' listing is still on its way", async () => {
  await using cluster = await startCluster();
  await using proxy = crdHoldingProxy(cluster.connectionInfo.server!);
  const registry = new OperatorRegistry({ onWarning: () => {} });
  on.login(
    { registry, id: "test-login" },
    () => ({ ...cluster.connectionInfo, server: proxy.url }),
  );
  const created = new Calls<string>();
  on.create("kopfexamples.kopf.dev", { registry }, ({ name }) => created.add(String(name)));
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    await created.until(1); // the CRDs' watch not answered yet
    proxy.release();
  });
});
