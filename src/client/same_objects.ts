/**
 * Reads that decide for one object: the object read by name is that object only if its uid
 * is the one known. Another object made under the name since (a namesake) is not "ours"
 * with news: the one we knew is gone, as a 404 would say.
 *
 * @module
 */
import type { RawBody, RawStatus } from "../structs/bodies.ts";
import type { Resource } from "../structs/resources.ts";
import type { ApiClient } from "./api.ts";
import { APINotFoundError } from "./api_errors.ts";
import { getObject, type GetOptions } from "./objects.ts";

/**
 * The object of `body` as it is now; `undefined` if it is gone: not found, or another
 * object of its name (another uid) is there instead. A body without a uid compares none.
 */
export async function readSameObject(
  api: ApiClient,
  resource: Resource,
  body: RawBody,
  options: GetOptions = {},
): Promise<RawBody | undefined> {
  const { name = "", namespace } = body.metadata ?? {};
  let fresh: RawBody;
  try {
    fresh = await getObject(api, resource, { name, namespace }, options);
  } catch (error) {
    if (error instanceof APINotFoundError) return undefined;
    throw error;
  }
  return isSameObject(body, fresh) ? fresh : undefined;
}

/** Whether `fresh` is the object of `body`: the same uid, or no uid to compare. */
export function isSameObject(body: RawBody, fresh: RawBody): boolean {
  const uid = body.metadata?.uid;
  return uid === undefined || fresh.metadata?.uid === uid;
}

/**
 * The object of `body` as it is now, or an {@link APINotFoundError} if it is gone -- a
 * namesake included, whose error names both uids.
 */
export async function readSameObjectOrFail(
  api: ApiClient,
  resource: Resource,
  body: RawBody,
  options: GetOptions = {},
): Promise<RawBody> {
  const { name = "", namespace } = body.metadata ?? {};
  const fresh = await getObject(api, resource, { name, namespace }, options);
  if (isSameObject(body, fresh)) return fresh;
  const where = namespace === undefined ? name : `${namespace}/${name}`;
  const status: RawStatus = {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    reason: "NotFound",
    code: 404,
    message: `${resource.plural} ${where} (uid ${body.metadata?.uid}) was deleted; the object ` +
      `of that name now is another one (uid ${fresh.metadata?.uid})`,
  };
  const path = `${resource.plural}/${where}`;
  throw new APINotFoundError(404, status, { method: "GET", path });
}
