/**
 * Admission webhooks called by the fake API server over HTTPS: mutation by JSON patch,
 * denials, failure policies, selectors, rules, timeouts, dry runs, DELETE reviews, warnings
 * (also through kubectl), and the record of calls.
 */
import { available } from "../../platform/commands.ts";
import { FakeCluster } from "../../../src/testing/mod.ts";
import { startHttpServer } from "../../../src/platform/http_server.ts";
import {
  generateCertificateAuthority,
  issueServerCertificate,
} from "../../../src/platform/certificates.ts";
import { assert, assertEquals, assertStringIncludes } from "../../assert.ts";
import type { JsonValue } from "../../../src/structs/bodies.ts";
import { call, configMap, exampleCrd } from "./helpers.ts";
import { patternOf, quote } from "../../doc_quotes.ts";

const CMS = "/api/v1/namespaces/default/configmaps";

// deno-lint-ignore no-explicit-any
type Review = any;

/** A TLS webhook server answering with `decide(request)`; records the reviews it got. */
async function webhookServer(
  decide: (request: Review) => Record<string, unknown> | Promise<Record<string, unknown>>,
) {
  const ca = await generateCertificateAuthority();
  const cert = await issueServerCertificate(ca, { hostnames: ["127.0.0.1"] });
  const reviews: Review[] = [];
  const urls: string[] = [];
  const server = await startHttpServer({
    tls: { certificate: cert.certPem, privateKey: cert.keyPem },
    handler: async (request) => {
      const review = await request.json();
      reviews.push(review.request);
      urls.push(request.url);
      const response = {
        uid: review.request.uid,
        allowed: true,
        ...await decide(review.request),
      };
      return Response.json({
        apiVersion: "admission.k8s.io/v1",
        kind: "AdmissionReview",
        response,
      });
    },
  });
  return {
    reviews,
    urls,
    caBundle: btoa(ca.certPem),
    url: (path: string) => `${server.url}${path}`,
    [Symbol.asyncDispose]: () => server.close(),
  };
}

function webhookConfiguration(
  kind: "Mutating" | "Validating",
  hook: Record<string, unknown>,
  operations = ["CREATE", "UPDATE"],
) {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: `${kind}WebhookConfiguration`,
    metadata: { name: `${kind.toLowerCase()}-test` },
    webhooks: [{
      name: `${kind.toLowerCase()}.kopf.dev`,
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
      rules: [{ operations, apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
      ...hook,
    }],
  };
}

Deno.test("mutating webhooks patch created objects; validating webhooks see the result and may deny", async () => {
  await using cluster = await FakeCluster.start();
  await using mutator = await webhookServer(() => ({
    patchType: "JSONPatch",
    patch: btoa(
      JSON.stringify([{ op: "add", path: "/metadata/labels", value: { mutated: "yes" } }]),
    ),
  }));
  await using validator = await webhookServer((request) =>
    request.object?.data?.bad
      ? { allowed: false, status: { code: 403, reason: "Forbidden", message: "bad data" } }
      : { warnings: ["looked fine"] }
  );
  cluster.create(webhookConfiguration("Mutating", {
    clientConfig: { url: mutator.url("/mutate"), caBundle: mutator.caBundle },
  }));
  cluster.create(webhookConfiguration("Validating", {
    clientConfig: { url: validator.url("/validate"), caBundle: validator.caBundle },
  }));
  const created = await call(cluster, "POST", CMS, configMap("a", { good: "1" }));
  assertEquals(created.status, 201);
  assertEquals(created.body.metadata.labels, { mutated: "yes" });
  assertStringIncludes(created.headers.get("warning") ?? "", "looked fine");
  assertEquals(cluster.get("configmaps", "a")?.metadata?.labels, { mutated: "yes" });
  assertEquals(validator.reviews[0].object.metadata.labels, { mutated: "yes" });
  assertEquals(validator.reviews[0].object.metadata.uid, created.body.metadata.uid);
  const mutation = mutator.reviews[0];
  assertEquals([mutation.operation, mutation.name, mutation.namespace], ["CREATE", "a", "default"]);
  assertEquals(mutation.resource, { group: "", version: "v1", resource: "configmaps" });
  assertEquals(mutation.userInfo.username, "admin");

  const denied = await call(cluster, "POST", CMS, configMap("b", { bad: "1" }));
  assertEquals([denied.status, denied.body.reason], [403, "Forbidden"]);
  assertStringIncludes(
    denied.body.message,
    'admission webhook "validating.kopf.dev" denied the request: bad data',
  );
  // As docs/testing.md quotes it, of a webhook "name".
  const words = await quote("testing.md", "admission webhook ");
  assert(patternOf(words.replace('"name"', '"validating.kopf.dev"')).test(denied.body.message));
  assertEquals(cluster.get("configmaps", "b"), undefined);

  const patched = await call(cluster, "PATCH", `${CMS}/a`, { data: { bad: "1" } }, {
    "content-type": "application/merge-patch+json",
  });
  assertEquals(patched.status, 403);
  const update = mutator.reviews.at(-1);
  assertEquals([update.operation, update.oldObject.data], ["UPDATE", { good: "1" }]);
  assertEquals(cluster.get("configmaps", "a")?.data, { good: "1" });
});

Deno.test("failurePolicy: an unreachable webhook fails the request (Fail) or is skipped (Ignore)", async () => {
  await using cluster = await FakeCluster.start();
  const unreachable = { url: "https://127.0.0.1:9/nowhere" };
  cluster.create(
    webhookConfiguration("Validating", { clientConfig: unreachable, failurePolicy: "Ignore" }),
  );
  assertEquals((await call(cluster, "POST", CMS, configMap("a"))).status, 201);
  cluster.patch("validatingwebhookconfigurations", "validating-test", [
    { op: "replace", path: "/webhooks/0/failurePolicy", value: "Fail" },
  ], { type: "json" });
  const failed = await call(cluster, "POST", CMS, configMap("b"));
  assertEquals([failed.status, failed.body.reason], [500, "InternalError"]);
  assertStringIncludes(failed.body.message, 'failed calling webhook "validating.kopf.dev"');
});

Deno.test("selectors, DELETE reviews, and dry runs against side effects", async () => {
  await using cluster = await FakeCluster.start();
  await using hook = await webhookServer((request) =>
    request.operation === "DELETE" ? { allowed: false, status: { message: "keep it" } } : {}
  );
  cluster.create(webhookConfiguration("Validating", {
    clientConfig: { url: hook.url("/v"), caBundle: hook.caBundle },
    objectSelector: { matchLabels: { checked: "yes" } },
    sideEffects: "Some",
  }, ["CREATE", "DELETE"]));
  await call(cluster, "POST", CMS, configMap("plain"));
  assertEquals(hook.reviews.length, 0, "objects outside the selector are not reviewed");
  await call(cluster, "POST", CMS, configMap("checked", {}, { labels: { checked: "yes" } }));
  assertEquals(hook.reviews.length, 1);
  const deleted = await call(cluster, "DELETE", `${CMS}/checked`);
  assertEquals([deleted.status, deleted.body.reason], [400, "BadRequest"]);
  assertStringIncludes(deleted.body.message, "keep it");
  assertEquals(hook.reviews[1].oldObject.metadata.name, "checked");
  assert(cluster.get("configmaps", "checked"), "the denied deletion did not happen");
  const dry = await call(
    cluster,
    "POST",
    `${CMS}?dryRun=All`,
    configMap("d", {}, { labels: { checked: "yes" } }),
  );
  assertEquals(dry.status, 400);
  assertStringIncludes(dry.body.message, "does not support dry run");
});

Deno.test("webhook configurations must use https URLs", async () => {
  await using cluster = await FakeCluster.start();
  const reply = await call(
    cluster,
    "POST",
    "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
    webhookConfiguration("Validating", { clientConfig: { url: "http://127.0.0.1:1/x" } }),
  );
  assertEquals([reply.status, reply.body.reason], [422, "Invalid"]);
  assertStringIncludes(reply.body.message, "'https' is the only allowed URL scheme");
});

const EXAMPLES = "/apis/kopf.dev/v1/namespaces/default/kopfexamples";

function example(name: string) {
  return { apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name }, spec: {} };
}

Deno.test("rules match by operation, resource, scope and subresource; nothing matching calls nothing", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(exampleCrd());
  await using hook = await webhookServer(() => ({}));
  const clientConfig = { url: hook.url("/v"), caBundle: hook.caBundle };
  cluster.create({
    ...webhookConfiguration("Validating", {}),
    webhooks: [
      {
        name: "status.kopf.dev",
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
        clientConfig,
        rules: [{
          operations: ["UPDATE"],
          apiGroups: ["kopf.dev"],
          apiVersions: ["*"],
          resources: ["kopfexamples/status"],
        }],
      },
      {
        name: "cluster.kopf.dev",
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
        clientConfig,
        rules: [{
          operations: ["CREATE"],
          apiGroups: ["*"],
          apiVersions: ["*"],
          resources: ["*"],
          scope: "Cluster",
        }],
      },
      {
        name: "deletes.kopf.dev",
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
        clientConfig,
        rules: [{
          operations: ["DELETE"],
          apiGroups: ["kopf.dev"],
          apiVersions: ["v1"],
          resources: ["kopfexamples"],
          scope: "Namespaced",
        }],
      },
    ],
  });
  const calls = () => cluster.admissionCalls.map((c) => `${c.webhook} ${c.operation}`);

  // Namespaced creates and updates of the object itself match none of the rules.
  assertEquals((await call(cluster, "POST", CMS, configMap("a"))).status, 201);
  assertEquals((await call(cluster, "POST", EXAMPLES, example("x"))).status, 201);
  const merge = { "content-type": "application/merge-patch+json" };
  assertEquals(
    (await call(cluster, "PATCH", `${EXAMPLES}/x`, { spec: { field: "f" } }, merge)).status,
    200,
  );
  assertEquals(hook.reviews.length, 0);
  assertEquals(cluster.admissionCalls.length, 0);

  // The status subresource is reviewed only by the rule naming it.
  const status = await call(cluster, "PATCH", `${EXAMPLES}/x/status`, { status: { ok: 1 } }, merge);
  assertEquals(status.status, 200);
  assertEquals(calls(), ["status.kopf.dev UPDATE"]);
  assertEquals(hook.reviews[0].subResource, "status");
  assertEquals(hook.reviews[0].resource, {
    group: "kopf.dev",
    version: "v1",
    resource: "kopfexamples",
  });
  assertEquals(hook.reviews[0].oldObject.status, undefined);
  assertEquals(hook.reviews[0].object.status, { ok: 1 });

  // A cluster-scoped create matches the Cluster scope; deleting the example the DELETE rule.
  const ns = await call(cluster, "POST", "/api/v1/namespaces", { metadata: { name: "team" } });
  assertEquals(ns.status, 201);
  assertEquals((await call(cluster, "DELETE", `${EXAMPLES}/x`)).status, 200);
  assertEquals(calls().slice(1), ["cluster.kopf.dev CREATE", "deletes.kopf.dev DELETE"]);
  assertEquals([hook.reviews[1].kind.kind, hook.reviews[1].namespace], ["Namespace", undefined]);
  assertEquals(hook.reviews[2].object, null);
  assertEquals(hook.reviews[2].oldObject.metadata.name, "x");
  assertEquals(cluster.admissionCalls.map((c) => c.outcome), ["allowed", "allowed", "allowed"]);
});

Deno.test("namespaceSelector and objectSelector choose what a webhook reviews", async () => {
  await using cluster = await FakeCluster.start();
  await using hook = await webhookServer(() => ({}));
  cluster.create({
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: "watched", labels: { admission: "on" } },
  });
  cluster.create(webhookConfiguration("Validating", {
    clientConfig: { url: hook.url("/v"), caBundle: hook.caBundle },
    namespaceSelector: { matchExpressions: [{ key: "admission", operator: "In", values: ["on"] }] },
    objectSelector: { matchExpressions: [{ key: "skip", operator: "DoesNotExist" }] },
  }, ["CREATE", "UPDATE", "DELETE"]));
  await call(cluster, "POST", CMS, configMap("elsewhere"));
  const watched = "/api/v1/namespaces/watched/configmaps";
  await call(cluster, "POST", watched, configMap("skipped", {}, { labels: { skip: "1" } }));
  assertEquals(hook.reviews.length, 0);
  await call(cluster, "POST", watched, configMap("seen"));
  assertEquals(hook.reviews.map((r) => [r.namespace, r.name]), [["watched", "seen"]]);
  // An update is reviewed when the old object matches even if the new one does not.
  const labelled = await call(cluster, "PATCH", `${watched}/seen`, {
    metadata: { labels: { skip: "now" } },
  }, { "content-type": "application/merge-patch+json" });
  assertEquals(labelled.status, 200);
  assertEquals(hook.reviews.length, 2);
  // Now neither the old nor (on deletion) an absent new object matches.
  assertEquals((await call(cluster, "DELETE", `${watched}/seen`)).status, 200);
  assertEquals(hook.reviews.length, 2);
});

Deno.test("mutating webhooks run in the name order of their configurations, each seeing the last patch", async () => {
  await using cluster = await FakeCluster.start();
  const mark = (value: string) => () => ({
    patchType: "JSONPatch",
    patch: btoa(JSON.stringify([{ op: "add", path: `/data/${value}`, value }])),
  });
  await using second = await webhookServer(mark("second"));
  await using first = await webhookServer(mark("first"));
  for (const [name, server] of [["b-second", second], ["a-first", first]] as const) {
    cluster.create({
      ...webhookConfiguration("Mutating", {
        name: `${name}.kopf.dev`,
        clientConfig: { url: server.url("/m"), caBundle: server.caBundle },
      }),
      metadata: { name },
    });
  }
  const created = await call(cluster, "POST", CMS, configMap("a", { given: "1" }));
  assertEquals(created.body.data, { given: "1", first: "first", second: "second" });
  assertEquals(first.reviews[0].object.data, { given: "1" });
  assertEquals(second.reviews[0].object.data, { given: "1", first: "first" });
  assertEquals(cluster.get("configmaps", "a")?.data, created.body.data);
  assertEquals(
    cluster.admissionCalls.map((c) => [c.configuration, c.outcome]),
    [["a-first", "patched"], ["b-second", "patched"]],
  );
});

Deno.test("denials: the status code (400 at least), reason and kube-apiserver's wording", async () => {
  await using cluster = await FakeCluster.start();
  await using hook = await webhookServer((request) => {
    const how = request.object.data.how;
    if (how === "silent") return { allowed: false };
    if (how === "reason") return { allowed: false, status: { code: 200, reason: "NoWay" } };
    return { allowed: false, status: { code: 422, message: "field x is wrong" } };
  });
  cluster.create(webhookConfiguration("Validating", {
    clientConfig: { url: hook.url("/v"), caBundle: hook.caBundle },
  }));
  const silent = await call(cluster, "POST", CMS, configMap("a", { how: "silent" }));
  assertEquals([silent.status, silent.body.kind, silent.body.status], [400, "Status", "Failure"]);
  assertEquals(
    silent.body.message,
    'admission webhook "validating.kopf.dev" denied the request without explanation',
  );
  const reason = await call(cluster, "POST", CMS, configMap("b", { how: "reason" }));
  assertEquals([reason.status, reason.body.reason], [400, "NoWay"]);
  assertEquals(
    reason.body.message,
    'admission webhook "validating.kopf.dev" denied the request: NoWay',
  );
  const coded = await call(cluster, "POST", CMS, configMap("c", { how: "x" }));
  assertEquals(coded.status, 422);
  assertEquals(
    coded.body.message,
    'admission webhook "validating.kopf.dev" denied the request: field x is wrong',
  );
  assertEquals(
    cluster.list("configmaps").filter((c) => c.metadata?.name !== "kube-root-ca.crt").length,
    0,
  );
  assertEquals(cluster.admissionCalls.map((c) => c.outcome), ["denied", "denied", "denied"]);
});

Deno.test("failurePolicy on a wrong CA, a service reference and an invalid response", async () => {
  await using cluster = await FakeCluster.start();
  await using hook = await webhookServer((request) =>
    request.object.data?.bad ? { patch: btoa("[]"), patchType: "JSONPatch" } : {}
  );
  const otherCa = await generateCertificateAuthority();
  cluster.create(webhookConfiguration("Validating", {
    clientConfig: { url: hook.url("/v"), caBundle: btoa(otherCa.certPem) },
  }));
  const failed = await call(cluster, "POST", CMS, configMap("a"));
  assertEquals([failed.status, failed.body.reason], [500, "InternalError"]);
  assertStringIncludes(
    failed.body.message,
    `Internal error occurred: failed calling webhook "validating.kopf.dev": failed to call webhook: Post "${
      hook.url("/v?timeout=10s")
    }"`,
  );
  assertEquals(hook.reviews.length, 0, "the TLS handshake failed before any review");
  assertEquals(cluster.get("configmaps", "a"), undefined);

  const set = (path: string, value: JsonValue) =>
    cluster.patch("validatingwebhookconfigurations", "validating-test", [
      { op: "add", path, value },
    ], { type: "json" });
  set("/webhooks/0/failurePolicy", "Ignore");
  assertEquals((await call(cluster, "POST", CMS, configMap("b"))).status, 201);
  assertEquals(cluster.admissionCalls.map((c) => c.outcome), ["failed", "ignored"]);

  set("/webhooks/0/failurePolicy", "Fail");
  set("/webhooks/0/clientConfig", { service: { namespace: "default", name: "hooks" } });
  const service = await call(cluster, "POST", CMS, configMap("c"));
  assertEquals(service.status, 500);
  assertStringIncludes(service.body.message, "clientConfig.service");

  // A validating webhook may not patch: an invalid response is a failed call.
  set("/webhooks/0/clientConfig", { url: hook.url("/v"), caBundle: hook.caBundle });
  const invalid = await call(cluster, "POST", CMS, configMap("d", { bad: "1" }));
  assertEquals(invalid.status, 500);
  assertStringIncludes(invalid.body.message, "validating webhook may not return response.patch");
  assertEquals((await call(cluster, "POST", CMS, configMap("e"))).status, 201);
});

Deno.test("timeoutSeconds bounds the call and is passed as the timeout parameter", async () => {
  await using cluster = await FakeCluster.start();
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await using hook = await webhookServer(async () => {
    await held;
    return {};
  });
  cluster.create(webhookConfiguration("Validating", {
    clientConfig: { url: hook.url("/slow"), caBundle: hook.caBundle },
    timeoutSeconds: 1,
  }));
  try {
    const started = performance.now();
    const failed = await call(cluster, "POST", CMS, configMap("a"));
    const elapsed = performance.now() - started;
    assertEquals(failed.status, 500);
    assertStringIncludes(failed.body.message, "context deadline exceeded");
    assert(elapsed >= 900 && elapsed < 5000, `the call took ${elapsed} ms`);
    assertEquals(new URL(hook.urls[0]).searchParams.get("timeout"), "1s");
    assertEquals(cluster.get("configmaps", "a"), undefined);
  } finally {
    release();
  }
});

Deno.test("dry runs call webhooks without side effects (told dryRun) and refuse the others", async () => {
  await using cluster = await FakeCluster.start();
  await using hook = await webhookServer(() => ({ warnings: ["checked"] }));
  cluster.create(webhookConfiguration("Validating", {
    clientConfig: { url: hook.url("/v"), caBundle: hook.caBundle },
    sideEffects: "NoneOnDryRun",
  }));
  const dry = await call(cluster, "POST", `${CMS}?dryRun=All`, configMap("a"));
  assertEquals(dry.status, 201);
  assertEquals(dry.headers.get("warning"), '299 - "checked"');
  assertEquals([hook.reviews[0].dryRun, hook.reviews[0].options.dryRun], [true, ["All"]]);
  assertEquals(cluster.get("configmaps", "a"), undefined);

  cluster.patch("validatingwebhookconfigurations", "validating-test", [
    { op: "replace", path: "/webhooks/0/sideEffects", value: "Some" },
  ], { type: "json" });
  const refused = await call(cluster, "POST", `${CMS}?dryRun=All`, configMap("b"));
  assertEquals([refused.status, refused.body.reason], [400, "BadRequest"]);
  assertEquals(
    refused.body.message,
    'admission webhook "validating.kopf.dev" does not support dry run',
  );
  assertEquals(hook.reviews.length, 1, "a webhook with side effects is not called on dry runs");
  assertEquals(cluster.admissionCalls.at(-1)?.outcome, "refused");
  // Real requests still call it.
  assertEquals((await call(cluster, "POST", CMS, configMap("c"))).status, 201);
  assertEquals(hook.reviews[1].dryRun, false);
});

const hasKubectl = await available("kubectl", ["version", "--client"]);

Deno.test({
  name: "kubectl shows the webhooks' warnings and denials",
  ignore: !hasKubectl,
  async fn() {
    await using cluster = await FakeCluster.start();
    await using hook = await webhookServer((request) =>
      request.operation === "DELETE"
        ? { allowed: false, status: { message: "keep this one" } }
        : { warnings: ["data.size is deprecated"] }
    );
    cluster.create(webhookConfiguration("Validating", {
      clientConfig: { url: hook.url("/v"), caBundle: hook.caBundle },
    }, ["CREATE", "DELETE"]));
    const dir = await Deno.makeTempDir({ prefix: "kubectl-admission-" });
    try {
      const kubeconfig = await cluster.writeKubeconfig(`${dir}/kubeconfig`);
      const kubectl = async (args: string[], stdin?: string) => {
        const child = new Deno.Command("kubectl", {
          args: [`--kubeconfig=${kubeconfig}`, `--cache-dir=${dir}/cache`, ...args],
          stdin: stdin === undefined ? "null" : "piped",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
        if (stdin !== undefined) {
          const writer = child.stdin.getWriter();
          await writer.write(new TextEncoder().encode(stdin));
          await writer.close();
        }
        const out = await child.output();
        const decode = (b: Uint8Array) => new TextDecoder().decode(b);
        return { ok: out.success, out: decode(out.stdout), err: decode(out.stderr) };
      };
      const created = await kubectl(
        ["create", "-f", "-"],
        JSON.stringify(configMap("a", { size: "1" })),
      );
      assert(created.ok, created.err);
      assertStringIncludes(created.err, "Warning: data.size is deprecated");
      assertStringIncludes(created.out, "configmap/a created");
      const deleted = await kubectl(["delete", "configmap", "a"]);
      assert(!deleted.ok);
      assertStringIncludes(
        deleted.err,
        'admission webhook "validating.kopf.dev" denied the request: keep this one',
      );
      assert(cluster.get("configmaps", "a"));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("deleting a collection admits the deletion of each object", async () => {
  await using cluster = await FakeCluster.start();
  await using hook = await webhookServer((request) =>
    request.oldObject.metadata.name === "kept"
      ? { allowed: false, status: { message: "kept stays" } }
      : { warnings: [`bye ${request.name}`] }
  );
  cluster.create(webhookConfiguration("Validating", {
    clientConfig: { url: hook.url("/v"), caBundle: hook.caBundle },
    objectSelector: { matchLabels: { batch: "1" } },
  }, ["DELETE"]));
  for (const name of ["one", "two"]) {
    cluster.create(configMap(name, {}, { labels: { batch: "1" } }));
  }
  const deleted = await call(cluster, "DELETE", `${CMS}?labelSelector=batch%3D1`);
  assertEquals(deleted.status, 200);
  assertEquals(deleted.headers.get("warning"), '299 - "bye one", 299 - "bye two"');
  assertEquals(hook.reviews.map((r) => [r.operation, r.name]), [["DELETE", "one"], [
    "DELETE",
    "two",
  ]]);
  cluster.create(configMap("kept", {}, { labels: { batch: "1" } }));
  cluster.create(configMap("other", {}, { labels: { batch: "1" } }));
  const denied = await call(cluster, "DELETE", `${CMS}?labelSelector=batch%3D1`);
  assertEquals(denied.status, 400);
  assertStringIncludes(denied.body.message, "kept stays");
  assert(cluster.get("configmaps", "kept") && cluster.get("configmaps", "other"));
});

Deno.test("an apply naming the uid of a missing object is refused before admission", async () => {
  await using cluster = await FakeCluster.start();
  await using hook = await webhookServer(() => ({}));
  cluster.create(webhookConfiguration("Mutating", {
    clientConfig: { url: hook.url("/m"), caBundle: hook.caBundle },
  }));
  const body = { ...configMap("a", { x: "1" }), metadata: { name: "a", uid: "gone" } };
  const refused = await call(cluster, "PATCH", `${CMS}/a?fieldManager=op`, body, {
    "content-type": "application/apply-patch+yaml",
  });
  assertEquals([refused.status, refused.body.reason, refused.body.details.causes], [
    409,
    "Conflict",
    undefined,
  ]);
  assertStringIncludes(refused.body.message, "uid mismatch");
  assertEquals(hook.reviews, []);
  assertEquals(cluster.get("configmaps", "a"), undefined);
});

Deno.test("the webhooks see a built-in decoded; its unknown fields are still warned about", async () => {
  await using cluster = await FakeCluster.start();
  await using mutator = await webhookServer(() => ({}));
  cluster.create(webhookConfiguration("Mutating", {
    clientConfig: { url: mutator.url("/mutate"), caBundle: mutator.caBundle },
  }));
  const created = await call(cluster, "POST", CMS, { ...configMap("a"), status: { x: 1 } });
  assertEquals(created.status, 201);
  assertEquals(created.headers.get("warning"), '299 - "unknown field \\"status\\""');
  assertEquals(mutator.reviews[0].object.status, undefined);
  const patched = await call(cluster, "PATCH", `${CMS}/a`, { spare: 1 }, {
    "content-type": "application/merge-patch+json",
  });
  assertEquals(patched.status, 200);
  assertEquals(patched.headers.get("warning"), '299 - "unknown field \\"spare\\""');
  assertEquals(cluster.get("configmaps", "a")?.spare, undefined);
});
