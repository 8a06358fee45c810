/**
 * The framework's modules that load where they are first used (`import()`), all loaded
 * before a simulation's first seed. A module that loads during a run loads in real time, off
 * the virtual clock: its code would be ready at another moment of the run in a fresh process
 * (the first seed, or a replay of one seed) than in one that has loaded it already (the seeds
 * after), and the same seed would not give the same run. `tests/reactor/lazy_modules_test.ts`
 * checks that the list holds every such module of the framework.
 *
 * An operator's own modules that it imports at their point of use are not among them: the
 * first seed in a process may run otherwise than its replay after another seed if one loads
 * during the run (see docs/testing.md, "Replaying a seed").
 *
 * @module
 */
import { outsideContexts } from "../platform/async_context.ts";

let loading: Promise<void> | undefined;

/** Load the framework's lazily imported modules, once per process; see the module docs. */
export function preloadLazyModules(): Promise<void> {
  return loading ??= outsideContexts(() =>
    Promise.all([
      import("../reactor/pipeline/pipeline_stages.ts"),
      import("../reactor/queueing/multiplexer.ts"),
      import("../reactor/observation/child_watching.ts"),
      import("../reactor/objects/parent_changes.ts"),
      import("../structs/operator_metrics.ts"),
      import("../engines/indexing.ts"),
      import("../engines/peering.ts"),
      import("../engines/peer_records.ts"),
      import("../engines/daemons.ts"),
      import("../engines/admission.ts"),
      import("../engines/leases.ts"),
      import("../engines/leader_election.ts"),
      import("../engines/sharding.ts"),
      import("../client/kubeconfig.ts"),
      import("../platform/http_server.ts"),
      import("../platform/certificates.ts"),
      import("../platform/state_files.ts"),
      import("../platform/modules.ts"),
    ])
  ).then(() => {});
}
