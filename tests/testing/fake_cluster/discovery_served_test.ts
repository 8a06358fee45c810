/**
 * Discovery lists what a real v1.32 API server serves: every group version, resource and
 * subresource, with its kind, scope, verbs, short names and categories, as
 * kube_discovery.ts records them; and kubectl sees the same list.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assertEquals } from "../../assert.ts";
import { call } from "./helpers.ts";
import { type DiscoveredResource, KUBE_1_32_DISCOVERY } from "./kube_discovery.ts";
import { hasKubectl, Kubectl } from "./kubectl.ts";

/**
 * Group versions a real server has that the fake cluster does not serve, and why:
 * autoscaling/v1's HorizontalPodAutoscalers need a conversion to and from v2.
 */
const NOT_SERVED = ["autoscaling/v1"];

function pathOf(groupVersion: string): string {
  return groupVersion === "v1" ? "/api/v1" : `/apis/${groupVersion}`;
}

/** An APIResourceList's entry with only the fields the recorded list holds. */
// deno-lint-ignore no-explicit-any
function comparable(entry: any): DiscoveredResource {
  const { name, kind, namespaced, verbs, shortNames, categories, group, version } = entry;
  return {
    name,
    kind,
    namespaced,
    verbs,
    ...(shortNames ? { shortNames } : {}),
    ...(categories ? { categories } : {}),
    ...(group !== undefined ? { group } : {}),
    ...(version !== undefined ? { version } : {}),
  };
}

Deno.test("discovery: each group version lists what kube-apiserver v1.32 lists", async () => {
  await using cluster = await FakeCluster.start({ rbac: true });
  for (const [groupVersion, expected] of Object.entries(KUBE_1_32_DISCOVERY)) {
    if (NOT_SERVED.includes(groupVersion)) continue;
    const reply = await call(cluster, "GET", pathOf(groupVersion));
    assertEquals(reply.status, 200, groupVersion);
    assertEquals(reply.body.resources.map(comparable), expected, groupVersion);
  }
});

Deno.test("discovery: /apis names the group versions of a real server, in its order", async () => {
  await using cluster = await FakeCluster.start({ rbac: true });
  const apis = await call(cluster, "GET", "/apis");
  const served = apis.body.groups.flatMap((g: { versions: { groupVersion: string }[] }) =>
    g.versions.map((v) => v.groupVersion)
  );
  const expected = Object.keys(KUBE_1_32_DISCOVERY).filter((gv) =>
    gv !== "v1" && !NOT_SERVED.includes(gv)
  );
  assertEquals([...served].sort(), [...expected].sort());
  // The aggregator's order: by group priority (apiregistration, apps, events, …).
  assertEquals(served.slice(0, 4), [
    "apiregistration.k8s.io/v1",
    "apps/v1",
    "events.k8s.io/v1",
    "authentication.k8s.io/v1",
  ]);
  assertEquals((await call(cluster, "GET", "/api")).body.versions, ["v1"]);
});

Deno.test("discovery: a verb a resource does not have is 405", async () => {
  await using cluster = await FakeCluster.start();
  const collection = await call(cluster, "DELETE", "/api/v1/namespaces");
  assertEquals([collection.status, collection.body.reason], [405, "MethodNotAllowed"]);
  const watch = await call(cluster, "GET", "/api/v1/componentstatuses?watch=true");
  assertEquals(watch.status, 405);
});

Deno.test("the API server's own APIServices, Local and Available", async () => {
  await using cluster = await FakeCluster.start();
  const list = await call(cluster, "GET", "/apis/apiregistration.k8s.io/v1/apiservices");
  // deno-lint-ignore no-explicit-any
  const names = list.body.items.map((s: any) => s.metadata.name);
  assertEquals(names.includes("v1."), true);
  assertEquals(names.includes("v1.apps"), true);
  const apps = await call(cluster, "GET", "/apis/apiregistration.k8s.io/v1/apiservices/v1.apps");
  assertEquals(apps.body.spec, {
    group: "apps",
    version: "v1",
    groupPriorityMinimum: 17800,
    versionPriority: 15,
  });
  assertEquals(apps.body.status.conditions[0].reason, "Local");
  assertEquals(apps.body.status.conditions[0].status, "True");
});

Deno.test({
  name: "kubectl: api-resources lists the resources of a real v1.32 server",
  ignore: !hasKubectl,
  async fn() {
    // kubectl sends its token over TLS only.
    await using cluster = await FakeCluster.start({ rbac: true, tls: true });
    await using k = await Kubectl.for(cluster);
    const out = (await k.run(["api-resources", "--no-headers", "-o", "name"])).out;
    const listed = out.trim().split("\n").sort();
    const preferred = new Set<string>();
    const seen = new Set<string>();
    for (const [groupVersion, resources] of Object.entries(KUBE_1_32_DISCOVERY)) {
      const group = groupVersion.includes("/") ? groupVersion.split("/")[0] : "";
      for (const resource of resources) {
        const key = `${resource.name}${group ? `.${group}` : ""}`;
        if (resource.name.includes("/") || seen.has(key)) continue;
        seen.add(key);
        preferred.add(key);
      }
    }
    assertEquals(listed, [...preferred].sort());
    const nodes = await k.run(["get", "nodes"], { allowFailure: true });
    assertEquals([nodes.ok, nodes.err.trim()], [true, "No resources found"]);
  },
});
