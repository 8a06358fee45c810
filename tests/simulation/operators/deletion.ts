/**
 * Deletion with the operator's finalizer: a create handler that takes a few seconds (so
 * that some objects are deleted while it runs) and a deletion handler that writes a
 * tombstone; the finalizer holds each object until the deletion handler has succeeded.
 */
import { kopf } from "../../../mod.ts";
import { writeTombstone } from "./tombstones.ts";

kopf.on.create("kopfexamples", async function prepare() {
  await new Promise((resolve) => setTimeout(resolve, 3000));
  return { prepared: true };
});

kopf.on.delete("kopfexamples", async function cleanUp({ name, namespace }) {
  await writeTombstone(name, namespace ?? "default");
});
