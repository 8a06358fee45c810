/**
 * Webhook servers: where the cluster's API servers send admission review requests.
 * Put one into `settings.admission.server` (in a startup handler, or in the settings
 * given to the operator):
 *
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.admission.server = new kopf.WebhookServer({ port: 9443 });
 *   settings.admission.managed = "auto.kopf.dev";
 * });
 * ```
 *
 * A server listens on HTTPS; without a certificate it makes a self-signed CA and a server
 * certificate for the names it is reached by, and hands the CA to the webhook
 * configurations as their `caBundle`. Requests go to `<path>/<handler id>`; the rest of
 * the path names the handler (a request to the bare path runs all handlers). Every client
 * is held to the limits of `settings.admission` (body size, read timeouts, connections):
 * a request over them is answered 413, 408 or 503 and its connection closed.
 *
 * Tunnels through external services (ngrok) are not supported by this version:
 * {@link WebhookNgrokTunnel} fails at the operator's start and says so.
 *
 * @module
 */
import { ConfigurationError } from "../structs/errors.ts";
import type { HttpServer } from "../platform/http_server.ts";
import { readTextFile } from "../platform/files.ts";
import {
  AdmissionRequestError,
  type AdmissionServer,
  type AdmissionServerContext,
  admissionServerLimits,
  type WebhookClientConfig,
  type WebhookFn,
} from "../engines/webhook_servers.ts";
import { outsideContexts } from "../platform/async_context.ts";

/**
 * Options of {@link WebhookServer} and the servers derived from it; the tunnels
 * ({@link WebhookNgrokTunnel}, {@link WebhookAutoTunnel}) take the local address, port and
 * path, and ngrok's token, region and binary.
 */
export interface WebhookServerOptions {
  /** The address to listen on: `127.0.0.1` by default (`0.0.0.0` for K3d and Minikube). */
  readonly addr?: string;
  /** The port to listen on: 9443 by default; 0 picks a free one. */
  readonly port?: number;
  /** The path prefix of the webhook URLs, e.g. `/webhooks`; none by default. */
  readonly path?: string;
  /** The host name in the webhook URLs; the address by default. */
  readonly host?: string;
  /**
   * The CA bundle (PEM) to give the cluster for the given server certificate; with a
   * generated certificate, its generated CA is given instead.
   */
  readonly cadata?: string;
  /** A file with the CA bundle (PEM) to give the cluster. */
  readonly cafile?: string;
  /** Save the CA bundle (given or generated) to this file, e.g. for `curl --cacert`. */
  readonly cadump?: string;
  /** The server's certificate chain file (PEM); a self-signed one is made when omitted. */
  readonly certfile?: string;
  /** The server's certificate chain (PEM), instead of a file. */
  readonly certdata?: string;
  /** The server's private key file (PEM, unencrypted). */
  readonly pkeyfile?: string;
  /** The server's private key (PEM, unencrypted), instead of a file. */
  readonly pkeydata?: string;
  /**
   * A password of an encrypted private key. Not supported by this version: the server
   * refuses to start when it is given (use an unencrypted key).
   */
  readonly password?: string;
  /** More DNS names or IP addresses for the self-signed certificate. */
  readonly extraSans?: readonly string[];
  /**
   * A CA (PEM) to check client certificates against: handlers receive a verified
   * client's certificate as `sslpeer` (`{ commonName, organizations }`).
   */
  readonly verifyCadata?: string;
  /** A file with the CA (PEM) to check client certificates against. */
  readonly verifyCafile?: string;
  /** Serve plain HTTP: for direct calls while debugging; Kubernetes requires HTTPS. */
  readonly insecure?: boolean;
  /** The ngrok token (of {@link WebhookNgrokTunnel}). */
  readonly token?: string;
  /** The ngrok region (of {@link WebhookNgrokTunnel}). */
  readonly region?: string;
  /** The ngrok binary (of {@link WebhookNgrokTunnel}). */
  readonly binary?: string;
}

/** The default port of webhook servers. */
export const DEFAULT_WEBHOOK_PORT = 9443;

const MAGIC_ADDRESSES: ReadonlySet<string> = new Set(["0.0.0.0", "::", "[::]", ""]);
const LOOPBACK: ReadonlySet<string> = new Set(["127.0.0.1", "::1", "localhost"]);

/** A JSON answer. */
function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** Base64 of UTF-8 text. */
function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
  return btoa(binary);
}

/**
 * A webhook server listening locally (HTTPS unless `insecure`): for clusters that reach
 * the operator's host directly, for operators in the cluster behind a service, and for
 * `curl`. See {@link WebhookServerOptions}.
 *
 * @example Serve admission requests on a given port with a certificate of one's own
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.admission.server = new kopf.WebhookServer({
 *     addr: "0.0.0.0",
 *     port: 8443,
 *     host: "example-operator.operators.svc",
 *     certfile: "/etc/webhook/tls.crt",
 *     pkeyfile: "/etc/webhook/tls.key",
 *   });
 *   settings.admission.managed = "example.com";
 * });
 * ```
 */
export class WebhookServer implements AdmissionServer {
  /** The options as given. */
  readonly options: WebhookServerOptions;
  /** The CA bundle (PEM) the cluster needs, once the server runs; `undefined` if none. */
  caBundle: string | undefined = undefined;
  /** The base URL of the webhooks, once the server runs. */
  url: string | undefined = undefined;

  /** A server with these options; nothing starts until the operator serves it. */
  constructor(options: Omit<WebhookServerOptions, "token" | "region" | "binary"> = {}) {
    this.options = { ...options };
  }

  /** The host name the cluster reaches this server by, unless `host` is given. */
  protected defaultHost(): Promise<string | undefined> | string | undefined {
    return undefined;
  }

  /** The address listened on, unless `addr` is given. */
  protected defaultAddr(): string {
    return "127.0.0.1";
  }

  /** Start listening, yield the client config, and serve until the signal aborts. */
  async *serve(
    fn: WebhookFn,
    context: AdmissionServerContext,
  ): AsyncGenerator<WebhookClientConfig, void, undefined> {
    const o = this.options;
    if (o.password !== undefined) {
      throw new ConfigurationError(
        "Encrypted private keys (the webhook server's password) are not supported by this " +
          "version: give an unencrypted PEM key in pkeyfile or pkeydata.",
      );
    }
    const addr = o.addr ?? this.defaultAddr();
    const host = o.host ?? (await this.defaultHost()) ??
      (MAGIC_ADDRESSES.has(addr) ? "localhost" : addr);
    const path = (o.path ?? "").replace(/\/+$/, "");
    const tls = o.insecure ? undefined : await this.#tls(addr, host);
    // The server's and certificates' code loads with a server: most operators have none.
    const { startHttpServer } = await outsideContexts(() => import("../platform/http_server.ts"));
    const server: HttpServer = await startHttpServer({
      hostname: addr,
      port: o.port ?? DEFAULT_WEBHOOK_PORT,
      tls,
      limits: context.limits ?? admissionServerLimits(),
      name: "The webhook server",
      logger: context.logger,
      handler: (request, info) =>
        this.#answer(
          fn,
          path,
          request,
          info.peerCertificate?.authorized ? info.peerCertificate : undefined,
          context,
        ),
    });
    try {
      const netloc = host.includes(":") ? `[${host}]:${server.port}` : `${host}:${server.port}`;
      this.url = `${tls ? "https" : "http"}://${netloc}${path}`;
      context.logger.info(`Listening for admission webhooks at ${this.url}.`);
      const config: WebhookClientConfig = { url: this.url };
      if (this.caBundle !== undefined) config.caBundle = base64(this.caBundle);
      yield config;
      await new Promise<void>((resolve) => {
        if (context.signal.aborted) return resolve();
        context.signal.addEventListener("abort", () => resolve(), { once: true });
      });
    } finally {
      await server.close();
    }
  }

  /** The certificate and key: given, or self-signed for the names the server is reached by. */
  async #tls(addr: string, host: string) {
    const o = this.options;
    const read = async (data: string | undefined, file: string | undefined) =>
      data ?? (file === undefined ? undefined : await readTextFile(file));
    let certificate = await read(o.certdata, o.certfile);
    let privateKey = await read(o.pkeydata, o.pkeyfile);
    let ca = await read(o.cadata, o.cafile);
    const clientCa = await read(o.verifyCadata, o.verifyCafile);
    if ((certificate === undefined) !== (privateKey === undefined)) {
      throw new ConfigurationError(
        "The webhook server needs both a certificate (certfile/certdata) and its private " +
          "key (pkeyfile/pkeydata), or neither (then a self-signed one is made).",
      );
    }
    if (certificate === undefined || privateKey === undefined) {
      const names = [host, addr, ...(o.extraSans ?? [])]
        .map((name) => name.replace(/^\[|\]$/g, ""))
        .filter((name) => !MAGIC_ADDRESSES.has(name));
      if (MAGIC_ADDRESSES.has(addr) || names.some((name) => LOOPBACK.has(name))) {
        names.push("localhost", "127.0.0.1");
      }
      const hostnames = [...new Set(names)];
      const { generateCertificateAuthority, issueServerCertificate } = await outsideContexts(() =>
        import("../platform/certificates.ts")
      );
      const authority = await generateCertificateAuthority({ commonName: "kopf-webhook-ca" });
      const issued = await issueServerCertificate(authority, { hostnames });
      certificate = issued.certPem;
      privateKey = issued.keyPem;
      // Only the generated CA verifies the generated certificate: a given cadata/cafile
      // would send the cluster a bundle that cannot verify this server.
      ca = authority.certPem;
    }
    this.caBundle = ca;
    if (o.cadump !== undefined && ca !== undefined) {
      const { writeTextFileAtomic } = await outsideContexts(() =>
        import("../platform/state_files.ts")
      );
      await writeTextFileAtomic(o.cadump, ca, 0o644);
    }
    return { certificate, privateKey, ...(clientCa === undefined ? {} : { clientCa }) };
  }

  async #answer(
    fn: WebhookFn,
    path: string,
    request: Request,
    peer: { commonName?: string; organizations: readonly string[] } | undefined,
    context: AdmissionServerContext,
  ): Promise<Response> {
    const pathname = new URL(request.url).pathname;
    if (pathname !== path && !pathname.startsWith(`${path}/`)) {
      return json(404, { message: `Nothing is served at ${pathname}.` });
    }
    if (request.method !== "POST") {
      return json(405, { message: "Admission reviews are POSTed." });
    }
    const rest = pathname.slice(path.length).replace(/^\/+/, "");
    let webhook: string | undefined;
    let review: unknown;
    try {
      webhook = rest ? decodeURIComponent(rest) : undefined;
      review = await request.json();
    } catch {
      return json(400, { message: "The body is not JSON." });
    }
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    const sslpeer = peer === undefined
      ? null
      : { commonName: peer.commonName, organizations: [...peer.organizations] };
    try {
      return json(200, await fn(review, { webhook, headers, sslpeer }));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof AdmissionRequestError) return json(400, { message });
      // The cluster only sees a failed call: the operator's log must say why.
      context.logger.error(`The admission review at ${pathname} failed: ${message}`);
      return json(500, { message });
    }
  }
}

/** The host name K3d/K3s clusters reach their host machine by. */
export const K3D_HOST = "host.k3d.internal";
/** The host name Minikube clusters reach their host machine by. */
export const MINIKUBE_HOST = "host.minikube.internal";

/**
 * A webhook server for local K3d/K3s clusters: it listens on all addresses and the
 * cluster reaches it as `host.k3d.internal`, for which its certificate is made.
 *
 * @example Develop admission handlers against a local K3d cluster
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.admission.server = new kopf.WebhookK3dServer({ port: 9443, cadump: "/tmp/ca.pem" });
 *   settings.admission.managed = "example.com";
 * });
 * ```
 */
export class WebhookK3dServer extends WebhookServer {
  /** `host.k3d.internal`. */
  protected override defaultHost(): string {
    return K3D_HOST;
  }

  /** All addresses: the cluster's nodes are not on the loopback interface. */
  protected override defaultAddr(): string {
    return "0.0.0.0";
  }
}

/**
 * A webhook server for local Minikube clusters: it listens on all addresses and the
 * cluster reaches it as `host.minikube.internal`, for which its certificate is made.
 *
 * @example Develop admission handlers against a local Minikube cluster
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.admission.server = new kopf.WebhookMinikubeServer({ port: 9443 });
 *   settings.admission.managed = "example.com";
 * });
 * ```
 */
export class WebhookMinikubeServer extends WebhookServer {
  /** `host.minikube.internal`. */
  protected override defaultHost(): string {
    return MINIKUBE_HOST;
  }

  /** All addresses: the cluster's nodes are not on the loopback interface. */
  protected override defaultAddr(): string {
    return "0.0.0.0";
  }
}

/** Which local cluster the operator talks to: K3d/K3s, Minikube, or neither. */
export async function detectLocalCluster(
  context: AdmissionServerContext,
): Promise<"k3d" | "minikube" | undefined> {
  const cluster = context.cluster;
  if (cluster === undefined) return undefined;
  const version = await cluster.gitVersion();
  if (version !== undefined && version.includes("+k3s")) return "k3d";
  const nodes = await cluster.nodeLabels();
  if (nodes.some((labels) => Object.keys(labels).some((k) => k.startsWith("minikube.k8s.io/")))) {
    return "minikube";
  }
  return undefined;
}

/**
 * A webhook server that recognises the cluster: on K3d/K3s it serves as
 * {@link WebhookK3dServer}, on Minikube as {@link WebhookMinikubeServer}, elsewhere as a
 * plain {@link WebhookServer}. It never tunnels.
 *
 * @example One operator file for K3d, Minikube and other clusters alike
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.admission.server = new kopf.WebhookAutoServer();
 *   settings.admission.managed = "example.com";
 * });
 * ```
 */
export class WebhookAutoServer extends WebhookServer {
  #detected: "k3d" | "minikube" | undefined;

  /** The detected cluster's host name, if any. */
  protected override defaultHost(): string | undefined {
    return this.#detected === "k3d"
      ? K3D_HOST
      : this.#detected === "minikube"
      ? MINIKUBE_HOST
      : undefined;
  }

  /** All addresses for a detected cluster, the loopback otherwise. */
  protected override defaultAddr(): string {
    return this.#detected === undefined ? "127.0.0.1" : "0.0.0.0";
  }

  /** Detect the cluster, then serve as the fitting server. */
  override async *serve(
    fn: WebhookFn,
    context: AdmissionServerContext,
  ): AsyncGenerator<WebhookClientConfig, void, undefined> {
    this.#detected = await detectLocalCluster(context);
    if (this.#detected !== undefined) {
      context.logger.info(`The cluster looks like ${this.#detected}: serving webhooks for it.`);
    }
    yield* super.serve(fn, context);
  }
}

const NO_TUNNELS = "Webhook tunnels (ngrok) are not supported by this version; use " +
  "kopf.WebhookServer on an address the cluster can reach (or WebhookK3dServer, " +
  "WebhookMinikubeServer, WebhookAutoServer for local clusters).";

/**
 * Kopf's ngrok tunnel. Not supported by this version: an operator configured with it
 * fails at its start with one line saying so and what to use instead.
 *
 * @example Code ported from Kopf compiles, and fails at the start with what to use instead
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   // Refused when the operator starts: use kopf.WebhookServer on a reachable address.
 *   settings.admission.server = new kopf.WebhookNgrokTunnel({ port: 9443 });
 * });
 * ```
 */
export class WebhookNgrokTunnel implements AdmissionServer {
  /** The options as given. */
  readonly options: Pick<
    WebhookServerOptions,
    "addr" | "port" | "path" | "token" | "region" | "binary"
  >;

  /** Accepts Kopf's options, for the same code to fail clearly rather than not compile. */
  constructor(
    options: Pick<WebhookServerOptions, "addr" | "port" | "path" | "token" | "region" | "binary"> =
      {},
  ) {
    this.options = { ...options };
  }

  /** Fails: see the class docs. */
  // deno-lint-ignore require-yield
  async *serve(
    _fn: WebhookFn,
    _context: AdmissionServerContext,
  ): AsyncGenerator<WebhookClientConfig, void, undefined> {
    throw new ConfigurationError(NO_TUNNELS);
  }
}

/**
 * Serves as {@link WebhookAutoServer} on K3d/K3s and Minikube clusters. Elsewhere a
 * tunnel would be needed, which this version does not support: the operator then fails
 * at its start with one line saying so.
 *
 * @example Local clusters served directly; elsewhere the operator says a tunnel is needed
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.admission.server = new kopf.WebhookAutoTunnel({ port: 9443 });
 * });
 * ```
 */
export class WebhookAutoTunnel implements AdmissionServer {
  /** The options as given. */
  readonly options: Pick<WebhookServerOptions, "addr" | "port" | "path">;

  /** A tunnel with these options. */
  constructor(options: Pick<WebhookServerOptions, "addr" | "port" | "path"> = {}) {
    this.options = { ...options };
  }

  /** Serve through a local cluster's host name, or fail: see the class docs. */
  async *serve(
    fn: WebhookFn,
    context: AdmissionServerContext,
  ): AsyncGenerator<WebhookClientConfig, void, undefined> {
    const detected = await detectLocalCluster(context);
    if (detected === undefined) throw new ConfigurationError(NO_TUNNELS);
    const server = detected === "k3d"
      ? new WebhookK3dServer(this.options)
      : new WebhookMinikubeServer(this.options);
    yield* server.serve(fn, context);
  }
}
