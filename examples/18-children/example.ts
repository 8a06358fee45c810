/**
 * Children kept in step: each KopfExample owns a ConfigMap `<name>-config` holding its
 * `spec.field`. The creation and update handlers write it, and so does the resume handler
 * after a restart (it may have changed while no operator ran); the child handler repairs it
 * when someone edits it (the data drifts) or deletes it (it is made again) — without
 * polling, and without watching every ConfigMap of the cluster: `kopf.adopt()` labels the
 * child with its owner's kind, and the children's watch selects by that label.
 *
 *   kopf run examples/18-children/example.ts
 *   kubectl apply -f examples/obj.yaml
 *   kubectl get configmap kopf-example-1-config -o yaml
 *   kubectl delete configmap kopf-example-1-config     # it comes back
 *   kubectl patch configmap kopf-example-1-config -p '{"data":{"field":"drifted"}}'
 */
import { kopf, type RawBody } from "../../mod.ts";
import { ApiClient, createObject, patchObject, Vault } from "../../src/client/mod.ts";

const CONFIGMAPS = new kopf.Resource({
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
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

/** What the child should hold, from the parent's spec. */
function wantedData(spec: Readonly<Record<string, unknown>>): Record<string, string> {
  return { field: String(spec.field ?? "") };
}

/** Make the parent's ConfigMap as it should be: created, or its data put back. */
async function ensureChild(
  name: string,
  namespace: string,
  data: Record<string, string>,
): Promise<"created" | "patched"> {
  const child: RawBody = { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data };
  kopf.adopt(child); // the owner reference, the namespace, the labels (and the owner's kind)
  try {
    await createObject(client(), CONFIGMAPS, child);
    return "created";
  } catch (error) {
    if (!(error instanceof kopf.APIConflictError)) throw error; // it exists: put the data back
  }
  await patchObject(client(), CONFIGMAPS, { name, namespace }, { data });
  return "patched";
}

// The ConfigMap is the handlers' own API call: `rbac` declares it for `kopf manifests`.
kopf.on.create("kopfexamples", {
  rbac: ["configmaps:create,patch"],
}, async function makeChild({ name, namespace, spec }) {
  return await ensureChild(`${name}-config`, namespace ?? "default", wantedData(spec));
});

kopf.on.update("kopfexamples", {
  field: "spec.field",
  rbac: ["configmaps:create,patch"],
}, async function updateChild({ name, namespace, spec }) {
  return await ensureChild(`${name}-config`, namespace ?? "default", wantedData(spec));
});

// After a restart: the child may have been deleted or edited while no operator ran.
kopf.on.resume("kopfexamples", {
  rbac: ["configmaps:create,patch"],
}, async function resumeChild({ name, namespace, spec }) {
  return await ensureChild(`${name}-config`, namespace ?? "default", wantedData(spec));
});

// A child edited or deleted by anyone: put it back as the parent's spec says.
kopf.on.child("kopfexamples", "configmaps", {
  rbac: ["configmaps:create,patch"],
}, async function repairChild({ name, namespace, spec, child, childEvent, logger }) {
  const childName = `${name}-config`;
  if (child.metadata.name !== childName) return; // another child of it: not ours to keep
  const wanted = wantedData(spec);
  const data = (child.data ?? {}) as Record<string, string>;
  if (childEvent !== "DELETED" && JSON.stringify(data) === JSON.stringify(wanted)) return;
  try {
    const how = await ensureChild(childName, namespace ?? "default", wanted);
    logger.info(`The ConfigMap ${childName} was ${childEvent.toLowerCase()}; ${how} again.`);
    return { repaired: childEvent };
  } catch (error) {
    if (error instanceof kopf.APINotFoundError) return; // the parent is being deleted
    throw error;
  }
});
