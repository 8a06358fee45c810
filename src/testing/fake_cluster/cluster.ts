/**
 * `FakeCluster`: an in-memory Kubernetes API server over real HTTP(S) on 127.0.0.1, for
 * tests, demos and local development -- with kubectl, `@kubernetes/client-node` or an
 * operator as its clients, fault injection, a request log, and a direct API for
 * fixtures and assertions that needs no client.
 *
 * @module
 */
import type { ConnectionInfo } from "../../structs/credentials.ts";
import type { JsonValue, RawBody } from "../../structs/bodies.ts";
import type { BuiltinObjects } from "../../structs/builtin_objects.ts";
import { UsageError } from "../../structs/errors.ts";
import type { CertificatePem } from "../../platform/certificates.ts";
import {
  joinPath,
  makeTempDir,
  removeDirectory,
  writeTextFileAtomic,
} from "../../platform/state_files.ts";
import { typeKey } from "../../catalog/resource_types.ts";
import type { AdmissionCall } from "./admission.ts";
import { assembleCluster, type ClusterParts } from "./assembly.ts";
import type { FakeClusterOptions, FakeTokenOptions, FakeUser } from "./cluster_options.ts";
import {
  DirectApi,
  FakeApiError,
  type FakeApplyOptions,
  type FakeCreateOptions,
  type FakeDeleteOptions,
  type FakeListOptions,
  type FakeObject,
  type FakeObjectOptions,
  type FakePatchOptions,
  type FakeReplaceOptions,
  type FakeResource,
  type FakeWaitOptions,
} from "./direct_api.ts";
import type { FakeClusterFaults } from "./faults.ts";
import { type ClusterEndpoint, connectionInfoOf, kubeconfigOf } from "./kubeconfigs.ts";
import { type SavedCredentials, saveState } from "./persistence.ts";
import type { ServedRequest } from "./request_log.ts";
import type { FakeClusterTraffic } from "./traffic.ts";
import { witnessReports } from "../failure_reports.ts";

/** Made by the class's static block: a cluster served in this process, and its router. */
let makeInProcess:
  | ((options: FakeClusterOptions, url: string) => Promise<InProcessCluster>)
  | undefined;

/** A fake cluster that listens nowhere, and the function that answers its requests. */
export interface InProcessCluster {
  readonly cluster: FakeCluster;
  readonly handle: (request: Request) => Promise<Response>;
  /** Every object stored now, of every resource, with its type key (`group/plural`). */
  readonly objects: () => { readonly typeKey: string; readonly object: RawBody }[];
}

/**
 * A fake cluster whose requests come from this process only (the simulation's link): no
 * port, no socket; `url` is what its connection info names.
 */
export function inProcessCluster(
  options: FakeClusterOptions,
  url: string,
): Promise<InProcessCluster> {
  return makeInProcess!(options, url);
}

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

  readonly #parts: ClusterParts;
  readonly #direct: DirectApi;
  readonly #state: string | undefined;
  readonly #rbac: boolean;
  #stopping: Promise<void> | undefined;
  readonly #tempDirs: string[] = [];

  private constructor(parts: ClusterParts, options: FakeClusterOptions) {
    this.#parts = parts;
    this.#direct = new DirectApi(parts.objects, parts.lifecycle);
    this.#state = options.state;
    this.#rbac = options.rbac ?? false;
    this.url = parts.server.url;
    this.faults = parts.faults;
    this.caCertificate = parts.credentials.ca?.certPem;
    this.clientCertificate = parts.credentials.client;
  }

  static {
    makeInProcess = async (options, url) => {
      const parts = await assembleCluster(options, url);
      const cluster = new FakeCluster(parts, options);
      const store = parts.objects.store;
      return {
        cluster,
        handle: (request) => parts.router.handle(request),
        objects: () =>
          store.typeKeys().flatMap((typeKey) =>
            store.list(typeKey).map((object) => ({ typeKey, object: object as RawBody }))
          ),
      };
    };
  }

  /** Start a fake cluster; resolves when it accepts connections. */
  static async start(options: FakeClusterOptions = {}): Promise<FakeCluster> {
    return new FakeCluster(await assembleCluster(options), options);
  }

  /** The bearer token clients must send now (changes with `faults.expireToken()`). */
  get token(): string | undefined {
    return this.#parts.auth.token;
  }

  /** The port listened on. */
  get port(): number {
    return this.#parts.server.port;
  }

  /** The requests served so far (the last 10,000 at most), oldest first. */
  get requests(): readonly ServedRequest[] {
    return this.#parts.log.entries;
  }

  /**
   * The admission webhook calls made so far (the last 10,000 at most), oldest first: which
   * webhook was asked about what, and how it ended (`allowed`, `patched`, `denied`,
   * `failed`, `ignored` by `failurePolicy`, or `refused` for a dry run).
   */
  get admissionCalls(): readonly AdmissionCall[] {
    return this.#parts.admission.calls;
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
    return this.#parts.log.waitFor(predicate, options.timeout ?? 10);
  }

  /**
   * What the server has sent since it started, per resource and in total: the objects of
   * list responses, watch events (initial ones included) and GET responses, and the bytes
   * of their bodies; bookmarks and watch `ERROR` events apart. Also, with `maxInflight`,
   * what flow control did: requests dispatched, queued, and rejected with 429. A frozen
   * snapshot: read it again for newer counts.
   */
  get traffic(): FakeClusterTraffic {
    return this.#parts.traffic.snapshot();
  }

  /** How many watch streams are open now. */
  get openWatches(): number {
    return this.#parts.watches.size;
  }

  /** The latest resourceVersion of the cluster. */
  get resourceVersion(): string {
    return String(this.#parts.objects.store.resourceVersion);
  }

  get #endpoint(): ClusterEndpoint {
    return { url: this.url, caCertificate: this.caCertificate };
  }

  /** Connection credentials for `kopf.operator()` and our client: the admin's. */
  get connectionInfo(): ConnectionInfo {
    const login = { token: this.token, clientCertificate: this.clientCertificate };
    return connectionInfoOf(this.#endpoint, login, "the fake cluster's own credentials");
  }

  /**
   * Connection credentials that log in with this token (and nothing else), e.g. one of
   * {@link FakeCluster.serviceAccountToken}, for an operator that runs as that user:
   * `kopf.on.login({ registry }, () => cluster.connectionInfoFor(token))`.
   */
  connectionInfoFor(token: string): ConnectionInfo {
    return connectionInfoOf(this.#endpoint, { token }, "a token of the fake cluster");
  }

  /**
   * A kubeconfig (YAML) for kubectl and client libraries, with the current credentials,
   * that kubectl, `@kubernetes/client-node` and Python's `kubernetes` client take as it
   * is: over HTTPS it carries the generated CA; over plain HTTP it says
   * `insecure-skip-tls-verify: true`, without which `@kubernetes/client-node` refuses
   * plain-HTTP servers (there is no TLS to verify either way).
   */
  get kubeconfig(): string {
    const login = { token: this.token, clientCertificate: this.clientCertificate };
    return kubeconfigOf(this.#endpoint, login);
  }

  /**
   * A kubeconfig that logs in with this token only, e.g. a service account's (kubectl
   * sends tokens over HTTPS only: start the cluster with `tls: true` for kubectl).
   */
  kubeconfigFor(token: string): string {
    return kubeconfigOf(this.#endpoint, { token });
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
   * valid until the cluster stops -- or, with a state file, for as long as the state is
   * kept. What the user may do is up to RBAC (`rbac: true`); without RBAC, every user may
   * do anything.
   */
  tokenFor(user: FakeUser): string {
    if (!user.user) throw new UsageError("tokenFor() needs a user name.");
    return this.#parts.authenticator.issueUserToken({
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
    const { objects, authenticator } = this.#parts;
    const account = objects.store.get(typeKey("", "serviceaccounts"), namespace, name);
    if (!account) {
      throw new FakeApiError(
        404,
        "NotFound",
        `serviceaccounts "${name}" not found in the namespace "${namespace}": create it first, e.g. cluster.create({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "${name}", namespace: "${namespace}" } })`,
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
    return authenticator.issueServiceAccountToken(account, {
      expirationSeconds: seconds,
      audiences: options.audiences,
    }).token;
  }

  /** The identity to keep in the state file: this run's, and the file's where it has none. */
  #credentialsToSave(): SavedCredentials {
    const { credentials, saved, authenticator, server } = this.#parts;
    const kept: SavedCredentials = { ...saved };
    if (credentials.ca) {
      kept.ca = credentials.ca;
      kept.serving = credentials.serving;
    }
    if (credentials.client) kept.clientCertificate = credentials.client;
    if (this.token !== undefined) kept.token = this.token;
    kept.port = server.port;
    kept.tokens = authenticator.issuedTokens();
    return kept;
  }

  /**
   * Save the cluster to the state file now (also done on stop when `state` is set): its
   * objects and its identity ({@link FakeClusterOptions.state}), readable by the owner only.
   */
  async save(path?: string): Promise<void> {
    const file = path ?? this.#state;
    if (!file) {
      throw new UsageError("save() needs a path: this cluster was started without `state`.");
    }
    await saveState(this.#parts.objects, file, this.#credentialsToSave());
  }

  /** Stop serving: end open watches, close connections, save the state file if any. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      const { watches, server, eventExpiry, flowControl } = this.#parts;
      eventExpiry.stop();
      this.faults.clear();
      flowControl?.close();
      watches.closeAll();
      await server.close();
      if (this.#state) await this.save(this.#state);
      for (const dir of this.#tempDirs.splice(0)) await removeDirectory(dir);
    })();
    return this.#stopping;
  }

  /** Stops the cluster at the end of an `await using` block. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  // --- the direct API: fixtures and assertions without a client ---

  /**
   * Create an object from a manifest (its `apiVersion`, `kind`, and namespace or
   * `default`); returns it as stored. Throws {@link FakeApiError} like the API would.
   */
  create(body: RawBody, options: FakeCreateOptions = {}): RawBody {
    return this.#direct.create(body, options);
  }

  /**
   * The object of a built-in resource named by its plural, typed as that built-in
   * (`get("configmaps", "x")?.data?.message` is a string), or `undefined`.
   */
  get<N extends keyof BuiltinObjects>(
    resource: N,
    name: string,
    options?: FakeObjectOptions,
  ): BuiltinObjects[N] | undefined;
  /**
   * The object, or `undefined` when it does not exist. A typed resource types it
   * (`get(kopf.resource<KopfExampleV1>(...), "x")`), as does a type argument
   * (`get<V1ConfigMap>("configmaps", "x")`), or a built-in's plural name (`"configmaps"`,
   * `"secrets"`, `"events"`); else it is a {@link RawBody}.
   */
  get<T = RawBody>(
    resource: FakeResource<T>,
    name: string,
    options?: FakeObjectOptions,
  ): FakeObject<T> | undefined;
  get<T = RawBody>(
    resource: FakeResource<T>,
    name: string,
    options: FakeObjectOptions = {},
  ): FakeObject<T> | undefined {
    return this.#direct.get(resource, name, options) as FakeObject<T> | undefined;
  }

  /** The objects of a built-in resource named by its plural, typed as that built-in. */
  list<N extends keyof BuiltinObjects>(resource: N, options?: FakeListOptions): BuiltinObjects[N][];
  /**
   * The objects of a resource (in a namespace, or all), filtered by selectors; typed as
   * {@link FakeCluster.get} types them.
   */
  list<T = RawBody>(resource: FakeResource<T>, options?: FakeListOptions): FakeObject<T>[];
  list<T = RawBody>(resource: FakeResource<T>, options: FakeListOptions = {}): FakeObject<T>[] {
    return this.#direct.list(resource, options) as FakeObject<T>[];
  }

  /** Patch an object (merge patch by default) or its status; returns the result. */
  patch(
    resource: FakeResource,
    name: string,
    patch: JsonValue,
    options: FakePatchOptions = {},
  ): RawBody {
    return this.#direct.patch(resource, name, patch, options);
  }

  /** Replace an object (or its status) with this body, as PUT does; returns the result. */
  replace(body: RawBody, options: FakeReplaceOptions = {}): RawBody {
    return this.#direct.replace(body, options);
  }

  /**
   * Server-side apply of a manifest (its `apiVersion`, `kind`, name, and namespace or
   * `default`), as `kubectl apply --server-side` does: creates the object when it does
   * not exist, owns the applied fields for `fieldManager`, removes those it applied before
   * and omits now, and throws {@link FakeApiError} 409 `Conflict` for fields another
   * manager owns with another value, unless `force`. Returns the object as stored.
   */
  apply(body: RawBody, options: FakeApplyOptions): RawBody {
    return this.#direct.apply(body, options);
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
    return this.#direct.delete(resource, name, options);
  }

  /**
   * {@link FakeCluster.waitFor} on a built-in resource named by its plural: the object is
   * typed as that built-in.
   */
  waitFor<N extends keyof BuiltinObjects>(
    resource: N,
    name: string,
    predicate: (object: BuiltinObjects[N] | undefined) => boolean,
    options?: FakeWaitOptions,
  ): Promise<BuiltinObjects[N] | undefined>;
  /**
   * Wait until the object satisfies the predicate (called with `undefined` while it
   * does not exist); resolves with what the predicate accepted. Checks at once and on
   * every change -- no polling. The object is typed as {@link FakeCluster.get} types it. On
   * a timeout, the error says what the object is like now (its version, finalizers, labels,
   * annotations and status, long values cut) and what the `KopfRunner`s started with this
   * cluster last printed.
   */
  waitFor<T = RawBody>(
    resource: FakeResource<T>,
    name: string,
    predicate: (object: FakeObject<T> | undefined) => boolean,
    options?: FakeWaitOptions,
  ): Promise<FakeObject<T> | undefined>;
  waitFor<T = RawBody>(
    resource: FakeResource<T>,
    name: string,
    predicate: (object: FakeObject<T> | undefined) => boolean,
    options: FakeWaitOptions = {},
  ): Promise<FakeObject<T> | undefined> {
    const check = predicate as (object: RawBody | undefined) => boolean;
    return this.#direct.waitFor(
      resource,
      name,
      check,
      options,
      () => witnessReports(this.url),
    ) as Promise<FakeObject<T> | undefined>;
  }
}
