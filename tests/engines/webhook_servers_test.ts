/**
 * A webhook server under an idle-connection attack, in a running operator: the fake API
 * server's admission calls (from another address) are still answered at once, because a
 * client holds only its share of `settings.admission`'s connections; and the operator's
 * probe server takes its share from `settings.endpoints`.
 */
import { admissionServerLimits } from "../../src/engines/webhook_servers.ts";
import { AdmissionSettings } from "../../src/settings/cluster_settings.ts";
import { on } from "../../src/intents/registration.ts";
import { WebhookServer } from "../../src/kits/webhooks.ts";
import { AdmissionError } from "../../src/structs/errors.ts";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { call } from "../testing/fake_cluster/helpers.ts";
import {
  clusterRegistry,
  freePort,
  kex,
  startCluster,
  startOperator,
  testSettings,
} from "../operator/harness.ts";
import { IdleClient } from "../platform/idle_clients.ts";

const KEXES = "/apis/kopf.dev/v1/namespaces/default/kopfexamples";

Deno.test("admissionServerLimits gives settings.admission's bounds, a client's share among them", () => {
  const settings = new AdmissionSettings();
  settings.clientConnectionLimit = 16;
  assertEquals(admissionServerLimits(settings), {
    bodyLimit: 7 * 1024 * 1024,
    bufferLimit: 64 * 1024 * 1024,
    headerTimeout: 10,
    bodyTimeout: 30,
    idleTimeout: 30,
    clientConnectionLimit: 16,
    connectionLimit: 1024,
  });
  assertEquals(admissionServerLimits().clientConnectionLimit, 128);
});

Deno.test("256 idle connections to the webhook port: the API server's admission calls still answer within 1 s", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const server = new WebhookServer({ port: 0 });
  on.startup({ registry }, ({ settings }) => {
    settings.admission.server = server;
    settings.admission.managed = "slots.kopf.dev";
  });
  on.validate("kex", { registry }, function numbersRange({ spec }) {
    if ((spec.numbers as number[] | undefined)?.some((n) => n > 100)) {
      throw new AdmissionError("Too big.");
    }
  });
  const liveness = `http://127.0.0.1:${freePort()}/healthz`;
  const settings = testSettings({ endpoints: { clientConnectionLimit: 2 } });
  const op = await startOperator(registry, { settings, livenessEndpoint: liveness });
  try {
    const { port } = new URL(server.url!);
    const share = admissionServerLimits().clientConnectionLimit;
    using idle = await IdleClient.open(Number(port), 256);
    assert(await idle.closedAtLeast(256 - share), `the server closed ${idle.closed} of 256`);
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const denied = await call(cluster, "POST", KEXES, kex(`big${i}`, { numbers: [500] }));
      const created = await call(cluster, "POST", KEXES, kex(`fine${i}`, { numbers: [1] }));
      const elapsed = performance.now() - started;
      // The handler's denial, not a failed call (which would fail closed, also with 500).
      assertStringIncludes(denied.body.message ?? "", "denied the request: Too big.");
      assertEquals(created.status, 201, JSON.stringify(created.body));
      assert(elapsed < 1000, `two admission calls took ${elapsed} ms`);
    }
    assertEquals(idle.open, share, "the idle client keeps its share of the webhook port");

    // The probe server holds its clients to settings.endpoints, as the startup left it.
    using probing = await IdleClient.open(Number(new URL(liveness).port), 10);
    assert(await probing.closedAtLeast(8), `the probe server closed ${probing.closed} of 10`);
    const probe = await fetch(liveness, { signal: AbortSignal.timeout(1000) });
    assertEquals(probe.status, 200);
    await probe.body?.cancel();
    assertEquals(probing.open, 2);
  } finally {
    await op.stop();
  }
});
