/**
 * Trusting only a given CA on Deno. client-go (and Node's TLS, whose `ca` option replaces
 * the default roots) trusts only the kubeconfig's CA when one is given; Deno's
 * `Deno.createHttpClient({ caCerts })` and `Deno.connectTls({ caCerts })` trust it *besides*
 * the runtime's root store (Mozilla's, or the system's with `DENO_TLS_CA_STORE=system`),
 * and expose no peer certificate to check afterwards. So a server whose certificate chains
 * to a publicly trusted CA would be accepted for the API server's name.
 *
 * Deno's `node:tls`, though, verifies against its `ca` alone. Before an HTTP client of
 * Deno sends its first request to an origin -- and again after {@link REVERIFY_SECONDS} --
 * the origin's certificate is checked with one handshake of `node:tls` against the given
 * CA only; a certificate that does not chain to it fails the requests with a certificate
 * error, as client-go would. What this does not cover: the connections that Deno's `fetch`
 * and the HTTP/1.1 agent open between two checks are verified by Deno's own rules only (an
 * interception that spares the checks' connections is not seen). Running Deno with
 * `DENO_TLS_CA_STORE` set to an empty value (and no `DENO_CERT` or `--cert`) empties the
 * root store, so that every connection trusts the given CA alone (and nothing else that the
 * program connects to without a CA of its own): the Deployment of `kopf manifests` does so
 * unless made with `--public-roots`; see docs/deployment.md. Checking every connection here
 * instead would take those requests off Deno's own clients (Node's TLS, through `undici`,
 * costs several times their CPU per request). The checks go on with the store empty too: a
 * root added by `--cert` cannot be seen from here.
 *
 * @module
 */
import type { TLSSocket } from "node:tls";
import { ConnectTimeoutError } from "./connect_timeout.ts";
import { markDelivery } from "./request_delivery.ts";
import { getEnv } from "./process.ts";

/** Seconds after which an origin's certificate is checked again (at its next request). */
export const REVERIFY_SECONDS = 600;

/** The TLS settings of the checks. */
export interface CaPinningOptions {
  /** The only CA certificates (PEM) to trust. */
  readonly caCertificates: readonly string[];
  /** The client certificate (PEM), for servers that ask for one during the handshake. */
  readonly certificate?: string;
  /** Its private key (PEM). */
  readonly privateKey?: string;
  /** Seconds to wait for the handshake; none by default. */
  readonly connectTimeout?: number;
}

/** The server's certificate does not verify against the given CA alone. */
export class UntrustedCertificateError extends Error {
  override name = "UntrustedCertificateError";
}

/** Node's codes of certificates that do not verify (as opposed to network failures). */
export const CERTIFICATE_CODES: ReadonlySet<string> = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** The state of one origin's check. */
interface OriginCheck {
  /** When the check passed (performance.now() milliseconds); `undefined` if not yet. */
  passedAt?: number;
  /** The check in progress, shared by the requests that wait for it. */
  pending?: Promise<void>;
}

/** The checks of one HTTP client's origins; see the module docs. */
export class CaPinning {
  readonly #options: CaPinningOptions;
  readonly #origins = new Map<string, OriginCheck>();
  /** The origin of the last request, and its check. */
  #last: { readonly origin: string; readonly check: OriginCheck } | undefined;

  constructor(options: CaPinningOptions) {
    this.#options = options;
  }

  /**
   * `undefined` if the URL's origin passed its check recently (no wait: the usual case),
   * else the check to wait for before the request; it rejects with what failed (a
   * certificate that does not verify is an {@link UntrustedCertificateError}).
   */
  before(url: string, signal: AbortSignal | undefined): Promise<void> | undefined {
    const now = performance.now();
    // Most clients talk to one server: its origin is matched without a string made.
    const last = this.#last;
    if (
      last !== undefined && url.startsWith(last.origin) &&
      url.charCodeAt(last.origin.length) === SLASH && last.check.passedAt !== undefined &&
      now - last.check.passedAt < REVERIFY_SECONDS * 1000
    ) return undefined;
    const end = url.indexOf("/", url.indexOf("//") + 2);
    const origin = end < 0 ? url : url.slice(0, end);
    let check = this.#origins.get(origin);
    if (check === undefined) this.#origins.set(origin, check = {});
    this.#last = { origin, check };
    if (check.passedAt !== undefined && now - check.passedAt < REVERIFY_SECONDS * 1000) {
      return undefined;
    }
    const state = check;
    state.pending ??= verifyAgainstCa(origin, this.#options).then(
      () => {
        state.passedAt = performance.now();
        state.pending = undefined;
      },
      (error) => {
        state.passedAt = undefined;
        state.pending = undefined;
        throw error;
      },
    );
    return signal === undefined ? state.pending : untilAborted(state.pending, signal);
  }
}

/** The code of `/`. */
const SLASH = 47;

/** A variable that this process may not read without a permission prompt. */
const UNREADABLE = Symbol("unreadable");

/**
 * What the runtime's root store holds, as far as the environment tells: `empty` with
 * `DENO_TLS_CA_STORE` set to an empty value and no `DENO_CERT` adding a root to it (a
 * `--cert` flag cannot be seen), `roots` otherwise, `unknown` when a variable that would
 * decide it may not be read (a binary compiled with the planned permissions).
 */
function rootStore(): "empty" | "roots" | "unknown" {
  const stores = readableEnv("DENO_TLS_CA_STORE");
  if (stores === UNREADABLE) return "unknown";
  if (stores === undefined || stores.split(",").some((s) => s.trim() !== "")) return "roots";
  const added = readableEnv("DENO_CERT");
  return added === UNREADABLE ? "unknown" : added ? "roots" : "empty";
}

/** An environment variable, if allowed to read it without a permission prompt. */
function readableEnv(name: string): string | undefined | typeof UNREADABLE {
  try {
    const query = Deno.permissions.querySync({ name: "env", variable: name });
    return query.state === "granted" ? getEnv(name) : UNREADABLE;
  } catch {
    return UNREADABLE;
  }
}

/**
 * What remains of the gap for a server, in one line to log once; `undefined` where no
 * publicly trusted CA could certify its name -- a private, loopback or link-local address,
 * or a cluster-internal or single-label name -- or where the root store is empty.
 */
export function caPinningCaveat(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  } catch {
    return undefined;
  }
  if (url.startsWith("http:") || !publiclyCertifiable(host)) return undefined;
  const store = rootStore();
  if (store === "empty") return undefined;
  const trusts = store === "roots"
    ? "trust its given CA besides the runtime's root store"
    : "trust its given CA besides the runtime's root store, unless DENO_TLS_CA_STORE is " +
      "empty (this process may not read it, nor DENO_CERT)";
  return `On Deno, the connections to ${url} ${trusts}; the server's certificate is ` +
    `checked against the CA alone when first used and every ${REVERIFY_SECONDS / 60} ` +
    `minutes, not on every connection. To trust the CA alone on every connection, run ` +
    `with DENO_TLS_CA_STORE set to an empty value, as the Deployment of kopf manifests ` +
    `does unless made with --public-roots (see the deployment guide).`;
}

/**
 * 4 or 6 for an IP address, 0 for a name, as `node:net`'s `isIP` (not loaded: it costs an
 * operator's start-up tens of milliseconds) says of a URL's hostname: the URL parser has
 * made every IPv4 literal dotted-decimal, and only an IPv6 one (unbracketed) has a colon.
 */
function ipVersion(host: string): 0 | 4 | 6 {
  return host.includes(":") ? 6 : /^\d{1,3}(?:\.\d{1,3}){3}$/.test(host) ? 4 : 0;
}

/** Whether a public CA could issue a certificate for the host. */
function publiclyCertifiable(host: string): boolean {
  const ip = ipVersion(host);
  if (ip === 4) {
    const [a, b] = host.split(".").map(Number);
    return !(a === 10 || a === 127 || (a === 172 && b >= 16 && b < 32) ||
      (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b < 128));
  }
  if (ip === 6) return !/^(?:::1$|f[cd]|fe[89ab])/.test(host);
  return host.includes(".") &&
    !/\.(?:svc|local|localhost|internal|cluster\.local|home\.arpa)$/.test(host);
}

/**
 * One TLS handshake with the origin (`https://host:port`) that trusts the given CA alone;
 * resolves if the certificate verifies for the host. Any failure leaves the request that
 * waits for it unsent (and says so).
 */
export async function verifyAgainstCa(
  origin: string,
  options: CaPinningOptions,
): Promise<void> {
  const url = new URL(origin);
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const port = Number(url.port || 443);
  // Loaded at the first check: an operator without a CA to pin never loads `node:tls`.
  const { connect: connectTls } = await import("node:tls");
  return await new Promise<void>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(markDelivery(error, { unsent: true }));
    };
    const socket: TLSSocket = connectTls({
      host,
      port,
      ...(ipVersion(host) ? {} : { servername: host }),
      ca: [...options.caCertificates],
      ...(options.certificate !== undefined
        ? { cert: options.certificate, key: options.privateKey }
        : {}),
      rejectUnauthorized: true,
      ALPNProtocols: ["http/1.1"],
    }, () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    });
    const timeout = options.connectTimeout;
    if (timeout !== undefined) {
      timer = setTimeout(() => {
        fail(new ConnectTimeoutError(`No connection within ${timeout} seconds.`));
      }, timeout * 1000);
    }
    socket.once("error", (error: Error & { code?: string }) => {
      if (!CERTIFICATE_CODES.has(error.code ?? "") && !/certificate/i.test(error.message)) {
        fail(error);
        return;
      }
      fail(
        new UntrustedCertificateError(
          `not verified by the given CA alone: ${error.message} (a given CA replaces ` +
            `the runtime's default roots, as in kubectl)`,
          { cause: error },
        ),
      );
    });
  });
}

/** The promise, or the signal's reason if it aborts first. */
function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
