/**
 * The `Authorization` header of credentials: a bearer (or other scheme) token, a token
 * file that is re-read when it changes, or HTTP basic auth.
 *
 * @module
 */
import type { ConnectionInfo } from "../structs/credentials.ts";
import { modificationStamp, readTextFile } from "../platform/files.ts";

/** What kind of authentication a request carries; safe to log (no secrets). */
export type AuthKind = "token" | "token-file" | "basic" | "client-certificate" | "none";

/** The header value and its loggable kind. */
export interface Authorization {
  /** The `Authorization` header value, if any. Secret: never log it. */
  header?: string;
  /** The kind, for logs. */
  kind: AuthKind;
}

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

/** The authorization of credentials; a readable token file wins over a static token. */
export async function authorizationOf(
  info: ConnectionInfo,
  tokenFiles: TokenFiles,
): Promise<Authorization> {
  const scheme = info.scheme || "Bearer";
  if (info.tokenPath) {
    const token = await tokenFiles.read(info.tokenPath);
    if (token) return { header: `${scheme} ${token}`, kind: "token-file" };
  }
  if (info.token) return { header: `${scheme} ${info.token}`, kind: "token" };
  if (info.username !== undefined && info.password !== undefined) {
    return { header: `Basic ${base64Utf8(`${info.username}:${info.password}`)}`, kind: "basic" };
  }
  if (info.certificateData || info.certificatePath) return { kind: "client-certificate" };
  return { kind: "none" };
}
