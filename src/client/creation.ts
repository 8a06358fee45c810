/**
 * Creating an object exactly once, even when a reply is lost.
 *
 * A `POST` whose reply is lost may or may not have created the object, so it is never sent
 * again blindly. Each create carries a stamp instead: a random id in the annotation
 * {@link REQUEST_ID_ANNOTATION}, and always a name -- for a `generateName`, the client picks
 * the name itself as the API server would (the prefix cut to 58 characters, then five
 * random characters of the server's alphabet), keeping `generateName` in the body. Then
 * the request may go again after any failure: a replay either creates the object (the first
 * attempt did not) or is answered 409 AlreadyExists, and reading the object by its name
 * tells whether it is ours (it has our stamp: returned as created) or another's (a taken
 * generated name is replaced by a fresh one; a taken given name is the caller's 409). No
 * request is added when the reply arrives, which is nearly always.
 *
 * @module
 */
import type { JsonObject, RawBody } from "../structs/bodies.ts";
import type { Resource } from "../structs/resources.ts";
import type { ApiClient, QueryParams } from "./api.ts";
import { APIConflictError, APINotFoundError } from "./api_errors.ts";

/**
 * The annotation that stamps every object the client creates with the id of its create
 * request, to recognise it after a lost reply. Under the `kopf.zalando.org` prefix: the
 * essences that the diff-base compares leave it out, as all of Kopf's annotations.
 */
export const REQUEST_ID_ANNOTATION = "kopf.zalando.org/request-id";

/** The characters of generated names: the API server's (no vowels, no look-alikes). */
const NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
/** The random suffix of a generated name. */
const NAME_SUFFIX_LENGTH = 5;
/** The longest prefix of a generated name: 63 characters with the suffix. */
const MAX_PREFIX_LENGTH = 63 - NAME_SUFFIX_LENGTH;
/** How many generated names are tried when they turn out to be taken. */
const GENERATED_NAME_ATTEMPTS = 8;

/** A name for `generateName`, made as the API server makes it. */
export function generateName(prefix: string): string {
  const random = crypto.getRandomValues(new Uint8Array(NAME_SUFFIX_LENGTH));
  let name = prefix.length > MAX_PREFIX_LENGTH ? prefix.slice(0, MAX_PREFIX_LENGTH) : prefix;
  for (const byte of random) name += NAME_ALPHABET[byte % NAME_ALPHABET.length];
  return name;
}

/** What a create sends besides its body. */
export interface CreateRequest {
  /** The collection's path. */
  readonly path: string;
  /** The namespace the object is made in; `undefined` for cluster-scoped resources. */
  readonly namespace: string | undefined;
  /** The query (dry run, field manager), if any. */
  readonly query: QueryParams | undefined;
  /** Cancels the create, its retries, and the reading after a lost reply. */
  readonly signal: AbortSignal | undefined;
}

/**
 * POST the body (which must carry `apiVersion` and `kind`) so that the object is made once
 * at most; returns the object made. See the module docs.
 */
export async function createOnce(
  api: ApiClient,
  resource: Resource,
  body: RawBody,
  request: CreateRequest,
): Promise<RawBody> {
  const meta = body.metadata ?? {};
  const stamp = crypto.randomUUID();
  const prefix = !meta.name && meta.generateName ? meta.generateName : undefined;
  // A name that could not be read back by its path is refused now, as any other call's.
  if (meta.name) resource.getUrl({ name: meta.name, namespace: request.namespace });
  for (let attempt = 1;; attempt++) {
    const name = prefix === undefined ? meta.name : generateName(prefix);
    const sent = stamped(body, stamp, name);
    try {
      return await api.request<RawBody>("POST", request.path, {
        body: sent,
        query: request.query,
        signal: request.signal,
        idempotent: true, // a second one is answered 409, and resolved below
      });
    } catch (error) {
      if (!(error instanceof APIConflictError) || error.reason !== "AlreadyExists" || !name) {
        throw error;
      }
      const existing = await readBack(api, resource, name, request.namespace, request.signal);
      if (existing?.metadata?.annotations?.[REQUEST_ID_ANNOTATION] === stamp) return existing;
      // Another object has the name: a generated one is made again; a given one is taken.
      if (prefix === undefined || attempt >= GENERATED_NAME_ATTEMPTS) throw error;
    }
  }
}

/** The body with the stamp (and the name, if chosen here), the caller's body untouched. */
function stamped(body: RawBody, stamp: string, name: string | undefined): RawBody {
  const meta = body.metadata ?? {};
  const annotations = { ...meta.annotations, [REQUEST_ID_ANNOTATION]: stamp };
  return {
    ...body,
    metadata: { ...meta, ...(name === undefined ? {} : { name }), annotations },
  };
}

/** The object of that name, or `undefined` if there is none (any more). */
async function readBack(
  api: ApiClient,
  resource: Resource,
  name: string,
  namespace: string | undefined,
  signal: AbortSignal | undefined,
): Promise<RawBody | undefined> {
  const path = resource.getUrl({ name, namespace });
  try {
    return await api.request<JsonObject>("GET", path, { signal }) as RawBody;
  } catch (error) {
    if (error instanceof APINotFoundError) return undefined;
    throw error;
  }
}
