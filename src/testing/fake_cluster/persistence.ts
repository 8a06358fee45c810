/**
 * Saving and loading the cluster, so that `kopf fake-cluster --state FILE` keeps
 * everything across restarts, as a restarted API server does: its objects and
 * resourceVersion counter, and its identity -- the port, the CA and serving certificate,
 * the admin's token and client certificate, the tokens issued to users and service
 * accounts -- so that a client with the old kubeconfig reconnects. The file is JSON
 * (objects of CRDs after the CRDs, so their types exist when they load); it holds private
 * keys and tokens, so it is written readable by its owner only (0600).
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { ConfigurationError } from "../../structs/errors.ts";
import type { CertificatePem } from "../../platform/certificates.ts";
import { writeTextFileAtomic } from "../../platform/state_files.ts";
import { readTextFileIfExists } from "../../platform/files.ts";
import { typeKey } from "../../catalog/resource_types.ts";
import type { SavedToken } from "./authentication.ts";
import type { Objects } from "./objects.ts";
import { isObject } from "./patching.ts";

const FORMAT = "kopf.dev/fake-cluster-state/v1";
const CRDS = typeKey("apiextensions.k8s.io", "customresourcedefinitions");

/** The cluster's identity as the state file keeps it: what lets old clients reconnect. */
export interface SavedCredentials {
  /** The port listened on. */
  port?: number;
  /** The certificate authority: its certificate and private key. */
  ca?: CertificatePem;
  /** The serving certificate and its key, issued by that CA. */
  serving?: CertificatePem;
  /** The admin's client certificate and key, issued by that CA. */
  clientCertificate?: CertificatePem;
  /** The admin's bearer token. */
  token?: string;
  /** The tokens issued to users and service accounts, with whom they stand for. */
  tokens?: SavedToken[];
}

/** The saved form of a cluster. */
export interface StateFile {
  format: string;
  resourceVersion: number;
  objects: JsonObject[];
  credentials?: SavedCredentials;
}

/** Everything in the store, and the credentials, as the state file's text. */
export function serializeState(objects: Objects, credentials?: SavedCredentials): string {
  const store = objects.store;
  const keys = store.typeKeys().sort((a, b) => (a === CRDS ? -1 : b === CRDS ? 1 : a < b ? -1 : 1));
  const all: JsonObject[] = [];
  for (const key of keys) all.push(...store.list(key));
  const state: StateFile = { format: FORMAT, resourceVersion: store.resourceVersion, objects: all };
  if (credentials) state.credentials = credentials;
  return JSON.stringify(state, null, 1) + "\n";
}

/** Save the state to a file, atomically and readable by its owner only (it holds keys). */
export async function saveState(
  objects: Objects,
  file: string,
  credentials?: SavedCredentials,
): Promise<void> {
  await writeTextFileAtomic(file, serializeState(objects, credentials), 0o600);
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
    credentials: credentialsOf(parsed.credentials, file),
  };
}

/** A certificate and key as saved, or `undefined` when absent. */
function pemOf(
  value: JsonValue | undefined,
  what: string,
  file: string,
): CertificatePem | undefined {
  if (value === undefined) return undefined;
  if (isObject(value) && typeof value.certPem === "string" && typeof value.keyPem === "string") {
    return { certPem: value.certPem, keyPem: value.keyPem };
  }
  throw malformed(file, `${what} is not a certificate with its key`);
}

function malformed(file: string, why: string): ConfigurationError {
  return new ConfigurationError(
    `The state file ${file} has malformed credentials: ${why}; remove its "credentials" to start with new ones.`,
  );
}

/** The saved credentials, checked for their shape. */
function credentialsOf(value: JsonValue | undefined, file: string): SavedCredentials | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) throw malformed(file, "they are not an object");
  const { port, token, tokens } = value;
  if (port !== undefined && (typeof port !== "number" || !Number.isInteger(port))) {
    throw malformed(file, "the port is not a number");
  }
  if (token !== undefined && typeof token !== "string") {
    throw malformed(file, "the token is not a string");
  }
  if (tokens !== undefined && !(Array.isArray(tokens) && tokens.every(isSavedToken))) {
    throw malformed(file, "the issued tokens are not a list of tokens with their users");
  }
  return {
    port: port as number | undefined,
    ca: pemOf(value.ca, "the CA", file),
    serving: pemOf(value.serving, "the serving certificate", file),
    clientCertificate: pemOf(value.clientCertificate, "the client certificate", file),
    token: token as string | undefined,
    tokens: tokens as unknown as SavedToken[] | undefined,
  };
}

function isSavedToken(value: JsonValue): boolean {
  if (!isObject(value) || typeof value.token !== "string" || !isObject(value.user)) return false;
  const { username, groups } = value.user;
  return typeof username === "string" && Array.isArray(groups) &&
    groups.every((g) => typeof g === "string") && Array.isArray(value.audiences) &&
    (value.expires === undefined || typeof value.expires === "number");
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
