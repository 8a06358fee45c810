/**
 * Peering: operators that serve the same objects know of each other through a peering
 * object, and only the one with the highest priority works — the others pause until it
 * is gone. The usual case is development: an operator run on a workstation with `--dev`
 * (priority 666) makes the deployed ones (priority 0) step aside until it exits. `kopf
 * freeze` does the same without running an operator, for a given time; `kopf resume`
 * ends it early.
 *
 *   kubectl apply -f examples/peering.yaml        # the peering CRDs, once per cluster
 *   echo '{"apiVersion":"kopf.dev/v1","kind":"KopfPeering","metadata":{"name":"default"}}' \
 *     | kubectl apply -n default -f -
 *   kopf run -n default --verbose examples/06-peering/example.ts          # shell A
 *   kopf run -n default --verbose examples/06-peering/example.ts          # shell B: both
 *                                  # warn of a peer with the same priority, and both pause
 *   # stop B (Ctrl+C), then run it with --dev: A pauses in favour of B, and resumes when
 *   # B exits. Without a second operator:
 *   kopf freeze -n default --lifetime 60 --message "maintenance"          # A pauses
 *   kopf resume -n default                                                # A resumes
 */
import { kopf } from "../../mod.ts";

kopf.on.create("kopfexamples", function createFn({ name, logger }) {
  logger.info(`${name} is handled by the operator that has the right of way.`);
});
