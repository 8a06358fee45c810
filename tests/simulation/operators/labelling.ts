/**
 * Two create handlers on labelled ConfigMaps, each adding a label of its own: the operator
 * of the `labelling` scenario.
 */
import { kopf } from "../../../mod.ts";

kopf.on.create("configmaps", { labels: { app: "labelled" } }, function first({ patch }) {
  patch.metadata.labels = { first: "done" };
});

kopf.on.create("configmaps", { labels: { app: "labelled" } }, function second({ patch }) {
  patch.metadata.labels = { second: "done" };
});
