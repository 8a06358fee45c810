/**
 * The operator of the soak (`deno task soak`): one handler per kind of change of the
 * examples' KopfExample objects. Each run prints one line on stdout — `RUN <what> <name>
 * <value> <resourceVersion> <retry>` — which the driver reads to count what was handled,
 * and how many times: a line is written before the process can be killed, so runs whose
 * outcome was never stored (and are run again: at least once) show as duplicates. The
 * state's `resourceVersion` and the retry tell, for a run repeated without a kill, which
 * state it ran on. With `KOPF_SOAK_SLOW_EVERY=N`, the handlers of every N-th object take
 * `KOPF_SOAK_SLOW_SECONDS` (5 by default) after saying they run: rolling restarts then land
 * while handlers run.
 */
import { kopf } from "../../mod.ts";

interface Seen {
  readonly name?: string;
  readonly body: { readonly metadata: { readonly resourceVersion?: string } };
  readonly retry: number;
}

const SLOW_EVERY = Number(Deno.env.get("KOPF_SOAK_SLOW_EVERY") ?? 0);
const SLOW_SECONDS = Number(Deno.env.get("KOPF_SOAK_SLOW_SECONDS") ?? 5);

/** Say that the handler runs; take long for every N-th object, if asked. */
async function report(what: string, { name, body, retry }: Seen, value: unknown): Promise<void> {
  console.log(`RUN ${what} ${name} ${String(value)} ${body.metadata.resourceVersion} ${retry}`);
  const index = Number(name?.split("-").at(-1));
  if (SLOW_EVERY > 0 && Number.isInteger(index) && index % SLOW_EVERY === 0) {
    await new Promise((resolve) => setTimeout(resolve, SLOW_SECONDS * 1000));
  }
}

kopf.on.create("kopfexamples", async function create(kwargs) {
  const { spec } = kwargs;
  await report("create", kwargs, spec.value);
  return { value: spec.value };
});

kopf.on.update("kopfexamples", { field: "spec.value" }, async function update(kwargs) {
  const value = kwargs.new;
  await report("update", kwargs, value);
  return { value };
});

kopf.on.delete("kopfexamples", async function remove(kwargs) {
  await report("delete", kwargs, "-");
});
