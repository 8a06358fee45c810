/**
 * The API client's connections: one HTTP client per set of TLS settings and connect
 * timeout, and what each set of credentials adds to every request (the server's URL, the
 * `Authorization` header), computed once per credentials.
 *
 * @module
 */
import { getLogger } from "../platform/log_routing.ts";
import type { ConnectionInfo } from "../structs/credentials.ts";
import { LoginError } from "../structs/errors.ts";
import { FileNotFoundError, readTextFile } from "../platform/files.ts";
import { findMissingPermission } from "../platform/permission_flags.ts";
import { createHttpClient, type HttpClient } from "../platform/http_client.ts";
import { authorizationOf, staticAuthorization, TokenFiles } from "./authorization.ts";
import { inProcessClient } from "../platform/in_process_http.ts";

const logger = getLogger(["kopf", "client", "api"]);

/** The servers whose HTTP clients' caveats were told: once per process each. */
const toldCaveats = new Set<string>();

/** One request as the connections send it. */
export interface OutgoingRequest {
  /** The HTTP method. */
  readonly method: string;
  /** The path and query, appended to the server's URL. */
  readonly path: string;
  /** The JSON text to send, if any. */
  readonly body: string | undefined;
  /** The body's content type. */
  readonly contentType: string;
  /** The `Accept` header; `application/json` when undefined. */
  readonly accept: string | undefined;
  /** Seconds to wait for a connection; `undefined` for no limit. */
  readonly connectTimeout: number | undefined;
  /** The response body will be read as a stream for long (a watch). */
  readonly stream: boolean;
  /** The answer may be large (a list): asked for compressed. */
  readonly compressed: boolean;
}

/** Per-credentials request parts: they never change for one {@link ConnectionInfo}. */
interface Prepared {
  /** The server URL without trailing slashes, to prepend to request paths. */
  readonly base: string;
  /** The TLS settings, as the part of the pool key shared by all connect timeouts. */
  readonly clientKey: string;
  /** The `Authorization` header when the credentials have no token file. */
  readonly header: string | undefined;
  /**
   * The HTTP clients made, by connect timeout: no pool key to build per request. A client
   * that fails to be made never gets here, and a closed API client sends nothing more.
   */
  readonly clients: Map<number | undefined, HttpClient>;
  /**
   * The request headers of fixed credentials, by content type (`""` without a body), and
   * by the `Accept` header where it is not the default (after a line break).
   */
  readonly headers: Map<string, Readonly<Record<string, string>>>;
}

/** The HTTP clients of an API client, and the requests' headers per credentials. */
export class Connections {
  readonly #userAgent: string;
  readonly #tokenFiles = new TokenFiles();
  readonly #pool = new Map<string, Promise<HttpClient>>();
  /** What each set of credentials needs per request, computed once per credentials. */
  readonly #prepared = new WeakMap<ConnectionInfo, Prepared>();

  constructor(userAgent: string) {
    this.#userAgent = userAgent;
  }

  /** One HTTP exchange with one set of credentials. */
  send(info: ConnectionInfo, request: OutgoingRequest, signal: AbortSignal): Promise<Response> {
    const prepared = this.#prepare(info);
    const http = prepared.clients.get(request.connectTimeout);
    // Only a token file can change between requests; other credentials' headers are fixed.
    if (http === undefined || info.tokenPath) {
      return this.#sendSlowly(info, prepared, request, signal);
    }
    return fetchOf(http, prepared, this.#headersOf(prepared, request), request, signal);
  }

  /** Close every HTTP client made. */
  async close(): Promise<void> {
    const clients = [...this.#pool.values()];
    this.#pool.clear();
    for (const client of clients) {
      try {
        await (await client).close();
      } catch {
        // A client that failed to be created has nothing to close.
      }
    }
  }

  /** {@link send} with the HTTP client still to make, or the token file to read. */
  async #sendSlowly(
    info: ConnectionInfo,
    prepared: Prepared,
    request: OutgoingRequest,
    signal: AbortSignal,
  ): Promise<Response> {
    const connectTimeout = request.connectTimeout;
    const http = await this.#httpClientFor(info, prepared.clientKey, connectTimeout);
    prepared.clients.set(connectTimeout, http);
    const header = info.tokenPath ? await authorizationOf(info, this.#tokenFiles) : prepared.header;
    return await fetchOf(http, prepared, this.#headers(header, request), request, signal);
  }

  /** The request headers of fixed credentials: made once per content type, then reused. */
  #headersOf(prepared: Prepared, request: OutgoingRequest): Record<string, string> {
    const base = request.body === undefined ? "" : request.contentType;
    // Most requests take the default Accept: no key to build for them.
    const key = request.accept === undefined ? base : `${base}\n${request.accept}`;
    let headers = prepared.headers.get(key);
    if (headers === undefined) {
      headers = Object.freeze(this.#headers(prepared.header, request));
      prepared.headers.set(key, headers);
    }
    return headers;
  }

  #headers(authorization: string | undefined, request: OutgoingRequest): Record<string, string> {
    const headers: Record<string, string> = {
      "Accept": request.accept ?? "application/json",
      "User-Agent": this.#userAgent,
    };
    if (authorization) headers["Authorization"] = authorization;
    if (request.body !== undefined) headers["Content-Type"] = request.contentType;
    return headers;
  }

  #prepare(info: ConnectionInfo): Prepared {
    let prepared = this.#prepared.get(info);
    if (!prepared) {
      prepared = {
        base: info.server.replace(/\/+$/, ""),
        clientKey: JSON.stringify([
          info.caPath ?? null,
          info.caData ?? null,
          info.insecure ?? false,
          info.certificatePath ?? null,
          info.certificateData ?? null,
          info.privateKeyPath ?? null,
          info.privateKeyData ?? null,
        ]),
        header: info.tokenPath ? undefined : staticAuthorization(info),
        clients: new Map(),
        headers: new Map(),
      };
      this.#prepared.set(info, prepared);
    }
    return prepared;
  }

  async #httpClientFor(
    info: ConnectionInfo,
    clientKey: string,
    connectTimeout: number | undefined,
  ): Promise<HttpClient> {
    const key = `${clientKey}/${connectTimeout ?? ""}`;
    let client = this.#pool.get(key);
    if (!client) {
      client = makeHttpClient(info, connectTimeout);
      this.#pool.set(key, client);
      client.catch(() => this.#pool.delete(key));
    }
    return await client;
  }
}

/** The request, sent with the given headers. */
function fetchOf(
  http: HttpClient,
  prepared: Prepared,
  headers: Record<string, string>,
  request: OutgoingRequest,
  signal: AbortSignal,
): Promise<Response> {
  return http.fetch(prepared.base + request.path, {
    method: request.method,
    headers,
    body: request.body,
    signal,
    stream: request.stream,
    compressed: request.compressed,
  });
}

async function readCredentialFile(what: string, path: string): Promise<string> {
  try {
    return await readTextFile(path);
  } catch (e) {
    if (findMissingPermission(e)) throw e;
    const why = e instanceof FileNotFoundError ? "it does not exist" : (e as Error).message;
    throw new LoginError(`Cannot read the ${what} file ${path}: ${why}.`);
  }
}

async function makeHttpClient(
  info: ConnectionInfo,
  connectTimeout: number | undefined,
): Promise<HttpClient> {
  const local = inProcessClient(info.server);
  if (local !== undefined) return local;
  const ca = info.caData ?? (info.caPath ? await readCredentialFile("CA", info.caPath) : undefined);
  const certificate = info.certificateData ??
    (info.certificatePath
      ? await readCredentialFile("client certificate", info.certificatePath)
      : undefined);
  const privateKey = info.privateKeyData ??
    (info.privateKeyPath ? await readCredentialFile("client key", info.privateKeyPath) : undefined);
  if ((certificate === undefined) !== (privateKey === undefined)) {
    throw new LoginError(
      `The credentials for ${info.server} have a client ${certificate ? "certificate" : "key"} ` +
        `but no ${certificate ? "key" : "certificate"}; give both or neither.`,
    );
  }
  for (
    const [what, pem] of [["CA", ca], ["client certificate", certificate], [
      "client key",
      privateKey,
    ]] as const
  ) {
    if (pem !== undefined && !pem.includes("-----BEGIN ")) {
      throw new LoginError(
        `The ${what} for ${info.server} is not PEM data (no "-----BEGIN" block); ` +
          `give PEM text, not base64 or a path.`,
      );
    }
  }
  let http: HttpClient;
  try {
    http = await createHttpClient({
      caCertificates: ca ? [ca] : undefined,
      certificate,
      privateKey,
      insecure: info.insecure,
      connectTimeout,
    });
  } catch (e) {
    if (findMissingPermission(e)) throw e;
    const what = certificate ? "CA or client certificate and key" : "CA";
    throw new LoginError(
      `The ${what} for ${info.server} cannot be used (${(e as Error).message}); ` +
        `give PEM-encoded data.`,
    );
  }
  const caveat = http.caveat?.(info.server);
  if (caveat !== undefined && !toldCaveats.has(info.server)) {
    toldCaveats.add(info.server);
    logger.warn(caveat);
  }
  return http;
}
