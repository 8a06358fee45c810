/**
 * Update handlers of a spec patched several times quickly: the creation and update
 * handlers each write the field they saw into the status, so that an invariant can tell
 * whether the last one handled saw the last spec.
 */
import { kopf } from "../../../mod.ts";

kopf.on.create("kopfexamples", function created({ spec, patch }) {
  patch.status.seen = spec.field ?? null;
});

kopf.on.update("kopfexamples", function updated({ spec, patch }) {
  patch.status.seen = spec.field ?? null;
});
