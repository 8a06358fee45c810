/**
 * The counter of `counter_lost_update.ts` done right: the write names the resourceVersion
 * that was read, so a write that came between is a 409, and the handler reads again and
 * retries. Counting an object twice (a handler run again after a crash) changes nothing.
 */
import { kopf } from "../../../mod.ts";
import { getObject, replaceObject } from "../../../src/client/mod.ts";
import { CONFIGMAPS, ownClient } from "./own_client.ts";
import { counted, COUNTED_LABELS, COUNTER } from "./counting.ts";

kopf.on.create("configmaps", { labels: COUNTED_LABELS }, async function count({ name }) {
  await using api = ownClient();
  for (;;) {
    const counter = await getObject(api, CONFIGMAPS, COUNTER);
    try {
      await replaceObject(api, CONFIGMAPS, COUNTER, { ...counter, data: counted(counter, name) });
      return;
    } catch (error) {
      if (!(error instanceof kopf.APIConflictError)) throw error;
    }
  }
});
