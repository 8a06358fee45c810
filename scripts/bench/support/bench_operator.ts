/**
 * A benchmark's operator process: the operator with the given options, standalone, printing
 * the stages of its start (`start_stages.ts`) and `READY` when ready (what the bench waits
 * for) and stopping on SIGTERM (how the bench stops it), the same way in every child.
 */
import { kopf } from "../../../mod.ts";
import { printStages, stamp } from "./start_stages.ts";

/** The options of `kopf.operator()` a child chooses: all but the signal and the readiness. */
export type BenchOperatorOptions = Omit<
  Parameters<typeof kopf.operator>[0],
  "signal" | "onReady" | "standalone"
>;

/** Run the operator until SIGTERM; resolves once it has stopped. */
export async function operateUntilTerminated(options: BenchOperatorOptions): Promise<void> {
  const stop = new AbortController();
  Deno.addSignalListener("SIGTERM", () => stop.abort());
  await kopf.operator({
    ...options,
    standalone: true,
    signal: stop.signal,
    onReady: () => {
      stamp("ready");
      printStages(); // what `bench startup` reads of the start; others skip the line
      console.log("READY");
    },
  });
}
