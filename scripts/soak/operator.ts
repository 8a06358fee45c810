/**
 * The operator of the soak (`deno task soak`): one handler per kind of change of the
 * examples' KopfExample objects. Each run prints one line on stdout — `RUN <what> <name>
 * <value> <resourceVersion> <retry>` — which the driver reads to count what was handled,
 * and how many times: a line is written before the process can be killed, so runs whose
 * outcome was never stored (and are run again: at least once) show as duplicates. The
 * state's `resourceVersion` and the retry tell, for a run repeated without a kill, which
 * state it ran on.
 */
import { kopf } from "../../mod.ts";

interface Seen {
  readonly name?: string;
  readonly body: { readonly metadata: { readonly resourceVersion?: string } };
  readonly retry: number;
}

function report(what: string, { name, body, retry }: Seen, value: unknown): void {
  console.log(`RUN ${what} ${name} ${String(value)} ${body.metadata.resourceVersion} ${retry}`);
}

kopf.on.create("kopfexamples", function create(kwargs) {
  const { spec } = kwargs;
  report("create", kwargs, spec.value);
  return { value: spec.value };
});

kopf.on.update("kopfexamples", { field: "spec.value" }, function update(kwargs) {
  const value = kwargs.new;
  report("update", kwargs, value);
  return { value };
});

kopf.on.delete("kopfexamples", function remove(kwargs) {
  report("delete", kwargs, "-");
});
