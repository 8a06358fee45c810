/**
 * The operator of the sharding benchmark: one creation handler that returns which replica
 * ran it (`POD_ID`), stored in the object's status — nothing else, so that what is timed
 * is the framework's share of the work and the coordination's overhead.
 */
import { kopf } from "../../../mod.ts";

kopf.on.startup(function configure({ settings }) {
  settings.posting.enabled = false;
  settings.batching.batchWindow = 0;
});

kopf.on.create("kopfexamples", function create() {
  return { by: Deno.env.get("POD_ID") ?? "" };
});
