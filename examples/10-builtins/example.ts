/**
 * Built-in resources: every pod outside the `kube-*` namespaces is deleted some time
 * after it appears (30 seconds by default; `POD_TTL_SECONDS` overrides it), unless it
 * is deleted earlier — then the pending deletion is cancelled.
 *
 *   kopf run examples/10-builtins/example.ts --verbose
 *   kubectl run sleeper --image=busybox -- sleep 3600    # gone in 30 s
 */
import * as k8s from "@kubernetes/client-node";
import { kopf } from "../../mod.ts";
import type { ObjectLogger, ResourceKwargs } from "../../mod.ts";

const ttl = Number(Deno.env.get("POD_TTL_SECONDS") ?? "30");
if (!(ttl >= 0)) throw new RangeError(`POD_TTL_SECONDS must be a number of seconds, not ${ttl}`);

/** Pending deletions by `namespace/name`: aborting one cancels it. */
const pending = new Map<string, AbortController>();

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

async function killLater(namespace: string, name: string, logger: ObjectLogger) {
  const key = `${namespace}/${name}`;
  const controller = new AbortController();
  pending.set(key, controller);
  logger.info(`=== Pod killing happens in ${ttl}s.`);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, ttl * 1000);
      controller.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(controller.signal.reason);
      }, { once: true });
    });
    logger.info("=== Pod killing happens NOW!");
    await podsApi().deleteNamespacedPod({ namespace, name });
  } catch (error) {
    if (controller.signal.aborted) logger.info("=== Pod killing is cancelled!");
    else logger.error(`=== Pod killing failed: ${error}`);
  } finally {
    if (pending.get(key) === controller) pending.delete(key);
  }
}

function podInSight({ namespace, name, logger }: ResourceKwargs): void {
  if (!namespace || !name || namespace.startsWith("kube-")) return;
  if (pending.has(`${namespace}/${name}`)) return;
  void killLater(namespace, name, logger);
}

// Deleting the pod later is the handlers' own API call, declared for `kopf manifests`.
kopf.on.resume("pods", { rbac: ["pods:delete"] }, podInSight);
kopf.on.create("pods", { rbac: ["pods:delete"] }, podInSight);

kopf.on.delete("pods", function podDeleted({ namespace, name }) {
  pending.get(`${namespace}/${name}`)?.abort();
});
