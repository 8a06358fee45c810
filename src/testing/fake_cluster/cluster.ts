/**
 * `FakeCluster`: an in-memory Kubernetes API server over real HTTP(S) on 127.0.0.1, for
 * tests, demos and local development — with kubectl, `@kubernetes/client-node` or an
 * operator as its clients, fault injection, a request log, and a direct API for
 * fixtures and assertions that needs no client.
 *
 * @module
 */
import { stringify as toYaml } from "yaml";
import type { ConnectionInfo } from "../../structs/credentials.ts";
import type { JsonObject, JsonValue, RawBody } from "../../structs/bodies.ts";
import { ConfigurationError, UsageError } from "../../structs/errors.ts";
import {
  type HttpServer,
  type HttpServerTls,
  startHttpServer,
} from "../../platform/http_server.ts";
import {
  joinPath,
  makeTempDir,
  removeDirectory,
  writeTextFileAtomic,
} from "../../platform/state_files.ts";
import {
  type CertificatePem,
  generateCertificateAuthority,
  issueClientCertificate,
  issueServerCertificate,
} from "../../platform/certificates.ts";
import { reviewTypes } from "./access_reviews.ts";
import { Admission, type AdmissionCall } from "./admission.ts";
import { Authenticator } from "./authentication.ts";
import { builtinTypes } from "../../catalog/builtin_types.ts";
import { type ResourceType, type ServedVersion, typeKey } from "../../catalog/resource_types.ts";
import { Catalog } from "./catalog.ts";
import { ApiError } from "./errors.ts";
import { FakeClusterFaults } from "./faults.ts";
import { REQUEST_LOG_LIMIT, Router, type ServedRequest } from "./http.ts";
import { Lifecycle } from "./lifecycle.ts";
import { type DeleteOptions, Objects, type PatchType, type Target } from "./objects.ts";
import { readState, restoreState, saveState } from "./persistence.ts";
import { RbacAuthorizer, storePolicies } from "./rbac.ts";
import { defaultClusterRoleBindings, defaultClusterRoles } from "./rbac_defaults.ts";
import { parseFieldSelector, parseLabelSelector } from "./selectors.ts";
import { ServiceAccountTokens, TOKEN_SUBRESOURCE } from "./service_accounts.ts";
import { Store } from "./store.ts";
import { WatchHub } from "./watch.ts";

/** Options of {@link FakeCluster.start}. */
export interface FakeClusterOptions {
  /** The port on 127.0.0.1; `0` (the default) picks a free one. */
  port?: number;
  /**
   * Serve HTTPS with a certificate authority generated at start. Off by default: plain
   * HTTP keeps tests simple (any `fetch()` reaches the cluster), and the kubeconfig it
   * writes is accepted by every client all the same.
   */
  tls?: boolean;
  /**
   * The bearer token clients must send; `false` lets anyone in. By default a random
   * token with `tls`, none over plain HTTP (kubectl never sends tokens over plain HTTP).
   */
  token?: string | false;
  /**
   * Also accept client certificates issued by the cluster's CA (needs `tls`); the
   * kubeconfig and connection info then carry one (user `kopf-fake-admin`), and no token
   * is made up unless `token` is given.
   */
  clientCertificates?: boolean;
  /** A state file: objects are loaded from it at start and saved to it on stop. */
  state?: string;
  /** How many changes the history keeps for watches to resume from (10,000 by default). */
  historySize?: number;
  /** Seconds between BOOKMARK events on watches that allow them (10 by default). */
  bookmarkInterval?: number;
  /**
   * Whether watches may begin with the current objects, ended by a bookmark
   * (`sendInitialEvents=true`), as Kubernetes 1.32+ does by default (true by default).
   * `false` answers like an older server (or one with the WatchList feature off): such a
   * watch is refused with a 422 (`resourceVersionMatch` is forbidden for watches), so that
   * clients fall back to paginated lists.
   */
  streamingLists?: boolean;
  /**
   * Authorize every request with RBAC, as a real cluster does: Roles, ClusterRoles and
   * their bindings decide what each user may do, and the rest is a 403. The cluster's
   * own token (always made up with RBAC, unless `token` is given) and client certificate
   * stay admins (`system:masters`); {@link FakeCluster.tokenFor} and
   * {@link FakeCluster.serviceAccountToken} make tokens for others, and requests without
   * credentials are `system:anonymous`. Also serves the access reviews (`kubectl auth
   * can-i`), `TokenRequest`s, and the default discovery roles.
   */
  rbac?: boolean;
}

/** Who {@link FakeCluster.tokenFor} makes a token for. */
export interface FakeUser {
  /** The user name, e.g. `alice` or `system:serviceaccount:default:op`. */
  user: string;
  /** The groups (`system:authenticated` is added). */
  groups?: readonly string[];
}

/** Options of {@link FakeCluster.serviceAccountToken}. */
export interface FakeTokenOptions {
  /** How long the token is valid, in seconds (3600 by default, at least 600). */
  expirationSeconds?: number;
  /** Whom the token is for; the API server by default. */
  audiences?: readonly string[];
}

/**
 * Which resource the direct API addresses: a name as kubectl takes it (`pods`,
 * `configmap`, `cm`, `kopfexamples.kopf.dev`, `kopfexamples.v1.kopf.dev`), or an
 * `apiVersion` and `kind` as in manifests.
 */
export type FakeResource = string | { apiVersion: string; kind: string };

/** Where a direct call looks: the namespace (`default` for namespaced resources). */
export interface FakeObjectOptions {
  /** The namespace; `default` when omitted for namespaced resources. */
  namespace?: string;
}

/** Options of {@link FakeCluster.list}. */
export interface FakeListOptions extends FakeObjectOptions {
  /** A label selector, e.g. `app=web,tier!=db`. */
  labelSelector?: string;
  /** A field selector, e.g. `metadata.name=x`. */
  fieldSelector?: string;
  /** List across all namespaces (ignores `namespace`). */
  allNamespaces?: boolean;
}

/** Options of {@link FakeCluster.patch}. */
export interface FakePatchOptions extends FakeObjectOptions {
  /** The patch format; `merge` by default. */
  type?: "merge" | "json" | "strategic";
  /** Patch the `status` subresource instead of the object. */
  subresource?: "status";
}

/** Options of {@link FakeCluster.delete}. */
export interface FakeDeleteOptions extends FakeObjectOptions {
  /** How dependents are treated: `Background` (default), `Foreground` or `Orphan`. */
  propagationPolicy?: "Foreground" | "Background" | "Orphan";
}

/** Options of {@link FakeCluster.waitFor}. */
export interface FakeWaitOptions extends FakeObjectOptions {
  /** Give up after so many seconds (10 by default) with an error saying what was awaited. */
  timeout?: number;
}

/** A failed direct call: carries the Kubernetes `Status` code and reason. */
export class FakeApiError extends Error {
  /** The HTTP status code a client would have received, e.g. 404 or 409. */
  readonly code: number;
  /** The `Status` reason, e.g. `NotFound`, `AlreadyExists`, `Conflict`, `Invalid`. */
  readonly reason: string;

  /** Wrap a server-side error for callers of the direct API. */
  constructor(code: number, reason: string, message: string) {
    super(message);
    this.name = "FakeApiError";
    this.code = code;
    this.reason = reason;
  }
}

function direct<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof ApiError) throw new FakeApiError(error.code, error.reason, error.message);
    throw error;
  }
}

function copy<T>(value: T): T {
  return structuredClone(value);
}

const INITIAL_NAMESPACES = ["default", "kube-system", "kube-public"];

/**
 * An in-memory Kubernetes API server on 127.0.0.1, faithful enough for kubectl, client
 * libraries and operators. Start it with {@link FakeCluster.start}; stop it with
 * {@link FakeCluster.stop} or `await using`.
 *
 * @example Serve an embedded operator and check what its handler wrote
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { FakeCluster } from "@kopf/kopf/testing";
 *
 * await using cluster = await FakeCluster.start();
 * const registry = new kopf.OperatorRegistry();
 * kopf.on.login({ registry }, () => cluster.connectionInfo);
 * kopf.on.create("configmaps", { registry }, ({ patch }) => {
 *   patch.metadata.labels.seen = "yes";
 * });
 * const stop = new AbortController();
 * const running = kopf.operator({ registry, clusterwide: true, signal: stop.signal });
 * cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" }, data: {} });
 * await cluster.waitFor("configmaps", "x", (cm) => cm?.metadata?.labels?.seen === "yes");
 * stop.abort();
 * await running;
 * ```
 *
 * @example Drive it with kubectl through the kubeconfig it writes
 * ```ts
 * import { FakeCluster } from "@kopf/kopf/testing";
 *
 * await using cluster = await FakeCluster.start();
 * const kubeconfig = await cluster.writeKubeconfig();
 * console.log(`kubectl --kubeconfig=${kubeconfig} get configmaps -A`);
 * ```
 */
export class FakeCluster implements AsyncDisposable {
  /** The base URL, e.g. `http://127.0.0.1:43567`. */
  readonly url: string;
  /** Fault injection: dropped watches, failing requests, latency, token expiry, compaction. */
  readonly faults: FakeClusterFaults;
  /** The PEM certificate of the generated CA (with `tls: true`). */
  readonly caCertificate: string | undefined;
  /** The client certificate and key (PEM) the kubeconfig uses, with `clientCertificates`. */
  readonly clientCertificate: CertificatePem | undefined;

  readonly #server: HttpServer;
  readonly #objects: Objects;
  readonly #lifecycle: Lifecycle;
  readonly #watches: WatchHub;
  readonly #state: string | undefined;
  readonly #log: ServedRequest[];
  readonly #requestWaiters: Set<(entry: ServedRequest) => void>;
  readonly #auth: { token: string | undefined };
  readonly #authenticator: Authenticator;
  readonly #rbac: boolean;
  readonly #admission: Admission;
  #stopping: Promise<void> | undefined;
  readonly #tempDirs: string[] = [];

  private constructor(parts: {
    server: HttpServer;
    objects: Objects;
    lifecycle: Lifecycle;
    watches: WatchHub;
    faults: FakeClusterFaults;
    auth: { token: string | undefined };
    authenticator: Authenticator;
    rbac: boolean;
    admission: Admission;
    state: string | undefined;
    ca: string | undefined;
    client: CertificatePem | undefined;
    log: ServedRequest[];
    requestWaiters: Set<(entry: ServedRequest) => void>;
  }) {
    this.#server = parts.server;
    this.url = parts.server.url;
    this.#objects = parts.objects;
    this.#lifecycle = parts.lifecycle;
    this.#watches = parts.watches;
    this.faults = parts.faults;
    this.#auth = parts.auth;
    this.#authenticator = parts.authenticator;
    this.#rbac = parts.rbac;
    this.#admission = parts.admission;
    this.#state = parts.state;
    this.caCertificate = parts.ca;
    this.clientCertificate = parts.client;
    this.#log = parts.log;
    this.#requestWaiters = parts.requestWaiters;
  }

  /** Start a fake cluster; resolves when it accepts connections. */
  static async start(options: FakeClusterOptions = {}): Promise<FakeCluster> {
    const rbac = options.rbac ?? false;
    const catalog = new Catalog();
    for (const type of builtinTypes()) {
      if (rbac && type.group === "" && type.plural === "serviceaccounts") {
        type.extraSubresources = [TOKEN_SUBRESOURCE];
      }
      catalog.put(type);
    }
    if (rbac) { for (const type of reviewTypes()) catalog.put(type); }
    const saved = options.state ? await readState(options.state) : undefined;
    const store = new Store({
      historySize: options.historySize ?? 10_000,
      resourceVersion: saved?.resourceVersion,
    });
    const objects = new Objects(catalog, store);
    if (saved && options.state) restoreState(objects, saved, options.state);
    const watches = new WatchHub(
      store,
      options.bookmarkInterval ?? 10,
      options.streamingLists ?? true,
    );
    const nsType = catalog.get("", "namespaces")!;
    for (const name of INITIAL_NAMESPACES) {
      if (!store.get(typeKey("", "namespaces"), "", name)) {
        objects.create({ type: nsType, version: nsType.versions[0] }, { metadata: { name } });
      }
    }
    if (rbac) {
      // The default roles, made again where missing, as kube-apiserver keeps them.
      for (const role of [...defaultClusterRoles(), ...defaultClusterRoleBindings()]) {
        const type = catalog.byKind(String(role.apiVersion), String(role.kind))!;
        const name = String((role.metadata as JsonObject).name);
        if (!store.get(typeKey(type.group, type.plural), "", name)) {
          objects.create({ type, version: type.versions[0] }, role);
        }
      }
    }
    if (rbac && options.token === false && !options.clientCertificates) {
      throw new ConfigurationError(
        "FakeCluster: rbac needs the admin to be told from others: keep a token (drop token: false) or use clientCertificates.",
      );
    }
    let token = options.token === false ? undefined : options.token ??
      ((options.tls && !options.clientCertificates) || rbac
        ? crypto.randomUUID().replaceAll("-", "")
        : undefined);
    if (options.clientCertificates && !options.tls) {
      throw new ConfigurationError(
        "FakeCluster: clientCertificates needs tls: true (certificates travel over TLS).",
      );
    }
    if (token === "") token = undefined;
    let tls: HttpServerTls | undefined;
    let ca: string | undefined;
    let client: CertificatePem | undefined;
    if (options.tls) {
      const authority = await generateCertificateAuthority({ commonName: "kopf-fake-cluster-ca" });
      const cert = await issueServerCertificate(authority, {
        hostnames: ["127.0.0.1", "localhost"],
      });
      ca = authority.certPem;
      tls = {
        certificate: cert.certPem,
        privateKey: cert.keyPem,
        ...(options.clientCertificates ? { clientCa: ca } : {}),
      };
      if (options.clientCertificates) {
        client = await issueClientCertificate(authority, {
          commonName: "kopf-fake-admin",
          organizations: ["system:masters"],
        });
      }
    }
    const log: ServedRequest[] = [];
    const requestWaiters = new Set<(entry: ServedRequest) => void>();
    // Shared with the router and the faults: expiry replaces the token for all of them.
    const auth = { token };
    const faults = new FakeClusterFaults({
      dropWatches: () => void watches.dropAll(),
      expireToken: () => {
        if (auth.token !== undefined) auth.token = crypto.randomUUID().replaceAll("-", "");
        return auth.token;
      },
      compact: () => store.history.compact(store.resourceVersion),
    });
    let address = "";
    const admission = new Admission(store);
    const authenticator = new Authenticator(store, {
      adminToken: () => auth.token,
      clientCertificates: options.clientCertificates ?? false,
      anonymous: rbac,
    });
    const lifecycle = new Lifecycle(
      objects,
      rbac ? [new ServiceAccountTokens(objects, authenticator, ca)] : [],
    );
    const router = new Router({
      catalog,
      objects,
      lifecycle,
      watches,
      faults,
      authenticator,
      authorizer: rbac ? new RbacAuthorizer(storePolicies(store)) : undefined,
      admission,
      serverAddress: () => address,
      log: (entry) => {
        log.push(entry);
        if (log.length > 2 * REQUEST_LOG_LIMIT) log.splice(0, log.length - REQUEST_LOG_LIMIT);
        for (const waiter of requestWaiters) waiter(entry);
      },
    });
    const server = await startHttpServer({
      hostname: "127.0.0.1",
      port: options.port ?? 0,
      tls,
      handler: (request, info) => router.handle(request, info),
    });
    address = `127.0.0.1:${server.port}`;
    return new FakeCluster({
      server,
      objects,
      lifecycle,
      watches,
      faults,
      auth,
      authenticator,
      rbac,
      admission,
      state: options.state,
      ca,
      client,
      log,
      requestWaiters,
    });
  }

  /** The bearer token clients must send now (changes with `faults.expireToken()`). */
  get token(): string | undefined {
    return this.#auth.token;
  }

  /** The port listened on. */
  get port(): number {
    return this.#server.port;
  }

  /** The requests served so far (the last 10,000 at most), oldest first. */
  get requests(): readonly ServedRequest[] {
    return this.#log.slice(-REQUEST_LOG_LIMIT);
  }

  /**
   * The admission webhook calls made so far (the last 10,000 at most), oldest first: which
   * webhook was asked about what, and how it ended (`allowed`, `patched`, `denied`,
   * `failed`, `ignored` by `failurePolicy`, or `refused` for a dry run).
   */
  get admissionCalls(): readonly AdmissionCall[] {
    return this.#admission.calls;
  }

  /**
   * Wait until a request matching the predicate has been served (including ones served
   * already), e.g. until an operator has opened its watch:
   * `await cluster.waitForRequest((r) => r.verb === "watch" && r.path.endsWith("/kopfexamples"))`.
   */
  waitForRequest(
    predicate: (request: ServedRequest) => boolean,
    options: { timeout?: number } = {},
  ): Promise<ServedRequest> {
    const found = this.#log.find(predicate);
    if (found) return Promise.resolve(found);
    const seconds = options.timeout ?? 10;
    return new Promise((resolve, reject) => {
      const waiter = (entry: ServedRequest) => {
        if (!predicate(entry)) return;
        this.#requestWaiters.delete(waiter);
        clearTimeout(timer);
        resolve(entry);
      };
      const timer = setTimeout(() => {
        this.#requestWaiters.delete(waiter);
        reject(new Error(`Timed out after ${seconds}s waiting for a matching request.`));
      }, seconds * 1000);
      this.#requestWaiters.add(waiter);
    });
  }

  /** How many watch streams are open now. */
  get openWatches(): number {
    return this.#watches.size;
  }

  /** The latest resourceVersion of the cluster. */
  get resourceVersion(): string {
    return String(this.#objects.store.resourceVersion);
  }

  /** Connection credentials for `kopf.operator()` and our client: the admin's. */
  get connectionInfo(): ConnectionInfo {
    return {
      server: this.url,
      ...(this.caCertificate ? { caData: this.caCertificate } : {}),
      ...(this.#auth.token !== undefined ? { token: this.#auth.token, scheme: "Bearer" } : {}),
      ...(this.clientCertificate
        ? {
          certificateData: this.clientCertificate.certPem,
          privateKeyData: this.clientCertificate.keyPem,
        }
        : {}),
      defaultNamespace: "default",
      source: "the fake cluster's own credentials",
    };
  }

  /**
   * Connection credentials that log in with this token (and nothing else), e.g. one of
   * {@link FakeCluster.serviceAccountToken}, for an operator that runs as that user:
   * `kopf.on.login({ registry }, () => cluster.connectionInfoFor(token))`.
   */
  connectionInfoFor(token: string): ConnectionInfo {
    return {
      server: this.url,
      ...(this.caCertificate ? { caData: this.caCertificate } : {}),
      token,
      scheme: "Bearer",
      defaultNamespace: "default",
      source: "a token of the fake cluster",
    };
  }

  /**
   * A kubeconfig (YAML) for kubectl and client libraries, with the current credentials,
   * that kubectl, `@kubernetes/client-node` and Python's `kubernetes` client take as it
   * is: over HTTPS it carries the generated CA; over plain HTTP it says
   * `insecure-skip-tls-verify: true`, without which `@kubernetes/client-node` refuses
   * plain-HTTP servers (there is no TLS to verify either way).
   */
  get kubeconfig(): string {
    const user: Record<string, string> = {};
    if (this.#auth.token !== undefined) user.token = this.#auth.token;
    if (this.clientCertificate) {
      user["client-certificate-data"] = btoa(this.clientCertificate.certPem);
      user["client-key-data"] = btoa(this.clientCertificate.keyPem);
    }
    return this.#kubeconfigWith(user);
  }

  /**
   * A kubeconfig that logs in with this token only, e.g. a service account's (kubectl
   * sends tokens over HTTPS only: start the cluster with `tls: true` for kubectl).
   */
  kubeconfigFor(token: string): string {
    return this.#kubeconfigWith({ token });
  }

  #kubeconfigWith(user: Record<string, string>): string {
    const cluster: Record<string, string | boolean> = { server: this.url };
    if (this.caCertificate) {
      cluster["certificate-authority-data"] = btoa(this.caCertificate);
    } else {
      cluster["insecure-skip-tls-verify"] = true;
    }
    return toYaml({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "fake-cluster", cluster }],
      users: [{ name: "fake-user", user }],
      contexts: [{
        name: "fake-cluster",
        context: { cluster: "fake-cluster", user: "fake-user", namespace: "default" },
      }],
      "current-context": "fake-cluster",
      preferences: {},
    });
  }

  /**
   * Write the kubeconfig to a file; returns its path. Without a path, it goes to a new
   * temporary directory, which is removed when the cluster stops. With `token`, it is
   * the kubeconfig of that token ({@link FakeCluster.kubeconfigFor}).
   */
  async writeKubeconfig(path?: string, options: { token?: string } = {}): Promise<string> {
    let file = path;
    if (file === undefined) {
      const dir = await makeTempDir("kopf-fake-cluster-");
      this.#tempDirs.push(dir);
      file = joinPath(dir, "kubeconfig");
    }
    const text = options.token === undefined ? this.kubeconfig : this.kubeconfigFor(options.token);
    await writeTextFileAtomic(file, text);
    return file;
  }

  /** Whether requests are authorized with RBAC ({@link FakeClusterOptions.rbac}). */
  get rbac(): boolean {
    return this.#rbac;
  }

  /**
   * A bearer token that authenticates as this user with these groups (and
   * `system:authenticated`), for tests that act as someone other than the admin. It is
   * valid until the cluster stops. What the user may do is up to RBAC (`rbac: true`);
   * without RBAC, every user may do anything.
   */
  tokenFor(user: FakeUser): string {
    if (!user.user) throw new UsageError("tokenFor() needs a user name.");
    return this.#authenticator.issueUserToken({
      username: user.user,
      groups: [...(user.groups ?? [])],
    });
  }

  /**
   * A token of the service account, as a `TokenRequest` (`kubectl create token`) makes
   * it: it authenticates as `system:serviceaccount:<namespace>:<name>` in the groups
   * `system:serviceaccounts`, `system:serviceaccounts:<namespace>` and
   * `system:authenticated`, until it expires or the account is deleted. The account
   * must exist. Throws {@link FakeApiError} like the API would.
   */
  serviceAccountToken(namespace: string, name: string, options: FakeTokenOptions = {}): string {
    const type = this.#objects.catalog.get("", "serviceaccounts")!;
    const account = this.#objects.store.get(typeKey("", "serviceaccounts"), namespace, name);
    if (!account) {
      throw new FakeApiError(
        404,
        "NotFound",
        `serviceaccounts "${name}" not found in the namespace "${namespace}": create it first, e.g. cluster.create({ apiVersion: "v1", kind: "${type.kind}", metadata: { name: "${name}", namespace: "${namespace}" } })`,
      );
    }
    const seconds = options.expirationSeconds ?? 3600;
    if (!Number.isInteger(seconds) || seconds < 600) {
      throw new FakeApiError(
        422,
        "Invalid",
        `expirationSeconds must be a whole number of seconds, at least 600, not ${seconds}`,
      );
    }
    return this.#authenticator.issueServiceAccountToken(account, {
      expirationSeconds: seconds,
      audiences: options.audiences,
    }).token;
  }

  /** Save the objects to the state file now (also done on stop when `state` is set). */
  async save(path?: string): Promise<void> {
    const file = path ?? this.#state;
    if (!file) {
      throw new UsageError("save() needs a path: this cluster was started without `state`.");
    }
    await saveState(this.#objects, file);
  }

  /** Stop serving: end open watches, close connections, save the state file if any. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.faults.clear();
      this.#watches.closeAll();
      await this.#server.close();
      if (this.#state) await saveState(this.#objects, this.#state);
      for (const dir of this.#tempDirs.splice(0)) await removeDirectory(dir);
    })();
    return this.#stopping;
  }

  /** Stops the cluster at the end of an `await using` block. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  // --- the direct API: fixtures and assertions without a client ---

  #resolve(resource: FakeResource): { type: ResourceType; version: ServedVersion } {
    const catalog = this.#objects.catalog;
    if (typeof resource !== "string") {
      const type = catalog.byKind(resource.apiVersion, resource.kind);
      const name = resource.apiVersion.split("/").pop()!;
      const version = type?.versions.find((v) => v.name === name);
      if (!type || !version) {
        throw new FakeApiError(
          404,
          "NotFound",
          `the cluster does not serve ${resource.kind} in ${resource.apiVersion}`,
        );
      }
      return { type, version };
    }
    const [name, ...rest] = resource.split(".");
    const lower = name.toLowerCase();
    const candidates = catalog.all().filter((t) =>
      t.plural === lower || t.singular === lower || t.kind.toLowerCase() === lower ||
      t.shortNames.includes(lower)
    );
    for (const take of [rest.length, rest.length - 1]) {
      if (take < 0) continue;
      const group = rest.slice(rest.length - take).join(".");
      const versionName = rest.length - take === 1 ? rest[0] : undefined;
      const found = candidates.filter((t) => (take === 0 ? true : t.group === group));
      const chosen = found.find((t) => t.group === "") ??
        (found.length === 1 ? found[0] : undefined);
      if (!chosen || (take === 0 && rest.length)) continue;
      const version = versionName
        ? chosen.versions.find((v) => v.name === versionName)
        : chosen.versions[0];
      if (version) return { type: chosen, version };
    }
    throw new FakeApiError(
      404,
      "NotFound",
      `the cluster serves no resource named "${resource}" (use e.g. "pods", "deployments.apps" or "kopfexamples.kopf.dev")`,
    );
  }

  #target(resource: FakeResource, options: FakeObjectOptions, name?: string): Target {
    const { type, version } = this.#resolve(resource);
    const namespace = type.namespaced ? options.namespace ?? "default" : undefined;
    return { type, version, namespace, name };
  }

  #settled<T>(fn: () => T): T {
    const result = direct(fn);
    this.#lifecycle.settle();
    return copy(result);
  }

  /**
   * Create an object from a manifest (its `apiVersion`, `kind`, and namespace or
   * `default`); returns it as stored. Throws {@link FakeApiError} like the API would.
   */
  create(body: RawBody, options: { dryRun?: boolean } = {}): RawBody {
    const resource = { apiVersion: String(body.apiVersion ?? ""), kind: String(body.kind ?? "") };
    if (!resource.apiVersion || !resource.kind) {
      throw new FakeApiError(
        400,
        "BadRequest",
        "create() needs a manifest with apiVersion and kind",
      );
    }
    const target = this.#target(resource, { namespace: body.metadata?.namespace });
    return this.#settled(() =>
      this.#objects.create(target, body as JsonObject, options)
    ) as RawBody;
  }

  /** The object, or `undefined` when it does not exist. */
  get(resource: FakeResource, name: string, options: FakeObjectOptions = {}): RawBody | undefined {
    const target = this.#target(resource, options, name);
    try {
      return copy(this.#objects.get(target)) as RawBody;
    } catch (error) {
      if (error instanceof ApiError && error.code === 404) return undefined;
      throw error;
    }
  }

  /** The objects of a resource (in a namespace, or all), filtered by selectors. */
  list(resource: FakeResource, options: FakeListOptions = {}): RawBody[] {
    const target = this.#target(resource, options);
    if (options.allNamespaces || !target.type.namespaced) target.namespace = undefined;
    return direct(() => {
      const { type, version } = target;
      const result = this.#objects.list(target, {
        labelSelector: parseLabelSelector(options.labelSelector),
        fieldSelector: parseFieldSelector(
          options.fieldSelector,
          version.selectableFields,
          type.kind,
        ),
      });
      return copy(result.items) as RawBody[];
    });
  }

  /** Patch an object (merge patch by default) or its status; returns the result. */
  patch(
    resource: FakeResource,
    name: string,
    patch: JsonValue,
    options: FakePatchOptions = {},
  ): RawBody {
    const target = this.#target(resource, options, name);
    target.subresource = options.subresource;
    const type: PatchType = options.type ?? "merge";
    return this.#settled(() => this.#objects.patch(target, type, patch)) as RawBody;
  }

  /** Replace an object (or its status) with this body, as PUT does; returns the result. */
  replace(body: RawBody, options: { subresource?: "status" } = {}): RawBody {
    const resource = { apiVersion: String(body.apiVersion ?? ""), kind: String(body.kind ?? "") };
    const target = this.#target(
      resource,
      { namespace: body.metadata?.namespace },
      String(body.metadata?.name ?? ""),
    );
    target.subresource = options.subresource;
    return this.#settled(() => this.#objects.update(target, body as JsonObject)) as RawBody;
  }

  /**
   * Delete an object. Returns its state while finalizers hold it (with
   * `deletionTimestamp`), or `undefined` once it is gone.
   */
  delete(
    resource: FakeResource,
    name: string,
    options: FakeDeleteOptions = {},
  ): RawBody | undefined {
    const target = this.#target(resource, options, name);
    const deleteOptions: DeleteOptions = { propagationPolicy: options.propagationPolicy };
    const { gone } = this.#settled(() => this.#objects.delete(target, deleteOptions));
    return gone ? undefined : this.get(resource, name, options);
  }

  /**
   * Wait until the object satisfies the predicate (called with `undefined` while it
   * does not exist); resolves with what the predicate accepted. Checks at once and on
   * every change — no polling.
   */
  waitFor(
    resource: FakeResource,
    name: string,
    predicate: (object: RawBody | undefined) => boolean,
    options: FakeWaitOptions = {},
  ): Promise<RawBody | undefined> {
    const target = this.#target(resource, options, name);
    const key = typeKey(target.type.group, target.type.plural);
    const store = this.#objects.store;
    const current = () => {
      const object = store.get(key, target.namespace ?? "", name);
      return object ? copy(object) as RawBody : undefined;
    };
    const first = current();
    if (predicate(first)) return Promise.resolve(first);
    const seconds = options.timeout ?? 10;
    return new Promise((resolve, reject) => {
      const unsubscribe = store.listen((change) => {
        if (change.typeKey !== key || change.namespace !== (target.namespace ?? "")) return;
        if ((change.object.metadata as JsonObject).name !== name) return;
        const now = current();
        let ok: boolean;
        try {
          ok = predicate(now);
        } catch (error) {
          finish();
          reject(error);
          return;
        }
        if (ok) {
          finish();
          resolve(now);
        }
      });
      const timer = setTimeout(() => {
        finish();
        const where = target.namespace ? ` in namespace ${target.namespace}` : "";
        reject(
          new Error(
            `Timed out after ${seconds}s waiting for ${target.type.plural} "${name}"${where} to satisfy the condition.`,
          ),
        );
      }, seconds * 1000);
      const finish = () => {
        unsubscribe();
        clearTimeout(timer);
      };
    });
  }
}
