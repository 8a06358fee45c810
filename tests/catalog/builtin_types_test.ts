import { assert } from "../assert.ts";
import { builtinTypes, isBuiltinResource } from "../../src/catalog/builtin_types.ts";

Deno.test("Kubernetes' own resources are built-in: the catalog's, and the groups no CRD can have", () => {
  for (const type of builtinTypes()) {
    assert(isBuiltinResource(type.group), `${type.group}/${type.plural}`);
  }
  for (
    const [group, plural] of [
      ["", "nodes"],
      ["", "pods"],
      ["policy", "poddisruptionbudgets"],
      ["autoscaling", "horizontalpodautoscalers"],
      ["networking.k8s.io", "ingresses"],
      ["storage.k8s.io", "storageclasses"],
      ["gateway.networking.k8s.io", "gateways"],
      ["metrics.k8s.io", "pods"],
      ["internal.apiserver.kubernetes.io", "storageversions"],
    ]
  ) {
    assert(isBuiltinResource(group), `${group}/${plural}`);
  }
});

Deno.test("custom resources are not built-in", () => {
  for (
    const [group, plural] of [
      ["kopf.dev", "kopfexamples"],
      ["example.com", "databases"],
      ["cluster.x-k8s.io", "clusters"],
      ["k8s.io.example.com", "things"],
    ]
  ) {
    assert(!isBuiltinResource(group), `${group}/${plural}`);
  }
});
