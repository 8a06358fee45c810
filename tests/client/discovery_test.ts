/**
 * Discovery on a scripted API server: resource records with subresources and preferred
 * versions, cached until refreshed — from the documents of old where the server has no
 * aggregated discovery, from the two aggregated ones where it has; and of some groups only.
 */
import { assert, assertEquals } from "../assert.ts";
import { Discovery } from "../../src/client/discovery.ts";
import { json, ScriptedServer, status } from "./scripted_server.ts";

function discoveryServer(): ScriptedServer {
  return ScriptedServer.start((request) => {
    switch (request.path) {
      case "/version":
        return json({ major: "1", minor: "32", gitVersion: "v1.32.0" });
      case "/api":
        return json({ kind: "APIVersions", versions: ["v1"] });
      case "/apis":
        return json({
          kind: "APIGroupList",
          groups: [{
            name: "kopf.dev",
            versions: [{ groupVersion: "kopf.dev/v1", version: "v1" }, {
              groupVersion: "kopf.dev/v1beta1",
              version: "v1beta1",
            }],
            preferredVersion: { groupVersion: "kopf.dev/v1", version: "v1" },
          }, {
            name: "metrics.k8s.io",
            versions: [{ groupVersion: "metrics.k8s.io/v1beta1", version: "v1beta1" }],
          }],
        });
      case "/api/v1":
        return json({
          groupVersion: "v1",
          resources: [
            {
              name: "pods",
              singularName: "pod",
              namespaced: true,
              kind: "Pod",
              verbs: ["get", "list", "watch"],
              shortNames: ["po"],
              categories: ["all"],
            },
            {
              name: "pods/status",
              singularName: "",
              namespaced: true,
              kind: "Pod",
              verbs: ["get", "patch"],
            },
            { name: "pods/log", singularName: "", namespaced: true, kind: "Pod", verbs: ["get"] },
            {
              name: "namespaces",
              singularName: "namespace",
              namespaced: false,
              kind: "Namespace",
              verbs: ["list"],
            },
          ],
        });
      case "/apis/kopf.dev/v1":
      case "/apis/kopf.dev/v1beta1":
        return json({
          groupVersion: request.path.slice(6),
          resources: [
            {
              name: "kopfexamples",
              singularName: "kopfexample",
              namespaced: true,
              kind: "KopfExample",
              verbs: ["list", "watch", "patch"],
              shortNames: ["kex"],
            },
            {
              name: "kopfexamples/status",
              singularName: "",
              namespaced: true,
              kind: "KopfExample",
              verbs: ["patch"],
            },
          ],
        });
      default: // an aggregated API that is down
        return json({ kind: "Status", code: 503, reason: "ServiceUnavailable" }, 503);
    }
  });
}

Deno.test("discovery yields resource records with subresources and preferred versions, cached until refreshed", async () => {
  await using server = discoveryServer();
  await using api = server.client();
  const discovery = new Discovery(api);
  assertEquals((await discovery.version()).gitVersion, "v1.32.0");
  const resources = await discovery.resources();
  assertEquals(resources.map((r) => r.toString()), [
    "pods.v1",
    "namespaces.v1",
    "kopfexamples.v1.kopf.dev",
    "kopfexamples.v1beta1.kopf.dev",
  ]);
  const pods = resources[0];
  assertEquals(
    [pods.kind, pods.singular, pods.shortcuts, pods.categories, pods.subresources, pods.namespaced],
    ["Pod", "pod", ["po"], ["all"], ["status", "log"], true],
  );
  assertEquals(pods.verbs, ["get", "list", "watch"]);
  assertEquals(resources[1].namespaced, false);
  assertEquals(resources.filter((r) => r.group === "kopf.dev").map((r) => r.preferred), [
    true,
    false,
  ]);
  const served = server.requests.length;
  await discovery.resources();
  assertEquals(server.requests.length, served, "cached: no re-discovery");
  discovery.refresh();
  await discovery.resources();
  assert(server.requests.length > served, "refresh discovers again");
});

Deno.test("resourceOf asks only the kind's group-version, once, and again when the kind is missing", async () => {
  let crdInstalled = false;
  await using server = ScriptedServer.start((request) => {
    switch (request.path) {
      case "/apis/apps/v1":
        return json({
          groupVersion: "apps/v1",
          resources: [
            {
              name: "deployments",
              singularName: "deployment",
              namespaced: true,
              kind: "Deployment",
            },
            { name: "deployments/scale", singularName: "", namespaced: true, kind: "Scale" },
          ],
        });
      case "/api/v1":
        return json({
          groupVersion: "v1",
          resources: [{ name: "namespaces", singularName: "namespace", kind: "Namespace" }],
        });
      case "/apis/kopf.dev/v1":
        if (!crdInstalled) return status(404, "NotFound", "the server could not find it");
        return json({
          groupVersion: "kopf.dev/v1",
          resources: [{ name: "kopfexamples", namespaced: true, kind: "KopfExample" }],
        });
      default:
        return status(404, "NotFound", "the server could not find it");
    }
  });
  await using api = server.client();
  const discovery = new Discovery(api);
  const deployments = await discovery.resourceOf("apps/v1", "Deployment");
  assertEquals(deployments?.toString(), "deployments.v1.apps");
  assertEquals([deployments?.namespaced, deployments?.subresources], [true, ["scale"]]);
  assertEquals((await discovery.resourceOf("apps/v1", "Deployment"))?.plural, "deployments");
  const namespaces = await discovery.resourceOf("v1", "Namespace");
  assertEquals([namespaces?.plural, namespaces?.namespaced], ["namespaces", false]);
  assertEquals(server.requests.map((r) => r.path), ["/apis/apps/v1", "/api/v1"], "cached");
  // A kind not (yet) served: undefined, and asked again each time (a CRD may come).
  assertEquals(await discovery.resourceOf("kopf.dev/v1", "KopfExample"), undefined);
  assertEquals(await discovery.resourceOf("apps/v1", "StatefulSet"), undefined);
  crdInstalled = true;
  assertEquals(
    (await discovery.resourceOf("kopf.dev/v1", "KopfExample"))?.toString(),
    "kopfexamples.v1.kopf.dev",
  );
  assertEquals(server.requests.map((r) => r.path).slice(2), [
    "/apis/kopf.dev/v1",
    "/apis/apps/v1",
    "/apis/kopf.dev/v1",
  ]);
  discovery.refresh();
  await discovery.resourceOf("apps/v1", "Deployment");
  assertEquals(server.requests.length, 6, "refresh forgets the group-versions too");
});

Deno.test("resourcesIn asks only the named groups: the group's document and the versions wanted", async () => {
  let down = true;
  await using server = ScriptedServer.start((request) => {
    switch (request.path) {
      case "/apis/kopf.dev":
        return json({
          kind: "APIGroup",
          name: "kopf.dev",
          versions: [
            { groupVersion: "kopf.dev/v1", version: "v1" },
            { groupVersion: "kopf.dev/v1beta1", version: "v1beta1" },
          ],
          preferredVersion: { groupVersion: "kopf.dev/v1", version: "v1" },
        });
      case "/apis/kopf.dev/v1":
        return json({
          resources: [{ name: "kopfexamples", namespaced: true, kind: "KopfExample" }],
        });
      case "/apis/kopf.dev/v1beta1":
        if (down) return status(503, "ServiceUnavailable", "the service is unavailable");
        return json({
          resources: [{ name: "kopfexamples", namespaced: true, kind: "KopfExample" }],
        });
      case "/api/v1":
        return json({ resources: [{ name: "configmaps", namespaced: true, kind: "ConfigMap" }] });
      case "/api":
        return json({ kind: "APIVersions", versions: ["v1"] });
      default:
        return status(404, "NotFound", "the server could not find it");
    }
  });
  await using api = server.client();
  const discovery = new Discovery(api);
  const paths = () => server.requests.map((r) => r.path);

  // A group without a version: its document, then its preferred version's only.
  const preferred = await discovery.resourcesIn([{ group: "kopf.dev" }, { group: "" }]);
  assertEquals(preferred.map((r) => `${r} ${r.preferred}`).sort(), [
    "configmaps.v1 true",
    "kopfexamples.v1.kopf.dev true",
  ]);
  assertEquals(paths().sort(), ["/api/v1", "/apis/kopf.dev", "/apis/kopf.dev/v1"]);
  await discovery.resourcesIn([{ group: "" }, { group: "kopf.dev" }]);
  assertEquals(server.requests.length, 3, "cached, whatever the order of the groups");

  // A version named that is not the preferred one; a group not served; one down: skipped.
  discovery.refresh();
  server.requests.length = 0;
  const named = await discovery.resourcesIn([
    { group: "kopf.dev", version: "v1beta1" },
    { group: "example.com" },
  ]);
  assertEquals(named, []);
  assertEquals(discovery.skipped, ["/apis/kopf.dev/v1beta1"]);
  assertEquals(paths().filter((p) => p !== "/apis/kopf.dev/v1beta1").sort(), [
    "/apis/example.com",
    "/apis/kopf.dev",
  ]);
  down = false;
  discovery.refresh();
  const again = await discovery.resourcesIn([{ group: "kopf.dev", version: "v1beta1" }]);
  assertEquals(again.map((r) => `${r} ${r.preferred}`), ["kopfexamples.v1beta1.kopf.dev false"]);
  assertEquals(discovery.skipped, []);

  // A core version other than v1 asks /api for the core group's versions.
  server.requests.length = 0;
  assertEquals(await discovery.resourcesIn([{ group: "", version: "v2" }]), []);
  assertEquals(paths(), ["/api"]);
});

Deno.test("discovery reads the aggregated /api and /apis: two requests; a stale version is skipped", async () => {
  let stale = true;
  const kex = (version: string) => ({
    resource: "kopfexamples",
    responseKind: { group: "kopf.dev", version, kind: "KopfExample" },
    scope: "Namespaced",
    singularResource: "kopfexample",
    verbs: ["get", "list", "watch"],
    shortNames: ["kex"],
    subresources: [{ subresource: "status", verbs: ["get", "patch"] }],
  });
  await using server = ScriptedServer.start((request) => {
    if (!request.headers.get("accept")?.includes("v=v2;as=APIGroupDiscoveryList")) {
      return status(406, "NotAcceptable", "this test serves the aggregated documents only");
    }
    const list = (items: unknown[]) =>
      json({ kind: "APIGroupDiscoveryList", apiVersion: "apidiscovery.k8s.io/v2", items });
    switch (request.path) {
      case "/api":
        return list([{
          metadata: {},
          versions: [{
            version: "v1",
            freshness: "Current",
            resources: [{
              resource: "namespaces",
              responseKind: { group: "", version: "", kind: "Namespace" },
              scope: "Cluster",
              singularResource: "namespace",
              verbs: ["list", "watch"],
            }],
          }],
        }]);
      case "/apis":
        return list([{
          metadata: { name: "kopf.dev" },
          versions: [
            { version: "v2", freshness: stale ? "Stale" : "Current", resources: [kex("v2")] },
            { version: "v1", freshness: "Current", resources: [kex("v1")] },
            { version: "v1beta1", freshness: "Current", resources: [kex("v1beta1")] },
          ],
        }]);
      default:
        return status(404, "NotFound", "the server could not find it");
    }
  });
  await using api = server.client();
  const discovery = new Discovery(api);
  const resources = await discovery.resources();
  assertEquals(server.requests.map((r) => r.path).sort(), ["/api", "/apis"]);
  assertEquals(resources.map((r) => `${r} ${r.preferred}`), [
    "namespaces.v1 true",
    "kopfexamples.v1.kopf.dev true",
    "kopfexamples.v1beta1.kopf.dev false",
  ]);
  const [namespaces, kexV1] = resources;
  assertEquals([namespaces.kind, namespaces.namespaced, namespaces.verbs], [
    "Namespace",
    false,
    ["list", "watch"],
  ]);
  assertEquals([kexV1.kind, kexV1.singular, kexV1.shortcuts, kexV1.subresources], [
    "KopfExample",
    "kopfexample",
    ["kex"],
    ["status"],
  ]);
  // Stale: the aggregator could not refresh it; skipped as one that could not be fetched.
  assertEquals(discovery.skipped, ["/apis/kopf.dev/v2"]);
  stale = false;
  discovery.refresh();
  const fresh = await discovery.resources();
  assertEquals(discovery.skipped, []);
  assertEquals(fresh.filter((r) => r.preferred).map(String), [
    "namespaces.v1",
    "kopfexamples.v2.kopf.dev",
  ]);
});
