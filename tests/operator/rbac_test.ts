/**
 * An operator logged in as a service account of a fake cluster with RBAC: it works under
 * a Role that grants what it needs (list, watch and patch of its resource, patch of its
 * status subresource where the CRD has one, events), and a missing rule fails its
 * requests with the API server's 403, which names the rule.
 */
import { parseAllDocuments } from "yaml";
import * as k8s from "@kubernetes/client-node";
import { APIForbiddenError, APINotFoundError } from "../../src/client/api_errors.ts";
import { forbiddenHint } from "../../src/handling/forbidden_calls.ts";
import type { RawStatus } from "../../src/structs/bodies.ts";
import type { JsonObject } from "../../src/structs/bodies.ts";
import { on } from "../../src/intents/registration.ts";
import { OperatorRegistry } from "../../src/intents/registry.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { assert, assertEquals, assertEventually, assertStringIncludes } from "../assert.ts";
import { patternOf, quotes } from "../doc_quotes.ts";
import { Calls, handled, kex, LOGS, startOperator, testSettings, untilLogged } from "./harness.ts";

const RBAC = "rbac.authorization.k8s.io";
const OPERATOR = "system:serviceaccount:default:op";

/** A fake cluster with RBAC, the examples' CRD, and a service account `op` with a Role. */
async function clusterFor(verbs: string[], statusVerbs: string[] = []): Promise<FakeCluster> {
  const cluster = await FakeCluster.start({ rbac: true });
  const manifest = await Deno.readTextFile(new URL("../../examples/crd.yaml", import.meta.url));
  for (const document of parseAllDocuments(manifest)) cluster.create(document.toJSON());
  cluster.create({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "op" } });
  cluster.create({
    apiVersion: `${RBAC}/v1`,
    kind: "Role",
    metadata: { name: "operator", namespace: "default" },
    rules: [
      { apiGroups: ["kopf.dev"], resources: ["kopfexamples"], verbs } as JsonObject,
      // The CRD has the status subresource: the handlers' outcome goes there.
      { apiGroups: ["kopf.dev"], resources: ["kopfexamples/status"], verbs: statusVerbs },
      { apiGroups: [""], resources: ["events"], verbs: ["create"] },
    ],
  });
  cluster.create({
    apiVersion: `${RBAC}/v1`,
    kind: "RoleBinding",
    metadata: { name: "operator", namespace: "default" },
    roleRef: { apiGroup: RBAC, kind: "Role", name: "operator" },
    subjects: [{ kind: "ServiceAccount", name: "op", namespace: "default" }],
  });
  return cluster;
}

/** A registry that logs in with the service account's token, and a create handler. */
function operatorAs(cluster: FakeCluster, calls: Calls): OperatorRegistry {
  const registry = new OperatorRegistry({ onWarning: () => {} });
  const token = cluster.serviceAccountToken("default", "op");
  on.login({ registry, id: "service-account" }, () => cluster.connectionInfoFor(token));
  on.create("kopfexamples", { registry }, function create_fn({ name }) {
    calls.add(String(name));
    return "created";
  });
  return registry;
}

Deno.test("an operator runs as a service account under a Role that grants what it needs", async () => {
  await using cluster = await clusterFor(["list", "watch", "patch"], ["patch"]);
  const calls = new Calls();
  const registry = operatorAs(cluster, calls);
  const op = await startOperator(registry, {
    settings: testSettings({ posting: { enabled: true } }),
  });
  try {
    cluster.create(kex("e1"));
    const body = await cluster.waitFor("kopfexamples", "e1", handled);
    assertEquals((body?.status as Record<string, unknown>).create_fn, "created");
    const posted = await cluster.waitForRequest((r) =>
      r.method === "POST" && r.path === "/api/v1/namespaces/default/events"
    );
    assertEquals(posted.status, 201, "the operator posts events");
  } finally {
    await op.stop();
  }
  assertEquals(calls.list, ["e1"]);
  // Only what the operator can do without is refused: watching CRDs (it warns and serves
  // what it discovered). A namespace given by name needs no listing of namespaces.
  const refused = cluster.requests.filter((r) => r.status === 403).map((r) => r.path);
  assertEquals([...new Set(refused)].sort(), [
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
  ]);
});

Deno.test("an operator without the status rule fails with a 403 that names the missing rule", async () => {
  await using cluster = await clusterFor(["list", "watch", "patch"]);
  const calls = new Calls();
  const registry = operatorAs(cluster, calls);
  const op = await startOperator(registry);
  try {
    cluster.create(kex("e2"));
    await calls.until(1);
    const forbidden =
      `kopfexamples.kopf.dev "e2" is forbidden: User "${OPERATOR}" cannot patch resource "kopfexamples/status" in API group "kopf.dev" in the namespace "default"`;
    await assertEventually(
      "the operator to log the API server's refusal",
      () => LOGS.some((line) => line.includes(forbidden)),
    );
  } finally {
    await op.stop();
  }
  assert(!handled(cluster.get("kopfexamples", "e2")), "the outcome could not be stored");
  assert(
    cluster.requests.some((r) => r.status === 403 && r.verb === "patch"),
    "the patch was refused",
  );
});

Deno.test("an operator without the watch rule says which Role rule to grant", async () => {
  await using cluster = await clusterFor(["list", "patch"], ["patch"]);
  const registry = operatorAs(cluster, new Calls());
  const op = await startOperator(registry);
  try {
    await assertEventually(
      "the refused watch to be reported with the rule to grant",
      () =>
        LOGS.some((line) =>
          line.includes(
            `cannot watch resource "kopfexamples" in API group "kopf.dev" in the namespace "default"`,
          ) && line.includes("grant the operator's service account a Role in default")
        ),
    );
  } finally {
    await op.stop();
  }
});

Deno.test("a handler's own write refused with 403: its error line names it and how to grant it", async () => {
  await using cluster = await clusterFor(["list", "watch", "patch"], ["patch"]);
  const registry = new OperatorRegistry({ onWarning: () => {} });
  const token = cluster.serviceAccountToken("default", "op");
  on.login({ registry, id: "service-account" }, () => cluster.connectionInfoFor(token));
  // As the examples write children: with @kubernetes/client-node, as the operator's account.
  const config = new k8s.KubeConfig();
  config.loadFromString(cluster.kubeconfigFor(token));
  const core = config.makeApiClient(k8s.CoreV1Api);
  on.create("kopfexamples", { registry }, async function make_config({ name, namespace }) {
    await core.createNamespacedConfigMap({
      namespace: namespace!,
      body: { metadata: { name: `${name}-config` }, data: { a: "b" } },
    });
  });
  const op = await startOperator(registry);
  try {
    cluster.create(kex("e4"));
    const line = await untilLogged((line) => line.includes("Handler 'make_config' failed"));
    assert(
      line.includes(
        `The API server refused configmaps:create (HTTP 403): grant it with the handler's option ` +
          `rbac: ["configmaps:create"] (kopf.on.create(…, { rbac: [...] }, fn)), then apply ` +
          "the RBAC that kopf manifests prints.",
      ),
      line,
    );
    // As docs/deployment.md quotes it.
    const [quote] = await quotes("deployment.md", "The API server refused configmaps:create");
    assert(quote !== undefined && patternOf(quote).test(line), `${quote}\n${line}`);
  } finally {
    await op.stop();
  }
});

Deno.test("the hint of a 403: from the framework's client too; a declared rule says to apply it", () => {
  const status: RawStatus = {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    reason: "Forbidden",
    code: 403,
    message: `deployments.apps "x" is forbidden: User "${OPERATOR}" cannot patch resource ` +
      `"deployments/scale" in API group "apps" in the namespace "default"`,
  };
  const error = new APIForbiddenError(403, status, {
    method: "PATCH",
    path: "/apis/apps/v1/namespaces/default/deployments/x/scale",
  });
  const handler = { registrar: "kopf.on.update" };
  assertStringIncludes(
    forbiddenHint(handler, error)!,
    `refused deployments.apps/scale:patch (HTTP 403): grant it with the handler's option ` +
      `rbac: ["deployments.apps/scale:patch"] (kopf.on.update(`,
  );
  assertStringIncludes(
    forbiddenHint({ ...handler, rbac: ["deployments.apps/scale:get,patch"] }, error)!,
    "which the handler's option rbac declares: apply the RBAC that kopf manifests prints",
  );
  const notFound = new APINotFoundError(404, { ...status, code: 404 }, error);
  assertEquals(forbiddenHint(handler, notFound), undefined);
  assertEquals(forbiddenHint(handler, new Error("cannot patch resource")), undefined);
});
