/**
 * Hooks of the operator's own life, beside the objects': startup handlers (one retried
 * until it succeeds), a login handler of our own, probes for the liveness endpoint, and a
 * cleanup handler. Each pod gets a background task of the operator (started by an event
 * handler, not a daemon); the probes report the tasks, and the cleanup stops them all and
 * waits for them before the operator exits.
 *
 *   kopf run -A --verbose --liveness=http://0.0.0.0:8080/healthz examples/13-hooks/example.ts
 *   curl http://localhost:8080/healthz
 */
import { type ConnectionInfo, kopf } from "../../mod.ts";

/** A pod's background task: its stop switch and its end. */
interface PodTask {
  readonly stop: AbortController;
  readonly done: Promise<void>;
}

/** The pods' background tasks, by namespace and name. */
const tasks = new Map<string, Map<string, PodTask>>();

/** Wait so many seconds, or less if the signal aborts. */
function pause(seconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, seconds * 1000);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

kopf.on.startup(function startupFnSimple({ logger }) {
  logger.info("Initialising the registry of pod tasks...");
  tasks.clear();
});

kopf.on.startup(function startupFnRetried({ retry, logger }) {
  if (retry < 3) {
    throw new kopf.TemporaryError(`Going to succeed in ${3 - retry} more attempts.`, {
      delay: 0.2,
    });
  }
  logger.info("Starting retried...");
});

kopf.on.cleanup(async function cleanupFn({ logger }) {
  logger.info("Cleaning up...");
  const all = [...tasks.values()].flatMap((byName) => [...byName.values()]);
  for (const task of all) task.stop.abort();
  logger.info("All pod tasks are requested to stop...");
  await Promise.all(all.map((task) => task.done));
});

/**
 * Credentials from the kubeconfig, as `kopf.loginWithKubeconfig` finds them, but valid for
 * 30 seconds only: the operator logs in again when they expire (a short-lived token would
 * be refreshed so). A failure here is permanent: no credentials, no operator.
 */
kopf.on.login({ errors: "permanent" }, async function loginFn({ logger }) {
  logger.info("Logging in with the kubeconfig...");
  const info: ConnectionInfo | undefined = await kopf.loginWithKubeconfig();
  if (info === undefined) throw new kopf.PermanentError("No kubeconfig to log in with.");
  return { ...info, expiration: new Date(Date.now() + 30_000) };
});

kopf.on.probe(function tasksCount() {
  return [...tasks.values()].reduce((sum, byName) => sum + byName.size, 0);
});

kopf.on.probe(function monitoredObjects() {
  return Object.fromEntries(
    [...tasks].map(([namespace, byName]) => [namespace, [...byName.keys()].sort()]),
  );
});

kopf.on.event("pods", function podTask({ type, namespace, name, logger }) {
  const byNamespace = tasks.get(String(namespace)) ?? new Map<string, PodTask>();
  tasks.set(String(namespace), byNamespace);
  const existing = byNamespace.get(name);
  if (type === "DELETED") {
    existing?.stop.abort();
    byNamespace.delete(name);
    return;
  }
  if (existing !== undefined) return;
  const stop = new AbortController();
  const done = (async () => {
    while (!stop.signal.aborted) {
      await pause(0.5 + Math.random(), stop.signal);
      if (!stop.signal.aborted) logger.info("Served by the background task.");
    }
    logger.info("Serving is finished by request.");
  })();
  byNamespace.set(name, { stop, done });
});
