/**
 * Aggregated discovery (`apidiscovery.k8s.io/v2`): `/api` and `/apis` answer every group's
 * versions and resources in one document when `Accept` asks for it, as kube-apiserver does
 * since 1.30 — the same resources as the documents of old, in the shape of kube-apiserver's
 * own (api/discovery/aggregated_v2.json) — with an ETag; other clients get the documents of
 * old; and kubectl, which asks for it, discovers with these two requests alone.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assert, assertEquals } from "../../assert.ts";
import { call, exampleCrd } from "./helpers.ts";
import { hasKubectl, Kubectl } from "./kubectl.ts";

const AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
/** What client-go asks for: v2, else v2beta1, else the documents of old. */
const CLIENT_GO_ACCEPT = `${AGGREGATED},application/json;g=apidiscovery.k8s.io;v=v2beta1;` +
  "as=APIGroupDiscoveryList,application/json";
const EDIT = ["get", "patch", "update"];
const ALL = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

Deno.test("aggregated discovery: /apis in one document, in /apis's order, shaped as kube-apiserver's", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(exampleCrd());
  await cluster.waitFor("customresourcedefinitions", "kopfexamples.kopf.dev", () => true);
  const reply = await call(cluster, "GET", "/apis", undefined, { accept: CLIENT_GO_ACCEPT });
  assertEquals(reply.status, 200);
  assertEquals(reply.headers.get("content-type"), AGGREGATED);
  assertEquals([reply.body.kind, reply.body.apiVersion], [
    "APIGroupDiscoveryList",
    "apidiscovery.k8s.io/v2",
  ]);
  // deno-lint-ignore no-explicit-any
  const items: any[] = reply.body.items;
  const legacy = await call(cluster, "GET", "/apis");
  assertEquals(
    items.map((g) => [g.metadata.name, g.versions.map((v: { version: string }) => v.version)]),
    // deno-lint-ignore no-explicit-any
    legacy.body.groups.map((g: any) => [g.name, g.versions.map((v: any) => v.version)]),
  );
  assert(
    items.every((g) => g.versions.every((v: { freshness: string }) => v.freshness === "Current")),
  );
  const apps = items.find((g) => g.metadata.name === "apps");
  assertEquals(apps.metadata, { creationTimestamp: null, name: "apps" });
  // deno-lint-ignore no-explicit-any
  const deployments = apps.versions[0].resources.find((r: any) => r.resource === "deployments");
  assertEquals(deployments, {
    resource: "deployments",
    responseKind: { group: "", version: "", kind: "Deployment" },
    scope: "Namespaced",
    singularResource: "deployment",
    verbs: ALL,
    shortNames: ["deploy"],
    categories: ["all"],
    subresources: [
      {
        subresource: "scale",
        responseKind: { group: "autoscaling", version: "v1", kind: "Scale" },
        verbs: EDIT,
      },
      {
        subresource: "status",
        responseKind: { group: "", version: "", kind: "Deployment" },
        verbs: EDIT,
      },
    ],
  });
  // A CRD's names its group and version (apiextensions-apiserver's discovery controller).
  const kopf = items.find((g) => g.metadata.name === "kopf.dev");
  assertEquals(kopf.versions[0].resources[0].responseKind, {
    group: "kopf.dev",
    version: "v1",
    kind: "KopfExample",
  });
  assertEquals(
    kopf.versions[0].resources[0].subresources.map((s: { subresource: string }) => s.subresource),
    ["status"],
  );
  // The same resources as each group version's own document.
  for (const group of items) {
    for (const version of group.versions) {
      const own = await call(cluster, "GET", `/apis/${group.metadata.name}/${version.version}`);
      const names = own.body.resources.map((r: { name: string }) => r.name)
        .filter((name: string) => !name.includes("/"));
      assertEquals(version.resources.map((r: { resource: string }) => r.resource), names);
    }
  }
});

Deno.test("aggregated discovery: /api holds the core group alone; an ETag the client has is a 304", async () => {
  await using cluster = await FakeCluster.start();
  const reply = await call(cluster, "GET", "/api", undefined, { accept: AGGREGATED });
  assertEquals(reply.body.items.length, 1);
  const [core] = reply.body.items;
  assertEquals([core.metadata, core.versions.map((v: { version: string }) => v.version)], [
    { creationTimestamp: null },
    ["v1"],
  ]);
  assert(core.versions[0].resources.some((r: { resource: string }) => r.resource === "configmaps"));
  const etag = reply.headers.get("etag")!;
  assertEquals([reply.headers.get("vary"), /^"[0-9A-F]{128}"$/.test(etag)], ["Accept", true]);
  const again = await call(cluster, "GET", "/api", undefined, {
    accept: AGGREGATED,
    "if-none-match": etag,
  });
  assertEquals(again.status, 304);
});

Deno.test("aggregated discovery only when asked first: plain JSON, or a transformation of another kind", async () => {
  await using cluster = await FakeCluster.start();
  for (
    const accept of [
      "application/json",
      `application/json,${AGGREGATED}`,
      `${AGGREGATED};q=0.5,application/json`,
      "application/json;as=Table;g=meta.k8s.io;v=v1",
      "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList",
    ]
  ) {
    const reply = await call(cluster, "GET", "/apis", undefined, { accept });
    assertEquals(reply.body.kind, "APIGroupList", accept);
  }
});

Deno.test("aggregated discovery in v2beta1 too, which 1.32 still serves: the same fields", async () => {
  await using cluster = await FakeCluster.start();
  const accept = AGGREGATED.replace("v=v2;", "v=v2beta1;");
  const beta = await call(cluster, "GET", "/apis", undefined, { accept });
  assertEquals(beta.headers.get("content-type"), accept);
  assertEquals(beta.body.apiVersion, "apidiscovery.k8s.io/v2beta1");
  const ga = await call(cluster, "GET", "/apis", undefined, { accept: AGGREGATED });
  assertEquals(beta.body.items, ga.body.items);
});

Deno.test({
  name: "aggregated discovery: kubectl api-resources asks /api and /apis, no group version",
  ignore: !hasKubectl,
  async fn() {
    await using cluster = await FakeCluster.start({ rbac: true, tls: true });
    await using k = await Kubectl.for(cluster);
    const out = (await k.run(["api-resources", "--no-headers", "-o", "name"])).out;
    assert(out.split("\n").includes("deployments.apps"), "kubectl lists the resources");
    const asked = cluster.requests.filter((r) => /^\/apis?(\/|$)/.test(r.path))
      .map((r) => `${r.path} ${r.accept?.includes("as=APIGroupDiscoveryList") ?? false}`);
    assertEquals(asked.sort(), [
      "/api true",
      "/apis true",
    ]);
  },
});
