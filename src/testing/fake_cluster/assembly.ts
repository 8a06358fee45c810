/**
 * Putting a fake cluster together: its types and objects (from the state file, if any,
 * with the namespaces and default roles a cluster always has), its credentials, the
 * controllers, the router, and the server listening on 127.0.0.1.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { ConfigurationError } from "../../structs/errors.ts";
import { type HttpServer, startHttpServer } from "../../platform/http_server.ts";
import { builtinTypes } from "../../catalog/builtin_types.ts";
import { typeKey } from "../../catalog/resource_types.ts";
import { reviewTypes } from "./access_reviews.ts";
import { Admission } from "./admission.ts";
import { apiServiceMeta, localApiServices } from "./api_services.ts";
import { Authenticator } from "./authentication.ts";
import { Catalog } from "./catalog.ts";
import { EventExpiry, eventTtlOf } from "./event_expiry.ts";
import type { FakeClusterOptions } from "./cluster_options.ts";
import { type ClusterCredentials, makeCredentials, randomToken } from "./credentials.ts";
import { FakeClusterFaults } from "./faults.ts";
import { FlowControl, flowControlLimits } from "./flow_control.ts";
import { Router } from "./http.ts";
import { Lifecycle } from "./lifecycle.ts";
import { Objects } from "./objects.ts";
import { readState, restoreState, type SavedCredentials, type StateFile } from "./persistence.ts";
import { RbacAuthorizer, storePolicies } from "./rbac.ts";
import { defaultClusterRoleBindings, defaultClusterRoles } from "./rbac_defaults.ts";
import { RequestLog } from "./request_log.ts";
import { ServiceAccountTokens, TOKEN_SUBRESOURCE } from "./service_accounts.ts";
import { Store } from "./store.ts";
import { Traffic } from "./traffic.ts";
import { WatchHub } from "./watch.ts";

const INITIAL_NAMESPACES = ["default", "kube-system", "kube-public"];

/** The admin's token now: shared by the authenticator, the faults and the cluster. */
export interface AdminToken {
  token: string | undefined;
}

/** What a running fake cluster is made of. */
export interface ClusterParts {
  readonly server: HttpServer;
  /** What answers every request: the server's handler, or a simulation's link. */
  readonly router: Router;
  readonly objects: Objects;
  readonly lifecycle: Lifecycle;
  readonly watches: WatchHub;
  readonly faults: FakeClusterFaults;
  readonly auth: AdminToken;
  readonly authenticator: Authenticator;
  readonly admission: Admission;
  readonly credentials: ClusterCredentials;
  /** The credentials the state file held, kept in it where this run has none of its own. */
  readonly saved: SavedCredentials | undefined;
  readonly log: RequestLog;
  /** What the server has sent, per resource. */
  readonly traffic: Traffic;
  /** Deletes Events a TTL after their last write. */
  readonly eventExpiry: EventExpiry;
  /** API Priority and Fairness, with `maxInflight`. */
  readonly flowControl: FlowControl | undefined;
}

/** The catalog of built-in types, with the review APIs and `TokenRequest`s under RBAC. */
function catalogOf(rbac: boolean): Catalog {
  const catalog = new Catalog();
  for (const type of builtinTypes()) {
    if (rbac && type.group === "" && type.plural === "serviceaccounts") {
      type.extraSubresources = [TOKEN_SUBRESOURCE];
    }
    catalog.put(type);
  }
  if (rbac) { for (const type of reviewTypes()) catalog.put(type); }
  return catalog;
}

/** The objects: those of the state file, and what a cluster always has where missing. */
function objectsOf(options: FakeClusterOptions, saved: StateFile | undefined): Objects {
  const catalog = catalogOf(options.rbac ?? false);
  const store = new Store({
    historySize: options.historySize ?? 10_000,
    resourceVersion: saved?.resourceVersion,
  });
  const objects = new Objects(catalog, store);
  if (saved && options.state) restoreState(objects, saved, options.state);
  const nsType = catalog.get("", "namespaces")!;
  for (const name of INITIAL_NAMESPACES) {
    if (!store.get(typeKey("", "namespaces"), "", name)) {
      objects.create({ type: nsType, version: nsType.versions[0] }, { metadata: { name } });
    }
  }
  // Made again where missing, as kube-apiserver keeps them: its APIServices (their status
  // written after, as a create leaves it out), and the default roles under RBAC.
  const always = localApiServices(catalog);
  if (options.rbac) always.push(...defaultClusterRoles(), ...defaultClusterRoleBindings());
  for (const object of always) {
    const type = catalog.byKind(String(object.apiVersion), String(object.kind))!;
    const name = String((object.metadata as JsonObject).name);
    if (store.get(typeKey(type.group, type.plural), "", name)) continue;
    if (object.status === undefined) objects.create({ type, version: type.versions[0] }, object);
    // An APIService's name (`v1.` for the core group) is checked as `version.group`, not
    // as the subdomain other names are; its status is the aggregator's own.
    else objects.system(type, apiServiceMeta(object));
  }
  return objects;
}

/**
 * Listen on the port asked for; with none (`0`), on the port of the state file's last run
 * if it is free, else on any free one.
 */
async function listen(
  options: FakeClusterOptions,
  saved: SavedCredentials | undefined,
  credentials: ClusterCredentials,
  router: Router,
): Promise<HttpServer> {
  const { ca, serving } = credentials;
  const tls = serving
    ? {
      certificate: serving.certPem,
      privateKey: serving.keyPem,
      ...(options.clientCertificates ? { clientCa: ca!.certPem } : {}),
    }
    : undefined;
  const serve = (port: number) =>
    startHttpServer({
      hostname: "127.0.0.1",
      port,
      tls,
      handler: (request, info) => router.handle(request, info),
    });
  const port = options.port ?? 0;
  if (port !== 0 || !saved?.port) return await serve(port);
  try {
    return await serve(saved.port);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    return await serve(0); // taken meanwhile: clients need the new kubeconfig
  }
}

/**
 * A server that listens nowhere: its requests come from this process (the simulation hands
 * them to the router), at the URL given.
 */
function unlistened(url: string): HttpServer {
  const { hostname, port } = new URL(url);
  return { hostname, port: Number(port) || 80, url, close: () => Promise.resolve() };
}

/**
 * Start the parts of a fake cluster; resolves when it accepts connections -- or, with
 * `inProcessUrl`, at once: nothing listens, and requests are given to its router.
 */
export async function assembleCluster(
  options: FakeClusterOptions,
  inProcessUrl?: string,
): Promise<ClusterParts> {
  const rbac = options.rbac ?? false;
  const eventTtl = eventTtlOf(options.eventTtl);
  const limits = flowControlLimits(options);
  const state = options.state ? await readState(options.state) : undefined;
  const saved = state?.credentials;
  const credentials = await makeCredentials(options, saved);
  const objects = objectsOf(options, state);
  const store = objects.store;
  const traffic = new Traffic();
  const watches = new WatchHub(
    store,
    options.bookmarkInterval ?? 10,
    options.streamingLists ?? true,
    traffic,
  );
  // Shared with the authenticator and the faults: expiry replaces the token for all.
  const auth: AdminToken = { token: credentials.token };
  const faults = new FakeClusterFaults({
    dropWatches: () => void watches.dropAll(),
    expireToken: () => {
      if (auth.token !== undefined) auth.token = randomToken();
      return auth.token;
    },
    compact: () => store.history.compact(store.resourceVersion),
  });
  const admission = new Admission(store);
  const authenticator = new Authenticator(store, {
    adminToken: () => auth.token,
    clientCertificates: options.clientCertificates ?? false,
    anonymous: rbac,
  });
  authenticator.restoreTokens(saved?.tokens ?? []);
  const tokens = new ServiceAccountTokens(objects, authenticator, credentials.ca?.certPem);
  const lifecycle = new Lifecycle(objects, rbac ? [tokens] : []);
  const log = new RequestLog();
  const flowControl = limits && new FlowControl(limits, traffic.flowControl);
  let address = "";
  const router = new Router({
    catalog: objects.catalog,
    objects,
    lifecycle,
    watches,
    faults,
    authenticator,
    authorizer: rbac ? new RbacAuthorizer(storePolicies(store)) : undefined,
    admission,
    traffic,
    flowControl,
    serverAddress: () => address,
    log: (entry) => log.add(entry),
  });
  const server = inProcessUrl === undefined
    ? await listen(options, saved, credentials, router)
    : unlistened(inProcessUrl);
  address = `${server.hostname}:${server.port}`;
  // Last: no timer is left behind when the server cannot listen.
  const eventExpiry = new EventExpiry(store, eventTtl, () => lifecycle.settle());
  return {
    server,
    router,
    objects,
    lifecycle,
    watches,
    faults,
    auth,
    authenticator,
    admission,
    credentials,
    saved,
    log,
    traffic,
    eventExpiry,
    flowControl,
  };
}
