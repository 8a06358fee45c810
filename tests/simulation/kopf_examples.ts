/**
 * The examples' custom resource for the scenarios: its CRD (examples/crd.yaml), objects of
 * it, and Kopf's markers that invariants look for.
 */
import { parse } from "yaml";
import type { JsonObject, RawBody } from "../../mod.ts";

/** The examples' resource, as the fake cluster's direct API takes it. */
export const KEX = "kopfexamples.kopf.dev";

/** Kopf's finalizer. */
export const FINALIZER = "kopf.zalando.org/KopfFinalizerMarker";

/** The examples' CRD, parsed. */
export const CRD = parse(
  await Deno.readTextFile(new URL("../../examples/crd.yaml", import.meta.url)),
) as RawBody;

/** A KopfExample in `default` with this spec (and labels or annotations). */
export function kopfExample(
  name: string,
  spec: JsonObject = {},
  metadata: JsonObject = {},
): RawBody {
  return {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name, namespace: "default", ...metadata },
    spec,
  };
}

/** Whether an object carries Kopf's finalizer. */
export function finalized(body: RawBody | undefined): boolean {
  return body?.metadata?.finalizers?.includes(FINALIZER) ?? false;
}
