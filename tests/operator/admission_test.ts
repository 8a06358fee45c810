/**
 * Admission control in a running operator against the FakeCluster: the webhook server
 * starts, the managed webhook configurations are written and trimmed to the persistent
 * webhooks on exit, and objects created through the fake cluster's HTTP API are denied
 * or mutated by the operator's handlers (the fake API server calls the webhooks).
 */
import { AdmissionError, ConfigurationError } from "../../src/structs/errors.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { on } from "../../src/intents/registration.ts";
import { operator } from "../../src/reactor/running.ts";
import { OperatorConfigurationError } from "../../src/reactor/operator_options.ts";
import { WebhookNgrokTunnel, WebhookServer } from "../../src/kits/webhooks.ts";
import type { AdmissionServerContext, WebhookFn } from "../../src/engines/webhook_servers.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import { call } from "../testing/fake_cluster/helpers.ts";
import { until } from "./replicas.ts";
import { quote } from "../doc_quotes.ts";
import { assertPromtoolAccepts } from "../promtool.ts";
import {
  clusterRegistry,
  freePort,
  kex,
  kexCrd,
  LOGS,
  startCluster,
  startOperator,
  testSettings,
} from "./harness.ts";

const VALIDATING = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingWebhookConfiguration",
};
const MUTATING = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "MutatingWebhookConfiguration",
};
const KEXES = "/apis/kopf.dev/v1/namespaces/default/kopfexamples";

interface Hook {
  name: string;
  clientConfig: { url: string; caBundle?: string };
  rules: { resources: string[]; operations: string[] }[];
  failurePolicy: string;
}

function hooksOf(cluster: FakeCluster, kind: typeof VALIDATING, name: string): Hook[] {
  const config = cluster.get(kind, name) as RawBody & { webhooks?: Hook[] } | undefined;
  assert(config !== undefined, `${kind.kind} ${name} is absent`);
  return config.webhooks ?? [];
}

/** Kopf's admission example, as handlers on a registry. */
function admissionRegistry(cluster: FakeCluster, managed: string) {
  const registry = clusterRegistry(cluster);
  on.startup({ registry }, ({ settings }) => {
    settings.admission.server = new WebhookServer({ port: 0 });
    settings.admission.managed = managed;
  });
  on.validate("kex", { registry }, function numbersRange({ spec, warnings }) {
    const numbers = spec.numbers;
    if (numbers === undefined) return;
    if (!Array.isArray(numbers)) throw new AdmissionError("Numbers must be a list if present.");
    if (!numbers.every((n) => Number(n) >= 0 && Number(n) <= 100)) {
      throw new AdmissionError("Numbers must be within 0..100.", { code: 499 });
    }
    warnings.push("Verified by the operator.");
  });
  on.mutate("kex", { registry, persistent: true }, function defaultNumbers({ spec, patch }) {
    if (spec.numbers === undefined) patch.spec.numbers = [1, 2, 3];
  });
  return registry;
}

Deno.test("the managed configurations get one webhook per handler, and keep the persistent ones on exit", async () => {
  await using cluster = await startCluster();
  const registry = admissionRegistry(cluster, "auto.kopf.dev");
  const op = await startOperator(registry);
  try {
    const validating = hooksOf(cluster, VALIDATING, "auto.kopf.dev");
    const mutating = hooksOf(cluster, MUTATING, "auto.kopf.dev");
    assertEquals(validating.map((h) => h.name), ["numbersrange.auto.kopf.dev"]);
    assertEquals(mutating.map((h) => h.name), ["defaultnumbers.auto.kopf.dev"]);
    const hook = validating[0];
    assert(hook.clientConfig.url.startsWith("https://127.0.0.1:"));
    assert(hook.clientConfig.url.endsWith("/numbersRange"));
    assert(atob(hook.clientConfig.caBundle!).includes("BEGIN CERTIFICATE"));
    assertEquals(hook.rules[0].resources, ["kopfexamples"]);
    assertEquals(hook.rules[0].operations, ["*"]);
    assertEquals(hook.failurePolicy, "Fail");
  } finally {
    await op.stop();
  }
  assertEquals(hooksOf(cluster, VALIDATING, "auto.kopf.dev"), []);
  assertEquals(hooksOf(cluster, MUTATING, "auto.kopf.dev").map((h) => h.name), [
    "defaultnumbers.auto.kopf.dev",
  ]);
});

Deno.test("objects created through the API are denied or mutated by the operator's handlers", async () => {
  await using cluster = await startCluster();
  const registry = admissionRegistry(cluster, "auto.kopf.dev");
  const op = await startOperator(registry);
  try {
    const denied = await call(cluster, "POST", KEXES, kex("bad", { numbers: [1, 500] }));
    assertEquals(denied.status, 499, JSON.stringify(denied.body));
    assertStringIncludes(denied.body.message, "Numbers must be within 0..100.");
    assertStringIncludes(denied.body.message, "numbersrange.auto.kopf.dev");
    assertEquals(cluster.get({ apiVersion: "kopf.dev/v1", kind: "KopfExample" }, "bad"), undefined);

    const notAList = await call(cluster, "POST", KEXES, kex("odd", { numbers: "x" }));
    assertEquals(notAList.status, 500, JSON.stringify(notAList.body));
    assertStringIncludes(notAList.body.message, "Numbers must be a list if present.");

    const created = await call(cluster, "POST", KEXES, kex("good"));
    assertEquals(created.status, 201, JSON.stringify(created.body));
    assertEquals(created.body.spec.numbers, [1, 2, 3]);
    assertStringIncludes(created.headers.get("warning") ?? "", "Verified by the operator.");
    const stored = cluster.get({ apiVersion: "kopf.dev/v1", kind: "KopfExample" }, "good");
    assertEquals((stored?.spec as { numbers?: unknown } | undefined)?.numbers, [1, 2, 3]);
  } finally {
    await op.stop();
  }
});

Deno.test("admission handlers without a webhook server fail the start after the startup handlers", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  on.validate("kex", { registry }, function check() {});
  const error = await assertRejects(
    () => operator({ registry, settings: testSettings(), standalone: true }),
    OperatorConfigurationError,
  );
  assertStringIncludes(error.message, "settings.admission.server");
  assert(!error.message.includes("\n"));
});

Deno.test("a tunnel fails the operator's start with one line saying what to use instead", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  on.validate("kex", { registry }, function check() {});
  const settings = testSettings();
  settings.admission.server = new WebhookNgrokTunnel();
  const error = await assertRejects(
    () => operator({ registry, settings, standalone: true, namespaces: ["default"] }),
    ConfigurationError,
  );
  assertStringIncludes(error.message, "not supported by this version");
  assertStringIncludes(error.message, "kopf.WebhookServer");
});

Deno.test("the managed webhooks' rules follow resources that appear after the start", async () => {
  await using cluster = await FakeCluster.start();
  const registry = admissionRegistry(cluster, "late.kopf.dev");
  const op = await startOperator(registry);
  try {
    assertEquals(hooksOf(cluster, VALIDATING, "late.kopf.dev")[0].rules, []);
    cluster.create(kexCrd());
    await cluster.waitForRequest((r) =>
      r.method === "PATCH" && r.path.endsWith("/validatingwebhookconfigurations/late.kopf.dev") &&
      hooksOf(cluster, VALIDATING, "late.kopf.dev")[0].rules.length > 0
    );
    assertEquals(hooksOf(cluster, VALIDATING, "late.kopf.dev")[0].rules[0].resources, [
      "kopfexamples",
    ]);
  } finally {
    await op.stop();
  }
});

Deno.test("a custom server function is served; when it ends unexpectedly, the operator fails", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  on.validate("kex", { registry }, function check() {});
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const settings = testSettings();
  settings.admission.managed = "custom.kopf.dev";
  settings.admission.server = async function* custom() {
    yield { url: "https://webhooks.example.com/base" };
    await released;
  };
  const op = operator({ registry, settings, standalone: true, namespaces: ["default"] });
  await cluster.waitForRequest((r) =>
    r.method === "POST" && r.path.endsWith("/mutatingwebhookconfigurations")
  );
  const hooks = hooksOf(cluster, VALIDATING, "custom.kopf.dev");
  assertEquals(hooks[0].clientConfig, { url: "https://webhooks.example.com/base/check" });
  release();
  const error = await assertRejects(() => op, ConfigurationError);
  assertStringIncludes(error.message, "The webhook server has stopped unexpectedly;");
});

Deno.test("a server that ends before yielding its client config fails the start with a ConfigurationError", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  on.validate("kex", { registry }, function check() {});
  const settings = testSettings();
  settings.admission.server = async function* silent() {};
  await assertRejects(
    () => operator({ registry, settings, standalone: true, namespaces: ["default"] }),
    ConfigurationError,
    "The webhook server ended before it said where it listens",
  );
});

Deno.test("a refused write of the managed configurations fails the start, stops the server and removes its webhooks", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  on.validate("kex", { registry }, function check() {});
  on.mutate("kex", { registry }, function change() {});
  const settings = testSettings();
  settings.admission.managed = "refused.kopf.dev";
  let closed = false;
  settings.admission.server = async function* custom(
    _fn: WebhookFn,
    context: AdmissionServerContext,
  ) {
    try {
      yield { url: "https://webhooks.example.com/base" };
      await new Promise<void>((resolve) =>
        context.signal.addEventListener("abort", () => resolve())
      );
    } finally {
      closed = true;
    }
  };
  cluster.faults.failRequests({
    share: 1,
    status: 403,
    verbs: ["create"],
    resources: ["mutatingwebhookconfigurations"],
  });
  const error = await assertRejects(() =>
    operator({ registry, settings, standalone: true, namespaces: ["default"] })
  );
  assertStringIncludes(error.message, "403");
  assert(closed, "the webhook server is left listening");
  assertEquals(hooksOf(cluster, VALIDATING, "refused.kopf.dev"), []);
});

Deno.test("a server that ignores the stop signal does not hold the operator's exit", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  on.validate("kex", { registry }, function check() {});
  const settings = testSettings();
  settings.admission.managed = "deaf.kopf.dev";
  settings.admission.server = async function* deaf() {
    yield { url: "https://webhooks.example.com/base" };
    await new Promise<void>(() => {}); // as Kopf's examples do: wait forever
  };
  const op = await startOperator(registry, { settings });
  await op.stop(); // fails if the operator does not stop in time
  assertEquals(hooksOf(cluster, VALIDATING, "deaf.kopf.dev"), []);
});

Deno.test("with leader election, only the leader serves admission; the next leader takes it over", async () => {
  await using cluster = await startCluster();
  const settings = () =>
    testSettings({
      leadership: {
        leaderElection: true,
        name: "admission",
        leaseDuration: 2,
        renewDeadline: 1.5,
        retryPeriod: 0.2,
      },
    });
  const ports = [freePort(), freePort()];
  const endpoint = (i: number) => `http://127.0.0.1:${ports[i]}/metrics`;
  const probe = async (i: number) => {
    const ready = await fetch(`http://127.0.0.1:${ports[i]}/readyz`);
    const metrics = await (await fetch(endpoint(i))).text();
    const leading = metrics.split("\n").find((line) => line.startsWith("kopf_leading "));
    return [ready.status, (await ready.text()).trim(), leading];
  };
  const one = await startOperator(admissionRegistry(cluster, "auto.kopf.dev"), {
    settings: settings(),
    metricsEndpoint: endpoint(0),
  });
  let two: Awaited<ReturnType<typeof startOperator>> | undefined;
  try {
    const first = await cluster.waitFor(VALIDATING, "auto.kopf.dev", (c) => c !== undefined);
    const leaderUrl = (first as RawBody & { webhooks: Hook[] }).webhooks[0].clientConfig.url;
    const leaderHost = new URL(leaderUrl).host;
    two = await startOperator(admissionRegistry(cluster, "auto.kopf.dev"), {
      settings: settings(),
      metricsEndpoint: endpoint(1),
    });
    // Once the standby has seen the leader's Lease, it has not written its own server's
    // address, and is not ready: a Service sends the reviews to the leader only.
    await until("the standby to see the leader", () => {
      return LOGS.some((line) => line.includes("On standby: the Lease admission is held by"));
    }, 10);
    assertEquals(hooksOf(cluster, VALIDATING, "auto.kopf.dev")[0].clientConfig.url, leaderUrl);
    assertEquals(await probe(0), [200, "ready", "kopf_leading 1"]);
    // As docs/replicas.md quotes it.
    const standby = await quote("replicas.md", "on standby: ");
    assertEquals(await probe(1), [503, `not ready: ${standby}`, "kopf_leading 0"]);

    await one.stop();
    // Both configurations point at the new leader's server (here, unlike behind a
    // Service, each server has an address of its own).
    for (const kind of [VALIDATING, MUTATING]) {
      await cluster.waitFor(kind, "auto.kopf.dev", (c) => {
        const hooks = (c as RawBody & { webhooks?: Hook[] } | undefined)?.webhooks ?? [];
        return hooks.length > 0 && new URL(hooks[0].clientConfig.url).host !== leaderHost;
      }, { timeout: 10 });
    }
    const denied = await call(cluster, "POST", KEXES, kex("bad", { numbers: [1000] }));
    assertEquals(denied.status, 499, JSON.stringify(denied.body));
    assertEquals(await probe(1), [200, "ready", "kopf_leading 1"]);
    assertStringIncludes(JSON.stringify(denied.body), "Numbers must be within 0..100.");
  } finally {
    await one.stop().catch(() => {});
    await two?.stop();
  }
});

/** A review request of a KopfExample, as the API server sends it. */
function reviewOf(operation: string, uid: string = crypto.randomUUID()) {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      kind: { group: "kopf.dev", version: "v1", kind: "KopfExample" },
      resource: { group: "kopf.dev", version: "v1", resource: "kopfexamples" },
      name: "kex1",
      namespace: "default",
      operation,
      object: kex("kex1", { numbers: [1] }),
    },
  };
}

/**
 * What the server sends on a connection until it closes it; `undefined` if it keeps it
 * open for `ms` (then the client closes it).
 */
async function readUntilClosed(conn: Deno.Conn, ms: number): Promise<string | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), ms)));
  const buffer = new Uint8Array(4096);
  let text = "";
  try {
    while (true) {
      const n = await Promise.race([conn.read(buffer).catch(() => null), late]);
      if (n === "late") return undefined;
      if (n === null) return text;
      text += new TextDecoder().decode(buffer.subarray(0, n));
    }
  } finally {
    clearTimeout(timer);
    conn.close();
  }
}

/** An operator with one validating handler, its webhook server on plain HTTP, and metrics. */
async function startInsecureAdmission(cluster: FakeCluster, settings = testSettings()) {
  const registry = clusterRegistry(cluster);
  const server = new WebhookServer({ port: 0, insecure: true });
  settings.admission.server = server;
  on.validate("kex", { registry }, function numbersRange({ spec }) {
    if ((spec.numbers as number[]).some((n) => n > 100)) throw new AdmissionError("Too big.");
  });
  const metrics = `http://127.0.0.1:${freePort()}/metrics`;
  const op = await startOperator(registry, { settings, metricsEndpoint: metrics });
  return { op, url: server.url!, metrics };
}

Deno.test("reviews at random webhook paths and operations keep the admission metrics to a few series", async () => {
  await using cluster = await startCluster();
  const { op, url, metrics } = await startInsecureAdmission(cluster);
  try {
    const operations = ["CREATE", "UPDATE", "DELETE", "CONNECT", "PATCH", "", "X".repeat(50)];
    const post = async (i: number) => {
      // Every 10th a review for the registered handler; the others anyone's guess.
      const path = i % 10 === 0 ? "numbersRange" : crypto.randomUUID();
      const operation = operations[i % operations.length] + (i % 3 === 0 ? "" : String(i));
      const response = await fetch(`${url}/${path}`, {
        method: "POST",
        body: JSON.stringify(reviewOf(i % 10 === 0 ? "CREATE" : operation)),
      });
      await response.body?.cancel();
    };
    for (let i = 0; i < 3000; i += 20) {
      await Promise.all(Array.from({ length: 20 }, (_, j) => post(i + j)));
    }
    const text = await (await fetch(metrics)).text();
    const series = text.split("\n").filter((line) => line.startsWith("kopf_admission_"));
    const webhooks = new Set(series.map((line) => /webhook="([^"]*)"/.exec(line)?.[1]));
    const operationsSeen = new Set(series.map((line) => /operation="([^"]*)"/.exec(line)?.[1]));
    assertEquals([...webhooks].sort(), ["numbersRange", "unknown"]);
    assertEquals([...operationsSeen].filter(Boolean).sort(), [
      "CONNECT",
      "CREATE",
      "DELETE",
      "UPDATE",
      "unknown",
    ]);
    // Two webhook labels: their histograms (16 lines each) and a dozen counters at most.
    assert(series.length <= 50, `${series.length} admission series:\n${series.join("\n")}`);
    assert(text.length < 64 * 1024, `the exposition is ${text.length} bytes`);
    const allowed = series.find((line) =>
      line.startsWith(
        'kopf_admission_reviews_total{webhook="numbersRange",operation="CREATE",outcome="allowed"}',
      )
    );
    assertEquals(allowed?.split(" ")[1], "300");
    await assertPromtoolAccepts(text);
  } finally {
    await op.stop();
  }
});

Deno.test("the operator's webhook server holds its clients to settings.admission's limits", async () => {
  await using cluster = await startCluster();
  const settings = testSettings({ admission: { bodyLimit: 64 * 1024, headerTimeout: 1 } });
  const { op, url } = await startInsecureAdmission(cluster, settings);
  const { hostname, port } = new URL(url);
  const connect = () => Deno.connect({ hostname, port: Number(port) });
  try {
    const denied = await fetch(`${url}/numbersRange`, {
      method: "POST",
      body: JSON.stringify(reviewOf("CREATE", "u1")),
    });
    assertEquals(denied.status, 200);
    assertEquals((await denied.json()).response, { uid: "u1", allowed: true });

    // A review over bodyLimit is refused before its body is sent.
    const big = await connect();
    await big.write(new TextEncoder().encode(
      `POST /numbersRange HTTP/1.1\r\nHost: x\r\nContent-Length: ${65 * 1024}\r\n\r\n`,
    ));
    const refusal = await readUntilClosed(big, 5000);
    assert(refusal?.startsWith("HTTP/1.1 413 "), `the server answered: ${refusal}`);

    // A client that trickles its head is cut off after headerTimeout.
    const slow = await connect();
    const started = performance.now();
    await slow.write(new TextEncoder().encode("POST /numbersRange HTTP/1.1\r\n"));
    const trickle = setInterval(() => slow.write(new Uint8Array([97])).catch(() => {}), 200);
    const cutOff = await readUntilClosed(slow, 5000).finally(() => clearInterval(trickle));
    const elapsed = performance.now() - started;
    assert(cutOff !== undefined, "the trickling client is still connected after 5 s");
    assert(elapsed >= 900 && elapsed < 4000, `closed after ${elapsed} ms`);
  } finally {
    await op.stop();
  }
});
