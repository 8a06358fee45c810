/**
 * A lost update on purpose: each counted ConfigMap's create handler reads the shared
 * counter, adds the object, and writes the counter back whole with no resourceVersion.
 * Two handlers that read the same version both write, and the second erases the first's
 * count. `counter_versioned.ts` is the same operator done right.
 */
import { kopf } from "../../../mod.ts";
import { getObject, replaceObject } from "../../../src/client/mod.ts";
import { CONFIGMAPS, ownClient } from "./own_client.ts";
import { counted, COUNTED_LABELS, COUNTER } from "./counting.ts";

kopf.on.create("configmaps", { labels: COUNTED_LABELS }, async function count({ name }) {
  await using api = ownClient();
  const counter = await getObject(api, CONFIGMAPS, COUNTER);
  const { resourceVersion: _, ...metadata } = counter.metadata ?? {};
  // Unconditional: the server takes the write whatever was written since the read.
  await replaceObject(api, CONFIGMAPS, COUNTER, {
    ...counter,
    metadata,
    data: counted(counter, name),
  });
});
