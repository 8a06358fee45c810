/**
 * All at once: many features in one operator, to try things out and to debug with — three
 * create handlers (one posting events, one failing once and retried, one creating a pod
 * owned and labelled by the object), an update handler that logs the diff, a field
 * handler, a deletion handler (so the object keeps a finalizer until it has run), and an
 * event handler for the pods of this operator, selected by their label.
 *
 *   kopf run -A --verbose examples/99-all-at-once/example.ts
 *   kubectl apply -f examples/obj.yaml
 *   kubectl patch kex kopf-example-1 --type merge -p '{"spec":{"items":["item3"]}}'
 *   kubectl delete kex kopf-example-1
 */
import { kopf } from "../../mod.ts";
import { ApiClient, createObject, Vault } from "../../src/client/mod.ts";

/** The label of the pods this operator makes. */
const POD_LABELS = { application: "kopf-example-99" };

const PODS = new kopf.Resource({
  group: "",
  version: "v1",
  plural: "pods",
  kind: "Pod",
  namespaced: true,
});

let api: ApiClient | undefined;

/** An API client of the operator's own, logged in as the operator is by default. */
function client(): ApiClient {
  return api ??= new ApiClient(
    new Vault({ relogin: async () => ({ example: await kopf.loginWithDefaults() }) }),
  );
}

kopf.on.cleanup(async () => {
  await api?.close();
  api = undefined;
});

kopf.on.create("kopf.dev", "v1", "kopfexamples", function create1({ body }) {
  kopf.info(body, { reason: "AnyReason", message: "Handled by create1." });
  kopf.event(body, { type: "Warning", reason: "SomeReason", message: "Cannot do something." });
  return { "job1-status": 100 };
});

kopf.on.create("kopf.dev", "v1", "kopfexamples", { backoff: 1 }, async function create2({
  retry,
}) {
  await new Promise((resolve) => setTimeout(resolve, 500)); // e.g. an external API's answer
  if (!retry) throw new Error("Whoops!"); // retried by the framework, even after a restart
  return { "job2-status": 100 };
});

kopf.on.update("kopf.dev", "v1", "kopfexamples", function update({ diff, logger }) {
  logger.info(`Handling the diff: ${JSON.stringify(diff)}`);
});

kopf.on.field("kopf.dev", "v1", "kopfexamples", { field: "spec.items" }, function updateItems({
  old,
  new: now,
  logger,
}) {
  logger.info(`Handling the field: ${JSON.stringify(old)} -> ${JSON.stringify(now)}`);
});

kopf.on.delete("kopf.dev", "v1", "kopfexamples", function deleteFn({ logger }) {
  logger.info("Deleting: the pod goes with the object (it is owned by it).");
});

// The pod is the handler's own API call: `rbac` declares it for the RBAC of `kopf manifests`.
kopf.on.create("kopf.dev", "v1", "kopfexamples", {
  rbac: ["pods:create"],
}, async function createPod({ logger }) {
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    spec: {
      containers: [{
        name: "the-only-one",
        image: "busybox",
        command: ["sh", "-x", "-c", "sleep 1"],
      }],
    },
  };
  kopf.adopt(pod); // the namespace, a name, the labels and the owner: the handled object
  kopf.label(pod, POD_LABELS);
  const created = await createObject(client(), PODS, pod);
  logger.info(`Pod ${created.metadata?.name} is created.`);
  return { pod: created.metadata?.name };
});

kopf.on.event("", "v1", "pods", { labels: POD_LABELS }, function examplePodChange({ logger }) {
  logger.info("This pod is special for us.");
});
