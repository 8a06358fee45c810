/**
 * This framework's controller in the comparison (`scripts/bench/compare.ts`): an operator,
 * standalone and cluster-wide, with one create handler that returns when it started
 * (so the framework writes it to `status.createFn.started`), no batching window (each
 * object's first event is handled at once, as the plain controllers do) and no Events
 * posted (they would be writes the others do not make).
 *
 *     deno run -A scripts/bench/compare/kopf.ts <server-url>
 *
 * Prints READY once the operator is ready, and before it the stages of its start
 * (`support/start_stages.ts`); runs until SIGTERM. With `--expose-gc`, prints
 * `HEAP {"base":…,"now":…}` on SIGUSR2: the JS heap after a full GC before the operator
 * started and now. `KOPF_BENCH_COMPARE_LIST_MODE` sets `settings.watching.listMode`;
 * `KOPF_BENCH_COMPARE_STORAGE=status` keeps the progress and the diff-base in the status
 * (`StatusProgressStorage`, `StatusDiffBaseStorage`) instead of the default storages;
 * `KOPF_BENCH_COMPARE_BATCH_WINDOW=<seconds>` sets a batch window (0.1 is the default of
 * operators).
 */
// First: its evaluation stamps when the first module of the child ran (`bench startup`).
import { stamp } from "../support/start_stages.ts";
import { kopf } from "../../../mod.ts";
import { now } from "../support/process.ts";
import { operateUntilTerminated } from "../support/bench_operator.ts";

stamp("imported");

const server = Deno.args[0];
const registry = new kopf.OperatorRegistry();
kopf.on.login({ registry, id: "bench-login" }, () => ({ server }));
kopf.on.create("kopfexamples.kopf.dev", { registry }, function createFn() {
  return { started: now() };
});
kopf.configure({ quiet: true });
const listMode = Deno.env.get("KOPF_BENCH_COMPARE_LIST_MODE");
const inStatus = Deno.env.get("KOPF_BENCH_COMPARE_STORAGE") === "status";
// --apply: the framework's own writes by server-side apply (settings.applying.outcomes).
const applying = Deno.args.includes("--apply");
// --no-conditions: without the status conditions (settings.conditions.enabled = false).
const conditions = !Deno.args.includes("--no-conditions");
const settings = new kopf.OperatorSettings({
  posting: { enabled: false },
  ...(applying ? { applying: { outcomes: true } } : {}),
  ...(conditions ? {} : { conditions: { enabled: false } }),
  batching: { batchWindow: Number(Deno.env.get("KOPF_BENCH_COMPARE_BATCH_WINDOW") ?? 0) },
  ...(listMode ? { watching: { listMode: listMode as "auto" | "stream" | "paginate" } } : {}),
  ...(inStatus
    ? {
      persistence: {
        progressStorage: new kopf.StatusProgressStorage(),
        diffbaseStorage: new kopf.StatusDiffBaseStorage(),
      },
    }
    : {}),
});
// With --expose-gc: the JS heap that stays, before the operator and when asked (SIGUSR2).
const gc = (globalThis as { gc?: () => void }).gc;
const heap = () => {
  gc?.();
  gc?.();
  return Deno.memoryUsage().heapUsed;
};
const base = gc ? heap() : 0;
if (gc) {
  Deno.addSignalListener("SIGUSR2", () => {
    console.log(`HEAP ${JSON.stringify({ base, now: heap() })}`);
  });
}
stamp("operator");
await operateUntilTerminated({ registry, settings, clusterwide: true });
