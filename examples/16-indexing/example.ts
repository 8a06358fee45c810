/**
 * Indices: in-memory overviews of other objects, kept up to date from their watch events
 * and given to every handler by the name of the indexing function. Two indices of pods
 * here: whether each pod runs (by namespace and name), and the pods' names by each of
 * their labels. The probes report from them on the liveness endpoint, and a timer of each
 * KopfExample keeps the running pods of its namespace in its status.
 *
 *   kopf run examples/16-indexing/example.ts --verbose --liveness=http://0.0.0.0:8080/healthz
 *   kubectl apply -f examples/obj.yaml
 *   curl http://localhost:8080/healthz
 */
import { kopf } from "../../mod.ts";
import type { Index, ReadonlyJsonObject } from "../../mod.ts";

type PodKey = readonly [string | null, string | null];

/** Whether each pod runs: [namespace, name] → true or false. */
kopf.index("pods", function runningPods({ namespace, name, status }) {
  const key: PodKey = [namespace ?? null, name ?? null];
  return new Map([[key, status.phase === "Running"]]);
});

/** The pods' names by each of their labels: [label, value] → names. */
kopf.index("pods", function podsByLabel({ labels, name }) {
  return new Map(Object.entries(labels).map(([label, value]) => [[label, value], name]));
});

kopf.on.probe<{ runningPods: Index<PodKey, boolean> }>(
  function podCount({ runningPods }) {
    return runningPods.size;
  },
);

kopf.on.probe<{ runningPods: Index<PodKey, boolean> }>(
  function podNames({ runningPods }) {
    return [...runningPods.keys()].map(([namespace, name]) => `${namespace}/${name}`).sort();
  },
);

kopf.timer<
  ReadonlyJsonObject,
  ReadonlyJsonObject,
  {
    runningPods: Index<PodKey, boolean>;
    podsByLabel: Index<readonly [string, string], string>;
  }
>(
  "kopfexamples",
  { interval: 5 },
  function runningPodsOfNamespace({ runningPods, podsByLabel, namespace, patch, logger }) {
    const labels = [...podsByLabel].map(([[label, value], names]) =>
      `${label}=${value}: ${[...names].sort().join(", ")}`
    );
    logger.info(`Pods by label: ${labels.sort().join("; ") || "none"}`);
    patch.status.runningPods = [...runningPods]
      .filter(([[podNamespace], running]) => podNamespace === namespace && [...running][0])
      .map(([[, name]]) => name)
      .sort();
  },
);
