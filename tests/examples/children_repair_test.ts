/**
 * examples/18-children: the parent keeps its ConfigMap in step; an edit or a deletion of
 * the ConfigMap is repaired through `kopf.on.child`, under the generated RBAC, with the
 * parent's persisted state in Kopf's format, and no ConfigMap but the children is watched.
 */
import { assert, assertEquals } from "../assert.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import {
  clusterWithCrd,
  exampleKubeconfig,
  KIND,
  LAST_HANDLED,
  manifest,
  NAME,
  runExample,
  settled,
  withEnv,
} from "./helpers.ts";

const CHILD = `${NAME}-config`;
const IN_DEFAULT = { namespace: "default" };

function fieldOf(configmap: RawBody | undefined): string | undefined {
  return (configmap?.data as Record<string, string> | undefined)?.field;
}

Deno.test("18-children: a drifted or deleted child is put back by its parent", async () => {
  await using cluster = await clusterWithCrd({ tls: true });
  const kubeconfig = await exampleKubeconfig("18-children", cluster);
  await withEnv("KUBECONFIG", kubeconfig, async () => {
    cluster.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "unrelated", namespace: "default" },
    });
    const runner = await runExample("18-children", cluster);
    cluster.create(await manifest("obj.yaml"));
    await cluster.waitFor(KIND, NAME, settled);
    const child = (await cluster.waitFor("configmaps", CHILD, (o) => o !== undefined, IN_DEFAULT))!;
    assertEquals(child.data, { field: "value" });
    assertEquals(child.metadata?.labels?.["kopf.zalando.org/owner-kind"], "KopfExample.kopf.dev");

    // Edited: the data is put back.
    cluster.patch("configmaps", CHILD, { data: { field: "drifted" } }, IN_DEFAULT);
    await cluster.waitFor("configmaps", CHILD, (o) => fieldOf(o) === "value", IN_DEFAULT);
    // Deleted: made again.
    cluster.delete("configmaps", CHILD, IN_DEFAULT);
    await cluster.waitFor(
      KIND,
      NAME,
      (o) =>
        (o?.status as { repairChild?: { repaired?: string } })?.repairChild?.repaired === "DELETED",
    );
    const again = await cluster.waitFor("configmaps", CHILD, (o) => o !== undefined, IN_DEFAULT);
    assertEquals(again?.data, { field: "value" });
    // The parent's spec changes: the child follows (the update handler).
    cluster.patch(KIND, NAME, { spec: { field: "new" } });
    await cluster.waitFor("configmaps", CHILD, (o) => fieldOf(o) === "new", IN_DEFAULT);

    // Kopf's own state only, in its format: the diff-base and nothing of the children.
    const parent = (await cluster.waitFor(KIND, NAME, (o) =>
      JSON.parse(o?.metadata?.annotations?.[LAST_HANDLED] ?? "{}").spec?.field === "new"))!;
    const annotations = parent.metadata?.annotations ?? {};
    assertEquals(Object.keys(annotations).sort(), [LAST_HANDLED, "someannotation"]);
    const essence = JSON.parse(annotations[LAST_HANDLED]);
    assertEquals(essence.spec.field, "new");
    // The children's watch never asked for the other ConfigMaps.
    const configmapReads = cluster.requests.filter((r) =>
      r.path.endsWith("/configmaps") && (r.verb === "list" || r.verb === "watch")
    );
    assert(configmapReads.length > 0);
    for (const request of configmapReads) {
      assertEquals(
        new URLSearchParams(request.query).get("labelSelector"),
        "kopf.zalando.org/owner-kind=KopfExample.kopf.dev",
        `${request.verb} ${request.path}?${request.query}`,
      );
    }
    await runner.stop();
    assertEquals(runner.exitCode, 0);
  });
});
