/**
 * An operator script for the `run()` tests: serves the cluster at the URL given as the
 * first argument; with `fail` as the second, its startup handler fails for good.
 */
import { kopf } from "../../mod.ts";

const [server, mode] = Deno.args;
const registry = new kopf.OperatorRegistry({ onWarning: () => {} });
kopf.on.login({ registry }, function login() {
  return { server };
});
kopf.on.startup({ registry }, function startup() {
  if (mode === "fail") throw new kopf.PermanentError("the database is unreachable");
});
kopf.on.cleanup({ registry }, function cleanup() {
  console.log("CLEANUP");
});
kopf.on.create("kopfexamples", { registry }, () => {});
kopf.configure({ quiet: true });
await kopf.run({
  registry,
  namespaces: ["default"],
  standalone: true,
  onReady: () => console.log("READY"),
});
console.log("STOPPED");
