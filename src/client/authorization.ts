/**
 * The `Authorization` header of credentials: a bearer (or other scheme) token, a token
 * file that is re-read when it changes, or HTTP basic auth.
 *
 * @module
 */
import type { ConnectionInfo } from "../structs/credentials.ts";
import { modificationStamp, readTextFile } from "../platform/files.ts";

/**
 * Token files, re-read only when they change on disk: a service-account token is
 * replaced by the kubelet long before it expires, and the old one may stop working.
 */
export class TokenFiles {
  #cache = new Map<string, { stamp: string; token: string }>();

  /** The current token in the file; `undefined` when the file is gone. */
  async read(path: string): Promise<string | undefined> {
    const stamp = await modificationStamp(path);
    if (stamp === undefined) return undefined;
    const cached = this.#cache.get(path);
    if (cached?.stamp === stamp) return cached.token;
    const token = (await readTextFile(path)).trim();
    this.#cache.set(path, { stamp, token });
    return token;
  }
}

function base64Utf8(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * The `Authorization` header of credentials without a token file (they cannot change, so
 * callers may keep it); `undefined` for none (client certificates, or nothing).
 * Secret: never log it.
 */
export function staticAuthorization(info: ConnectionInfo): string | undefined {
  if (info.token) return `${info.scheme || "Bearer"} ${info.token}`;
  if (info.username !== undefined && info.password !== undefined) {
    return `Basic ${base64Utf8(`${info.username}:${info.password}`)}`;
  }
  return undefined;
}

/**
 * The `Authorization` header of credentials; a readable token file wins over the static
 * header. Secret: never log it.
 */
export async function authorizationOf(
  info: ConnectionInfo,
  tokenFiles: TokenFiles,
): Promise<string | undefined> {
  if (info.tokenPath) {
    const token = await tokenFiles.read(info.tokenPath);
    if (token) return `${info.scheme || "Bearer"} ${token}`;
  }
  return staticAuthorization(info);
}
