/** examples/17-admission: the operator's webhooks deny and mutate objects written through the API. */
import { assertEquals, assertStringIncludes } from "../assert.ts";
import { call } from "../testing/fake_cluster/helpers.ts";
import { clusterWithCrd, KIND, manifest, runExample } from "./helpers.ts";

const KEXES = "/apis/kopf.dev/v1/namespaces/default/kopfexamples";

Deno.test("17-admission: objects are denied, warned about and mutated by the operator's webhooks", async () => {
  await using cluster = await clusterWithCrd();
  const runner = await runExample("17-admission", cluster);
  try {
    // The managed configurations are written once the server listens.
    await cluster.waitForRequest((r) =>
      r.method === "PATCH" && r.path.includes("/mutatingwebhookconfigurations/auto.kopf.dev") ||
      r.method === "POST" && r.path.endsWith("/mutatingwebhookconfigurations")
    );
    const obj = await manifest("obj.yaml");
    const spec = obj.spec as Record<string, unknown>;
    const named = (name: string, extra: Record<string, unknown>, labels = {}) => ({
      ...obj,
      metadata: { ...obj.metadata, name, labels },
      spec: { ...spec, ...extra },
    });

    const wrong = await call(cluster, "POST", KEXES, named("wrong", { field: "wrong" }));
    assertEquals(wrong.status, 500, JSON.stringify(wrong.body));
    assertStringIncludes(wrong.body.message, "The field must not be 'wrong'");
    const forbidden = await call(
      cluster,
      "POST",
      KEXES,
      named("forbidden", { field: "forbidden" }),
    );
    assertEquals(forbidden.status, 422, JSON.stringify(forbidden.body));
    assertStringIncludes(forbidden.body.message, "notforbidden.auto.kopf.dev");

    const dry = await call(
      cluster,
      "POST",
      `${KEXES}?dryRun=All`,
      named("dry", { field: "wrong" }),
    );
    assertEquals(dry.status, 201, JSON.stringify(dry.body));

    const labelled = await call(
      cluster,
      "POST",
      KEXES,
      named("labelled", {}, { somelabel: "somevalue" }),
    );
    assertEquals(labelled.status, 201, JSON.stringify(labelled.body));
    assertEquals(labelled.body.spec.injected, 123);
    assertStringIncludes(labelled.headers.get("warning") ?? "", "The caller is anonymous.");
    const plain = await call(cluster, "POST", KEXES, named("plain", {}));
    assertEquals(plain.status, 201);
    assertEquals(plain.body.spec.injected, undefined);
    assertEquals(cluster.get(KIND, "wrong"), undefined);
  } finally {
    await runner.stop();
  }
});
