/**
 * This framework's controller in the comparison (`scripts/bench/compare.ts`): an operator,
 * standalone and cluster-wide, with one create handler that returns when it started
 * (so the framework writes it to `status.createFn.started`), no batching window (each
 * object's first event is handled at once, as the plain controllers do) and no Events
 * posted (they would be writes the others do not make).
 *
 *     deno run -A scripts/bench/compare/kopf.ts <server-url>
 *
 * Prints READY once the operator is ready; runs until SIGTERM.
 */
import { kopf } from "../../../mod.ts";
import { now } from "../support/process.ts";

const server = Deno.args[0];
const registry = new kopf.OperatorRegistry();
kopf.on.login({ registry, id: "bench-login" }, () => ({ server }));
kopf.on.create("kopfexamples.kopf.dev", { registry }, function createFn() {
  return { started: now() };
});
kopf.configure({ quiet: true });
const settings = new kopf.OperatorSettings({
  posting: { enabled: false },
  batching: { batchWindow: 0 },
});
const stop = new AbortController();
Deno.addSignalListener("SIGTERM", () => stop.abort());
await kopf.operator({
  registry,
  settings,
  clusterwide: true,
  standalone: true,
  signal: stop.signal,
  onReady: () => console.log("READY"),
});
