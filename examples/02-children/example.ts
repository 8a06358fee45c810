/**
 * Children: each KopfExample gets a pod of its own, adopted by the example so that it
 * is deleted with it (owner reference), placed in its namespace, named after it and
 * labelled like it. The pod is created with `@kubernetes/client-node`, configured from
 * the same kubeconfig as the operator; the uids of the children go into the status.
 *
 *   kopf run examples/02-children/example.ts
 *   kubectl apply -f examples/obj.yaml
 *   kubectl get pods -l somelabel=somevalue
 */
import * as k8s from "@kubernetes/client-node";
import { kopf } from "../../mod.ts";

let core: k8s.CoreV1Api | undefined;

/** The pods API, made on first use from KUBECONFIG, ~/.kube/config or the pod's account. */
function podsApi(): k8s.CoreV1Api {
  if (!core) {
    const config = new k8s.KubeConfig();
    config.loadFromDefault();
    core = config.makeApiClient(k8s.CoreV1Api);
  }
  return core;
}

// The pod is the handler's own API call: `rbac` declares it for the RBAC of `kopf manifests`.
kopf.on.create("kopf.dev", "v1", "kopfexamples", {
  rbac: ["pods:create"],
}, async function createFn({ spec, logger }) {
  const duration = String(spec.duration ?? "0");
  const field = String(spec.field ?? "default-value");
  const pod: k8s.V1Pod = {
    apiVersion: "v1",
    kind: "Pod",
    spec: {
      containers: [{
        name: "the-only-one",
        image: "busybox",
        command: ["sh", "-x", "-c"],
        args: [`echo "FIELD=$FIELD"\nsleep ${duration}`],
        env: [{ name: "FIELD", value: field }],
      }],
    },
  };

  // Namespace, name prefix, labels and the owner reference of the object being handled.
  kopf.adopt(pod);

  const created = await podsApi().createNamespacedPod({
    namespace: pod.metadata!.namespace!,
    body: pod,
  });
  logger.info(`Pod ${created.metadata?.name} is created.`);
  return { children: [created.metadata?.uid] };
});
