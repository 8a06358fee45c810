/**
 * Deletion handlers that leave a trace: each writes a tombstone ConfigMap `gone-<name>`
 * (with a client of its own), so that an invariant can tell which deletions the operator
 * handled. Writing it twice (the handler run again) is no error.
 */
import { kopf } from "../../../mod.ts";
import { createObject } from "../../../src/client/mod.ts";
import { CONFIGMAPS, ownClient } from "./own_client.ts";

/** The tombstone of an object. */
export function tombstoneOf(name: string): string {
  return `gone-${name}`;
}

/** Write the tombstone of an object (once). */
export async function writeTombstone(name: string, namespace: string): Promise<void> {
  await using api = ownClient();
  try {
    await createObject(api, CONFIGMAPS, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: tombstoneOf(name), namespace, labels: { tombstone: "yes" } },
    });
  } catch (error) {
    if (!(error instanceof kopf.APIConflictError)) throw error; // written before
  }
}
