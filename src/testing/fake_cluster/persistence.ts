/**
 * Saving and loading the cluster's objects, so that `kopf fake-cluster --state FILE`
 * keeps everything across restarts. The file is JSON: the resourceVersion counter and
 * every object as stored, CRDs first so their types exist when their objects load.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { ConfigurationError } from "../../structs/errors.ts";
import { writeTextFileAtomic } from "../../platform/state_files.ts";
import { readTextFileIfExists } from "../../platform/files.ts";
import { typeKey } from "../../catalog/resource_types.ts";
import type { Objects } from "./objects.ts";
import { isObject } from "./patching.ts";

const FORMAT = "kopf.dev/fake-cluster-state/v1";
const CRDS = typeKey("apiextensions.k8s.io", "customresourcedefinitions");

/** The saved form of a cluster. */
interface StateFile {
  format: string;
  resourceVersion: number;
  objects: JsonObject[];
}

/** Everything in the store, as the state file's text. */
export function serializeState(objects: Objects): string {
  const store = objects.store;
  const keys = store.typeKeys().sort((a, b) => (a === CRDS ? -1 : b === CRDS ? 1 : a < b ? -1 : 1));
  const all: JsonObject[] = [];
  for (const key of keys) all.push(...store.list(key));
  const state: StateFile = { format: FORMAT, resourceVersion: store.resourceVersion, objects: all };
  return JSON.stringify(state, null, 1) + "\n";
}

/** Save the state to a file (atomically). */
export async function saveState(objects: Objects, file: string): Promise<void> {
  await writeTextFileAtomic(file, serializeState(objects));
}

/**
 * Read a state file; `undefined` when it does not exist yet. A file that is not ours
 * or holds objects of unknown kinds fails loudly rather than losing them.
 */
export async function readState(file: string): Promise<StateFile | undefined> {
  const text = await readTextFileIfExists(file);
  if (text === undefined) return undefined;
  let parsed: JsonValue;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigurationError(
      `The state file ${file} is not valid JSON (${(error as Error).message}); fix or remove it.`,
      { cause: error },
    );
  }
  if (!isObject(parsed) || parsed.format !== FORMAT || !Array.isArray(parsed.objects)) {
    throw new ConfigurationError(
      `The file ${file} is not a fake cluster state file (format ${FORMAT}); pass another --state path.`,
    );
  }
  return {
    format: FORMAT,
    resourceVersion: Number(parsed.resourceVersion) || 1,
    objects: parsed.objects.filter(isObject),
  };
}

/** Put the saved objects into the store (CRDs first, registering their types). */
export function restoreState(objects: Objects, state: StateFile, file: string): void {
  const ordered = [...state.objects].sort((a, b) =>
    (a.kind === "CustomResourceDefinition" ? -1 : 0) -
    (b.kind === "CustomResourceDefinition" ? -1 : 0)
  );
  for (const object of ordered) {
    const type = objects.catalog.byKind(String(object.apiVersion ?? ""), String(object.kind ?? ""));
    if (!type) {
      throw new ConfigurationError(
        `The state file ${file} holds a ${object.apiVersion}/${object.kind} object, which this cluster does not serve; is its CRD missing from the file?`,
      );
    }
    objects.store.restore(typeKey(type.group, type.plural), object);
    if (typeKey(type.group, type.plural) === CRDS) objects.register(object);
  }
}
