/**
 * Discovery on a scripted API server: resource records with subresources and preferred
 * versions, cached until refreshed.
 */
import { assert, assertEquals } from "../assert.ts";
import { Discovery } from "../../src/client/discovery.ts";
import { json, ScriptedServer } from "./scripted_server.ts";

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
