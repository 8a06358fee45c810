/**
 * The `@kubernetes/client-node` controller of the comparison (`scripts/bench/compare.ts`):
 * an informer (`makeInformer`, a ListWatch: one LIST, then a WATCH from its
 * resourceVersion, relisting on 410 Gone), and for each object it adds, one merge PATCH of
 * the status (`status.handled`: when it started handling the object, in ms since the epoch)
 * with `CustomObjectsApi.patchNamespacedCustomObjectStatus` (`patchNamespacedCustomObject`
 * when the bench serves the CRD without its status subresource), at most
 * `KOPF_BENCH_COMPARE_POOL` (16) at a time — as the floor does.
 *
 *     deno run -A scripts/bench/compare/client_node.ts <server-url> <kubeconfig>
 *
 * Prints READY once its watch is open; runs until killed.
 */
import * as k8s from "@kubernetes/client-node";
import { now } from "../support/process.ts";
import { poolSize, statusSubresource, WorkPool } from "./pool.ts";

interface Example extends k8s.KubernetesObject {
  status?: { handled?: number };
}

const kubeconfig = new k8s.KubeConfig();
kubeconfig.loadFromFile(Deno.args[1]);
const api = kubeconfig.makeApiClient(k8s.CustomObjectsApi);
const group = "kopf.dev", version = "v1", plural = "kopfexamples";
// client-node's patches are JSON patches unless the content type is set for the call.
const subresource = statusSubresource();
const mergePatch = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch);

const pool = new WorkPool<Example>(poolSize(), async (object) => {
  const at = now();
  const { name, namespace } = object.metadata!;
  for (let attempt = 1;; attempt++) {
    try {
      const request = {
        group,
        version,
        plural,
        namespace: namespace!,
        name: name!,
        body: { status: { handled: at } },
      };
      await (subresource
        ? api.patchNamespacedCustomObjectStatus(request, mergePatch)
        : api.patchNamespacedCustomObject(request, mergePatch));
      return;
    } catch (error) {
      if ((error as { code?: number }).code === 404 || attempt === 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
});

const informer = k8s.makeInformer<Example>(
  kubeconfig,
  `/apis/${group}/${version}/${plural}`,
  () => api.listClusterCustomObject({ group, version, plural }),
);
informer.on("add", (object) => {
  if (object.status?.handled === undefined) pool.push(object);
});
// The informer stops on errors other than 410 Gone: start it again, as its docs advise.
informer.on("error", (error) => {
  console.error(error);
  setTimeout(() => informer.start(), 1000);
});
await informer.start();
console.log("READY");
