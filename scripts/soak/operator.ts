/**
 * The operator of the soak (`deno task soak`): one handler per kind of change of the
 * examples' KopfExample objects. Each run prints one line on stdout — `RUN <what> <name>
 * <value>` — which the driver reads to count what was handled, and how many times: a
 * line is written before the process can be killed, so runs whose outcome was never
 * stored (and are run again: at least once) show as duplicates.
 */
import { kopf } from "../../mod.ts";

function report(what: string, name: string | undefined, value: unknown): void {
  console.log(`RUN ${what} ${name} ${String(value)}`);
}

kopf.on.create("kopfexamples", function create({ name, spec }) {
  report("create", name, spec.value);
  return { value: spec.value };
});

kopf.on.update("kopfexamples", { field: "spec.value" }, function update({ name, new: value }) {
  report("update", name, value);
  return { value };
});

kopf.on.delete("kopfexamples", function remove({ name }) {
  report("delete", name, "-");
});
