/**
 * Admission webhooks called by the fake API server over HTTPS: mutation by JSON patch,
 * denials, failure policies, selectors, dry runs, DELETE reviews.
 */
import { FakeCluster } from "../../src/testing/mod.ts";
import { startHttpServer } from "../../src/platform/http_server.ts";
import {
  generateCertificateAuthority,
  issueServerCertificate,
} from "../../src/platform/certificates.ts";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { call, configMap } from "./helpers.ts";

const CMS = "/api/v1/namespaces/default/configmaps";

// deno-lint-ignore no-explicit-any
type Review = any;

/** A TLS webhook server answering with `decide(request)`; records the reviews it got. */
async function webhookServer(decide: (request: Review) => Record<string, unknown>) {
  const ca = await generateCertificateAuthority();
  const cert = await issueServerCertificate(ca, { hostnames: ["127.0.0.1"] });
  const reviews: Review[] = [];
  const server = await startHttpServer({
    tls: { certificate: cert.certPem, privateKey: cert.keyPem },
    handler: async (request) => {
      const review = await request.json();
      reviews.push(review.request);
      const response = { uid: review.request.uid, allowed: true, ...decide(review.request) };
      return Response.json({
        apiVersion: "admission.k8s.io/v1",
        kind: "AdmissionReview",
        response,
      });
    },
  });
  return {
    reviews,
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
