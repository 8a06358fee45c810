/**
 * The fidelity issue's selection: handlers of ConfigMaps labelled `app: demo` only, with a
 * deletion handler (so the operator's finalizer holds them) that writes a tombstone. An
 * object whose label is removed leaves the selection: the watch tells `DELETED` with its
 * previous content, and the operator must let it go — its finalizer released, no deletion
 * handled.
 */
import { kopf } from "../../../mod.ts";
import { writeTombstone } from "./tombstones.ts";

/** The labels the handlers select. */
export const DEMO = { app: "demo" } as const;

kopf.on.create("configmaps", { labels: DEMO }, function created() {
  return undefined;
});

kopf.on.delete("configmaps", { labels: DEMO }, async function deleted({ name, namespace }) {
  await writeTombstone(name, namespace ?? "default");
});
