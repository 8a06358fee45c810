/**
 * A resource name a typo away from a served one ends the operator at its start with a line
 * that names the served resource, rather than an operator that waits and does nothing: a
 * KopfRunner test of it fails at once, not at its timeout.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { kopf } from "../../mod.ts";
import { FakeCluster, KopfRunner } from "../../src/testing/mod.ts";

const WEBAPPS_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "webapps.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "webapps", singular: "webapp", kind: "WebApp" },
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
    }],
  },
};

Deno.test("an operator on 'webaps' when webapps is served ends at once, naming webapps", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(WEBAPPS_CRD);
  await cluster.waitFor(
    "customresourcedefinitions",
    "webapps.example.com",
    (crd) =>
      (crd?.status as { conditions?: { type: string; status: string }[] })?.conditions
        ?.some((c) => c.type === "Established" && c.status === "True") ?? false,
  );
  const registry = new kopf.OperatorRegistry();
  kopf.on.create("webaps", { registry }, () => {});
  const started = performance.now();
  const runner = await KopfRunner.start(["run", "--standalone", "-A"], {
    registry,
    cluster,
    reraise: false,
  });
  await runner.stop();
  assert(performance.now() - started < 5000, "it ends at its start");
  assertEquals(runner.exitCode === 0, false);
  assertStringIncludes(runner.output, 'No served resource is named "webaps"');
  assertStringIncludes(runner.output, 'did you mean "webapps.example.com"?');
});

Deno.test("a child resource 'confgmaps' ends the operator at once, naming configmaps", async () => {
  await using cluster = await FakeCluster.start();
  const registry = new kopf.OperatorRegistry();
  kopf.on.child("pods", "confgmaps", { registry, id: "repair" }, () => {});
  const runner = await KopfRunner.start(["run", "--standalone", "-A"], {
    registry,
    cluster,
    reraise: false,
  });
  await runner.stop();
  assertEquals(runner.exitCode === 0, false);
  assertStringIncludes(runner.output, 'No served resource is named "confgmaps"');
  assertStringIncludes(runner.output, "kopf.on.child handler repair");
  assertStringIncludes(runner.output, 'did you mean "configmaps"?');
});

Deno.test("a resource named with its group waits for it to appear, typo or not", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(WEBAPPS_CRD);
  const registry = new kopf.OperatorRegistry();
  kopf.on.create("webaps.example.com", { registry }, () => {});
  await using runner = await KopfRunner.start(["run", "--standalone", "-A"], { registry, cluster });
  await runner.waitForOutput("No served resource matches webaps.example.com yet");
  assert(runner.running);
});
