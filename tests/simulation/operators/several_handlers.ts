/**
 * Several create handlers of one object, run in the order declared: the first returns a
 * result (into the status), the second fails once (a temporary error) before it succeeds,
 * the third reads what the first returned and labels the object.
 */
import { kopf } from "../../../mod.ts";

kopf.on.create("kopfexamples", function first({ spec }) {
  return { field: spec.field ?? null };
});

kopf.on.create("kopfexamples", function second({ retry }) {
  if (retry === 0) throw new kopf.TemporaryError("Not yet: once more in a second.", { delay: 1 });
  return { retries: retry };
});

kopf.on.create("kopfexamples", function third({ status, patch }) {
  const first = status.first as { field?: unknown } | undefined;
  if (first === undefined) throw new kopf.PermanentError("The first handler has not run.");
  patch.metadata.labels = { handled: "all" };
  return { after: first.field ?? null };
});
