/**
 * Admission control: answering `AdmissionReview` requests with the validating and
 * mutating handlers, and keeping the managed webhook configurations in the cluster.
 *
 * - {@link serveAdmissionReview} takes one review request (parsed JSON) and answers the
 *   review response: the handlers of the webhook named in the request's URL (or all of
 *   them, when none is named) run for the object; the first error by priority denies
 *   the request (an `AdmissionError` with its message and code; any other error with
 *   code 500); the handlers' warnings are returned; the mutating handlers' `patch`
 *   becomes a base64-encoded JSON Patch against the admitted object.
 * - A webhook server (see {@link AdmissionServer}) receives the HTTP requests and calls
 *   the {@link WebhookFn} it is given; it yields the client configs (URL, CA bundle) under
 *   which the cluster can reach it. The servers themselves live in the kits.
 * - {@link startAdmission} runs the server, and with a managed configuration name keeps
 *   one `ValidatingWebhookConfiguration` and one `MutatingWebhookConfiguration` of that
 *   name up to date with one webhook per handler; on exit only the handlers registered
 *   with `persistent` stay there.
 *
 * @module
 */
import type { ObjectMemories } from "../handling/memories.ts";
import {
  ADMISSION_REVIEW_API_VERSION,
  type AdmissionOperation,
  type AdmissionReviewResponse,
  type AdmissionReviewVerdict,
} from "../structs/admission_reviews.ts";
import type { JsonObject, RawBody } from "../structs/bodies.ts";
import {
  AdmissionError,
  ConfigurationError,
  PermanentError,
  TemporaryError,
} from "../structs/errors.ts";
import type { Index } from "../structs/indices.ts";
import type { Logger } from "../structs/loggers.ts";
import type { OperatorMetrics } from "../structs/operator_metrics.ts";
import { ABSENT, PRESENT } from "../structs/markers.ts";
import { copyMemo, Memo } from "../structs/memos.ts";
import { Patch } from "../structs/patches.ts";
import { Resource } from "../structs/resources.ts";
import type { ApiClient } from "../client/api.ts";
import { APINotFoundError } from "../client/api_errors.ts";
import { createObject, getObject, listObjects, patchObject } from "../client/objects.ts";
import { AdmissionSettings } from "../settings/cluster_settings.ts";
import type { OperatorSettings } from "../settings/operator_settings.ts";
import type { WebhookHandler } from "../intents/handlers.ts";
import { buildResourceKwargs, buildWebhookKwargs } from "../intents/kwargs_builders.ts";
import type { WebhookType } from "../intents/reasons.ts";
import { matcherOf, type OperatorRegistry } from "../intents/registry.ts";
import { createObjectScope, runInObjectScope } from "../handling/object_loggers.ts";

/** How the cluster reaches a webhook server: what goes to `webhooks[].clientConfig`. */
export interface WebhookClientConfig {
  /** The HTTPS URL of the server; the handler's id is appended as the last path segment. */
  url?: string;
  /** The PEM CA bundle that signed the server's certificate, base64-encoded. */
  caBundle?: string;
  /** An in-cluster service in front of the server; the handler's id is appended to its path. */
  service?: {
    /** The service's namespace. */
    namespace: string;
    /** The service's name. */
    name: string;
    /** The path prefix. */
    path?: string;
    /** The service port; 443 by default. */
    port?: number;
  };
}

/** What a webhook server passes along with a review request. */
export interface WebhookRequestInfo {
  /** The webhook (handler id) named by the request's URL; all handlers when omitted. */
  readonly webhook?: string;
  /** The HTTP headers of the request, names in lowercase. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The client certificate of the caller, when it presented one the server trusts. */
  readonly sslpeer?: Readonly<Record<string, unknown>> | null;
}

/**
 * Answers one review request: what the framework gives to a webhook server. It rejects
 * ({@link AdmissionRequestError}) only when the request is not a review request at all.
 */
export type WebhookFn = (
  request: unknown,
  info?: WebhookRequestInfo,
) => Promise<AdmissionReviewResponse>;

/** What a webhook server gets when it starts. */
export interface AdmissionServerContext {
  /** Aborted when the operator stops: close the server and end the iteration then. */
  readonly signal: AbortSignal;
  /** Where the server says what it does. */
  readonly logger: Logger;
  /**
   * Facts about the cluster, for servers that adapt to it (e.g. the auto-detecting ones);
   * `undefined` when there is no cluster to ask.
   */
  readonly cluster?: ClusterFacts;
  /**
   * The bounds to hold every client to (body size, read timeouts, connections): those of
   * `settings.admission`; its defaults when omitted.
   */
  readonly limits?: AdmissionServerLimits;
}

/** The bounds a webhook server holds every client to: the fields of `settings.admission`. */
export type AdmissionServerLimits = Readonly<
  Pick<
    AdmissionSettings,
    | "bodyLimit"
    | "bufferLimit"
    | "headerTimeout"
    | "bodyTimeout"
    | "idleTimeout"
    | "connectionLimit"
  >
>;

/** The limits of `settings.admission` (of the defaults without it), for a webhook server. */
export function admissionServerLimits(
  settings: AdmissionSettings = new AdmissionSettings(),
): AdmissionServerLimits {
  const { bodyLimit, bufferLimit, headerTimeout, bodyTimeout, idleTimeout, connectionLimit } =
    settings;
  return { bodyLimit, bufferLimit, headerTimeout, bodyTimeout, idleTimeout, connectionLimit };
}

/** What can be learned about the cluster the operator runs against. */
export interface ClusterFacts {
  /** The API server's version string, e.g. `v1.31.1+k3s1`. */
  gitVersion(): Promise<string | undefined>;
  /** The labels of the cluster's nodes (empty when they cannot be listed). */
  nodeLabels(): Promise<readonly Readonly<Record<string, string>>[]>;
}

/**
 * A webhook server or tunnel: `serve` starts it and yields the client config under which
 * the cluster reaches it (again whenever that changes); it calls `fn` for each review
 * request and ends when `context.signal` aborts. An iteration that ends or fails
 * before that stops the operator.
 */
export interface AdmissionServer {
  /** Start serving; see the interface docs. */
  serve(fn: WebhookFn, context: AdmissionServerContext): AsyncIterable<WebhookClientConfig>;
}

/** A plain function that serves like {@link AdmissionServer.serve}. */
export type AdmissionServerFn = (
  fn: WebhookFn,
  context: AdmissionServerContext,
) => AsyncIterable<WebhookClientConfig>;

/**
 * The request is not an `AdmissionReview` request; servers answer it with HTTP 400.
 *
 * @example A webhook server of one's own answers anything but a review with HTTP 400
 * ```ts
 * import { type AdmissionServer, kopf } from "@kopf/kopf";
 *
 * const server: AdmissionServer = {
 *   async *serve(fn, { signal }) {
 *     const http = Deno.serve({ port: 9443, signal }, async (request) => {
 *       try {
 *         return Response.json(await fn(await request.json()));
 *       } catch (error) {
 *         if (!(error instanceof kopf.AdmissionRequestError)) throw error;
 *         return new Response(error.message, { status: 400 });
 *       }
 *     });
 *     yield { url: "https://operator.example.com:9443" };
 *     await http.finished;
 *   },
 * };
 * kopf.on.startup(({ settings }) => {
 *   settings.admission.server = server;
 * });
 * ```
 */
export class AdmissionRequestError extends Error {
  /** The error's name. */
  override name = "AdmissionRequestError";
}

/** Options of {@link serveAdmissionReview}. */
export interface AdmissionReviewOptions extends WebhookRequestInfo {
  /** The handlers. */
  readonly registry: OperatorRegistry;
  /**
   * The resource record of the request's group, version and plural, e.g. from discovery
   * (short names and categories then match too); one built from the request otherwise.
   */
  readonly resolve?: (group: string, version: string, plural: string) => Resource | undefined;
  /** The operator's memo: each request gets its own copy. */
  readonly memo?: unknown;
  /**
   * The memo of an object already known to the operator (for updates and deletions);
   * `undefined` for others, which get a copy of `memo` that is then discarded.
   */
  readonly memoOf?: (resource: Resource, body: RawBody) => unknown;
  /** Declared indices by name, passed to the handlers. */
  readonly indices?: Readonly<Record<string, Index>>;
}

const OPERATIONS: ReadonlySet<string> = new Set(["CREATE", "UPDATE", "DELETE", "CONNECT"]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
  return btoa(binary);
}

/** The priority of an error when choosing the one to report: lower wins. */
function errorRank(error: unknown): number {
  if (error instanceof AdmissionError) return 0;
  if (error instanceof PermanentError) return 1;
  if (error instanceof TemporaryError) return 2;
  return 9;
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/**
 * Answer one `AdmissionReview` request (v1, parsed JSON) with the registry's admission
 * handlers; see the module docs. Handler errors deny the request; they never reject.
 */
export async function serveAdmissionReview(
  review: unknown,
  options: AdmissionReviewOptions,
): Promise<AdmissionReviewResponse> {
  const request = parseReviewRequest(review, options.resolve);
  const scope = createObjectScope(request.body, { local: true });
  const patch = new Patch();
  const warnings: string[] = [];
  const { errors, mutated } = await runReviewHandlers(request, options, scope, patch, warnings);
  const response: AdmissionReviewVerdict = { uid: request.uid, allowed: true };
  if (warnings.length > 0) response.warnings = warnings.map(String);
  if (errors.length > 0) {
    errors.sort((a, b) => errorRank(a) - errorRank(b));
    const first = errors[0];
    response.allowed = false;
    response.status = {
      message: errorMessage(first),
      code: first instanceof AdmissionError ? first.code : 500,
    };
  } else if (mutated) {
    const operations = patch.toJsonPatch(request.body);
    if (operations.length > 0) {
      response.patch = base64(JSON.stringify(operations));
      response.patchType = "JSONPatch";
    }
  }
  const envelope = review as Record<string, unknown>;
  return {
    apiVersion: typeof envelope.apiVersion === "string"
      ? envelope.apiVersion
      : ADMISSION_REVIEW_API_VERSION,
    kind: typeof envelope.kind === "string" ? envelope.kind : "AdmissionReview",
    response,
  };
}

/** What a review request asks about, checked. */
interface ReviewRequest {
  readonly uid: string;
  readonly operation: AdmissionOperation;
  readonly resource: Resource;
  /** The admitted object: the new one, or the old one of a deletion. */
  readonly body: RawBody;
  readonly oldBody: RawBody | null;
  readonly newBody: RawBody | null;
  readonly subresource: string | null;
  readonly dryrun: boolean;
  readonly userinfo: Record<string, unknown>;
}

/** The request of a review; an {@link AdmissionRequestError} if it is not one. */
function parseReviewRequest(
  review: unknown,
  resolve: AdmissionReviewOptions["resolve"],
): ReviewRequest {
  if (!isObject(review) || !isObject(review.request)) {
    throw new AdmissionRequestError("The body is not an AdmissionReview with a request.");
  }
  const request = review.request;
  const uid = typeof request.uid === "string" ? request.uid : "";
  const gvr = isObject(request.resource) ? request.resource : {};
  const group = typeof gvr.group === "string" ? gvr.group : "";
  const version = typeof gvr.version === "string" ? gvr.version : "";
  const plural = typeof gvr.resource === "string" ? gvr.resource : "";
  const operation = String(request.operation ?? "");
  if (!uid || !version || !plural || !OPERATIONS.has(operation)) {
    throw new AdmissionRequestError(
      "The AdmissionReview request lacks its uid, resource or a known operation.",
    );
  }
  const kind = isObject(request.kind) && typeof request.kind.kind === "string"
    ? request.kind.kind
    : undefined;
  const resource = resolve?.(group, version, plural) ??
    new Resource({ group, version, plural, kind, namespaced: request.namespace !== undefined });
  const newBody = isObject(request.object) ? request.object as RawBody : null;
  const oldBody = isObject(request.oldObject) ? request.oldObject as RawBody : null;
  return {
    uid,
    operation: operation as AdmissionOperation,
    resource,
    body: newBody ?? oldBody ?? {},
    oldBody,
    newBody,
    subresource: typeof request.subResource === "string" && request.subResource
      ? request.subResource
      : null,
    dryrun: request.dryRun === true,
    userinfo: isObject(request.userInfo) ? request.userInfo : {},
  };
}

/**
 * Run the validating, then the mutating handlers selected for the request (only the
 * webhook's, when one is named); their errors, and whether any mutating handler ran.
 */
async function runReviewHandlers(
  request: ReviewRequest,
  options: AdmissionReviewOptions,
  scope: ReturnType<typeof createObjectScope>,
  patch: Patch,
  warnings: string[],
): Promise<{ errors: unknown[]; mutated: boolean }> {
  const { resource, body, operation, subresource } = request;
  const known = operation === "CREATE" ? undefined : options.memoOf?.(resource, body);
  const memo = known ?? (options.memo === undefined ? new Memo() : copyMemo(options.memo));
  const init = { resource, body, patch, logger: scope.logger, memo, indices: options.indices };
  const extra = {
    dryrun: request.dryrun,
    subresource,
    warnings,
    userinfo: request.userinfo,
    headers: options.headers ?? {},
    sslpeer: options.sslpeer ?? null,
    operation,
    old: request.oldBody,
    new: request.newBody,
  };
  const errors: unknown[] = [];
  let mutated = false;
  try {
    const types: WebhookType[] = ["validating", "mutating"];
    for (const type of types) {
      const handlers = matcherOf(options.registry).selectWebhookHandlers(resource, {
        type,
        operation,
        subresource,
        body,
        old: request.oldBody,
        new: request.newBody,
        kwargs: () => buildResourceKwargs(init, extra),
      }).filter((h) => options.webhook === undefined || h.id === options.webhook);
      for (const handler of handlers) {
        const kwargs = buildWebhookKwargs({ ...init, param: handler.param }, extra) as object;
        const error = await runHandler(handler, kwargs, scope);
        if (error !== undefined) errors.push(error);
        if (type === "mutating") mutated = true;
      }
    }
  } catch (error) {
    // A failing filter callback: the request cannot be judged, so it is denied.
    scope.logger.error(`The admission filters failed: ${errorMessage(error)}`);
    errors.push(error);
  }
  return { errors, mutated };
}

/** Run one admission handler; returns its error, if any (logged). */
async function runHandler(
  handler: WebhookHandler,
  kwargs: object,
  scope: ReturnType<typeof createObjectScope>,
): Promise<unknown> {
  const title = `Handler '${handler.id}'`;
  try {
    scope.logger.debug(`${title} is invoked.`);
    await runInObjectScope(scope, () => handler.fn(kwargs));
    scope.logger.debug(`${title} succeeded.`);
    return undefined;
  } catch (error) {
    const failure = error ?? new Error("null was thrown");
    if (error instanceof AdmissionError) {
      scope.logger.info(`${title} denied the request: ${errorMessage(error)}`);
    } else {
      scope.logger.exception(`${title} failed with an exception.`, error);
    }
    return failure;
  }
}

// ---------------------------------------------------------------------------------------
// Managed webhook configurations.

/** The webhook configurations' resources. */
export const VALIDATING_CONFIGURATIONS: Resource = new Resource({
  group: "admissionregistration.k8s.io",
  version: "v1",
  plural: "validatingwebhookconfigurations",
  kind: "ValidatingWebhookConfiguration",
  namespaced: false,
});

/** The mutating webhook configurations' resource. */
export const MUTATING_CONFIGURATIONS: Resource = new Resource({
  group: "admissionregistration.k8s.io",
  version: "v1",
  plural: "mutatingwebhookconfigurations",
  kind: "MutatingWebhookConfiguration",
  namespaced: false,
});

/** Seconds the API server waits for a webhook: the most Kubernetes permits. */
export const WEBHOOK_TIMEOUT = 30;

/** The webhook's name in a configuration: the handler id made a DNS name, then the suffix. */
export function webhookName(id: string, suffix: string): string {
  // A DNS subdomain: each dot-separated label starts and ends with a letter or digit.
  const dns = (text: string) =>
    text.split(".").map((label) => label.replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, ""))
      .filter(Boolean).join(".");
  let name = dns(id.toLowerCase().replace(/[^a-z0-9.-]+/g, "-"));
  if (!name) name = "webhook";
  const full = `${name}.${suffix}`;
  return full.length <= 253 ? full : `${dns(name.slice(0, 253 - suffix.length - 1))}.${suffix}`;
}

/** A short, stable hash of a handler id (FNV-1a, 8 hex digits). */
function idHash(id: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(id)) hash = Math.imul(hash ^ byte, 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/** The client config with the handler id appended to the URL's (or service's) path. */
export function clientConfigFor(config: WebhookClientConfig, id: string): WebhookClientConfig {
  const segment = encodeURIComponent(id);
  const out: WebhookClientConfig = { ...config };
  if (config.url !== undefined) out.url = `${config.url.replace(/\/+$/, "")}/${segment}`;
  if (config.service !== undefined) {
    const path = (config.service.path ?? "").replace(/\/+$/, "");
    out.service = { ...config.service, path: `${path}/${segment}` };
  }
  return out;
}

/** The label selector the API server can check itself: strings and the markers. */
function objectSelector(labels: WebhookHandler["labels"]): JsonObject | undefined {
  if (labels === undefined) return undefined;
  const expressions: JsonObject[] = [];
  for (const [key, value] of Object.entries(labels)) {
    if (value === PRESENT) expressions.push({ key, operator: "Exists" });
    else if (value === ABSENT) expressions.push({ key, operator: "DoesNotExist" });
    else if (typeof value === "string") expressions.push({ key, operator: "In", values: [value] });
  }
  return expressions.length > 0 ? { matchExpressions: expressions } : undefined;
}

/**
 * The webhooks of one configuration: one per handler of the type (only the persistent
 * ones if asked), with rules for each served resource its selector matches.
 */
export function buildWebhooks(
  handlers: readonly WebhookHandler[],
  options: {
    resources: readonly Resource[];
    suffix: string;
    clientConfig: WebhookClientConfig;
    persistentOnly?: boolean;
  },
): JsonObject[] {
  const out: JsonObject[] = [];
  const seen = new Set<string>();
  const names = new Set<string>();
  for (const handler of handlers) {
    if (seen.has(handler.id)) continue;
    seen.add(handler.id);
    // Names must be unique in a configuration: ids that read alike (`a_b`, `a-b`, `A-b`)
    // are told apart by a hash of the id.
    let name = webhookName(handler.id, options.suffix);
    if (names.has(name)) name = webhookName(`${handler.id}-${idHash(handler.id)}`, options.suffix);
    names.add(name);
    if (options.persistentOnly && !handler.persistent) continue;
    const rules = options.resources.filter((r) => handler.selector.check(r)).map((r) => ({
      apiGroups: [r.group],
      apiVersions: [r.version],
      // `plural/*` matches only the subresources: "*" means the main body too.
      resources: handler.subresource === null
        ? [r.plural]
        : handler.subresource === "*"
        ? [r.plural, `${r.plural}/*`]
        : [`${r.plural}/${handler.subresource}`],
      operations: handler.operations === null ? ["*"] : [...handler.operations],
      scope: "*",
    }));
    const selector = objectSelector(handler.labels);
    out.push({
      name,
      sideEffects: handler.sideEffects ? "NoneOnDryRun" : "None",
      failurePolicy: handler.ignoreFailures ? "Ignore" : "Fail",
      matchPolicy: "Equivalent",
      rules,
      ...(selector === undefined ? {} : { objectSelector: selector }),
      clientConfig: clientConfigFor(options.clientConfig, handler.id) as JsonObject,
      timeoutSeconds: WEBHOOK_TIMEOUT,
      admissionReviewVersions: ["v1"],
    });
  }
  return out;
}

/** Options of {@link startAdmission}. */
export interface AdmissionOptions {
  /** The API client: for the managed configurations and the cluster facts. */
  readonly api: ApiClient;
  /** The handlers. */
  readonly registry: OperatorRegistry;
  /** `settings.admission` says which server and which managed configuration. */
  readonly settings: OperatorSettings;
  /** The served resources (from discovery); their changes come by `resourcesChanged()`. */
  readonly resources: readonly Resource[];
  /** The operator's memo: each request gets a copy. */
  readonly memo?: unknown;
  /** The operator's memories of objects: an object already known gets its own memo. */
  readonly memories?: ObjectMemories;
  /** Declared indices by name. */
  readonly indices?: Readonly<Record<string, Index>>;
  /** Where the engine and the server say what they do. */
  readonly logger: Logger;
  /** Where reviews and their durations are counted; nowhere by default. */
  readonly metrics?: OperatorMetrics;
}

/** A running admission engine. */
export interface RunningAdmission {
  /** Rejects if the server fails or ends while the operator runs. */
  readonly failed: Promise<never>;
  /**
   * The served resources have changed (e.g. a CRD appeared): the managed webhooks' rules
   * follow, if the resources of the admission handlers are among the changes.
   */
  resourcesChanged(resources: readonly Resource[]): void;
  /** Stop the server; unmanage the non-persistent webhooks. */
  stop(): Promise<void>;
}

/** Whether the value can serve admission requests. */
export function isAdmissionServer(value: unknown): value is AdmissionServer | AdmissionServerFn {
  return typeof value === "function" ||
    (isObject(value) && typeof (value as { serve?: unknown }).serve === "function");
}

/**
 * Start the configured webhook server and, with `settings.admission.managed`, keep the
 * managed configurations in line with its client config. Resolves once the server has
 * yielded its first client config (and the configurations were written).
 */
export async function startAdmission(options: AdmissionOptions): Promise<RunningAdmission> {
  const server = options.settings.admission.server;
  if (!isAdmissionServer(server)) {
    throw new ConfigurationError(
      "settings.admission.server must be a webhook server (e.g. new kopf.WebhookServer()), " +
        "or a function yielding client configs.",
    );
  }
  const engine = new AdmissionEngine(options, server, options.resources);
  await engine.start();
  return engine;
}

/**
 * The label of a review's webhook in the metrics: a registered handler's id, `all` for
 * none; anything else `unknown`: the URL is the client's to choose, and a label per
 * unknown id would let any client create series without end.
 */
function webhookLabel(webhook: string | undefined, known: ReadonlySet<string>): string {
  return webhook === undefined ? "all" : known.has(webhook) ? webhook : "unknown";
}

/** The label of a review's operation in the metrics: a known one, else `unknown`. */
function operationLabel(review: unknown): string {
  const operation = isObject(review) && isObject(review.request)
    ? review.request.operation
    : undefined;
  return typeof operation === "string" && OPERATIONS.has(operation) ? operation : "unknown";
}

/** How a review ended, as the metrics count it. */
function outcomeLabel(response: AdmissionReviewResponse): string {
  const verdict = response.response;
  return verdict.allowed
    ? (verdict.patch ? "patched" : "allowed")
    : verdict.status?.code === 500
    ? "error"
    : "denied";
}

/** The function the server calls: reviews answered, counted if metrics are kept. */
function webhookFunction(
  options: AdmissionOptions,
  resolve: AdmissionReviewOptions["resolve"],
  webhooks: ReadonlySet<string>,
): WebhookFn {
  const { registry, memo, memories, indices } = options;
  const memoOf = memories === undefined
    ? undefined
    : (resource: Resource, body: RawBody) => memories.peek(resource, body)?.memo;
  const serve: WebhookFn = (request, info = {}) =>
    serveAdmissionReview(request, { ...info, registry, resolve, memo, memoOf, indices });
  const metrics = options.metrics;
  if (metrics === undefined) return serve;
  return async (request, info = {}) => {
    const started = performance.now();
    const webhook = webhookLabel(info.webhook, webhooks);
    let outcome = "invalid";
    try {
      const response = await serve(request, info);
      outcome = outcomeLabel(response);
      return response;
    } finally {
      metrics.admissionReviews.inc([webhook, operationLabel(request), outcome]);
      metrics.admissionDuration.observe([webhook], (performance.now() - started) / 1000);
    }
  };
}

/** The running server and the managed configurations that point at it. */
class AdmissionEngine implements RunningAdmission {
  readonly #options: AdmissionOptions;
  readonly #handlers: readonly WebhookHandler[];
  readonly #managed: string | null;
  readonly #controller = new AbortController();
  readonly #iterator: AsyncIterator<WebhookClientConfig>;
  #discovered: readonly Resource[];
  /** The resources the admission handlers serve, as a comparable key. */
  #relevant: string;
  #writing: Promise<void> = Promise.resolve();
  #lastConfig: WebhookClientConfig | undefined;
  #stopping = false;
  #failed: Promise<never> = new Promise(() => {});

  constructor(
    options: AdmissionOptions,
    server: AdmissionServer | AdmissionServerFn,
    discovered: readonly Resource[],
  ) {
    this.#options = options;
    this.#discovered = discovered;
    this.#managed = options.settings.admission.managed;
    this.#handlers = matcherOf(options.registry).handlers.filter((h): h is WebhookHandler =>
      h.kind === "webhook"
    );
    this.#relevant = this.#relevance(discovered);
    const resolve = (group: string, version: string, plural: string) =>
      this.#discovered.find((r) =>
        r.group === group && r.version === version && r.plural === plural
      );
    const fn = webhookFunction(options, resolve, new Set(this.#handlers.map((h) => h.id)));
    const context: AdmissionServerContext = {
      signal: this.#controller.signal,
      logger: options.logger,
      cluster: clusterFacts(options.api),
      limits: admissionServerLimits(options.settings.admission),
    };
    const iterable = typeof server === "function" ? server(fn, context) : server.serve(fn, context);
    this.#iterator = iterable[Symbol.asyncIterator]();
  }

  get failed(): Promise<never> {
    return this.#failed;
  }

  /** Wait for the server's first client config and write the configurations for it. */
  async start(): Promise<void> {
    const logger = this.#options.logger;
    try {
      const first = await this.#iterator.next();
      if (first.done) {
        throw new ConfigurationError(
          "The webhook server ended before it said where it listens: a server must yield " +
            "its client config first, then serve until its context's signal aborts.",
        );
      }
      this.#lastConfig = first.value;
      logger.debug(`Admission webhooks are served at ${JSON.stringify(first.value)}.`);
      await this.#configure(first.value, false);
    } catch (error) {
      // The start fails: the server must not go on listening, nor its webhooks stay behind.
      await this.#closeServer();
      await this.#unmanage();
      throw error;
    }
    if (this.#managed) {
      logger.info(`The webhook configurations ${JSON.stringify(this.#managed)} are managed.`);
    }
    this.#failed = this.#follow();
    this.#failed.catch(() => {}); // observed by the operator, unless it stops first
  }

  resourcesChanged(resources: readonly Resource[]): void {
    const now = this.#relevance(resources);
    this.#discovered = resources;
    if (now === this.#relevant || this.#stopping || this.#lastConfig === undefined) return;
    this.#relevant = now;
    const config = this.#lastConfig;
    this.#writing = this.#writing.then(() => this.#configure(config, false)).catch((error) =>
      this.#options.logger.warning(
        `The webhook configurations could not be updated: ${errorMessage(error)}`,
      )
    );
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#closeServer();
    await this.#writing.catch(() => {});
    await this.#unmanage();
  }

  /** Follow the server's later client configs; rejects if it ends or fails unasked. */
  async #follow(): Promise<never> {
    try {
      while (true) {
        const next = await this.#iterator.next();
        if (next.done) break;
        const config = this.#lastConfig = next.value;
        await (this.#writing = this.#writing.then(() => this.#configure(config, false)));
      }
    } catch (error) {
      if (!this.#stopping) throw error;
    }
    if (this.#stopping) return await new Promise<never>(() => {});
    throw new ConfigurationError(
      "The webhook server has stopped unexpectedly; a server must serve until its " +
        "context's signal aborts.",
    );
  }

  #relevance(resources: readonly Resource[]): string {
    return resources.filter((r) => r.preferred && this.#handlers.some((h) => h.selector.check(r)))
      .map((r) => r.key).sort().join(" ");
  }

  /** Write the managed configurations for the client config (all webhooks, or the persistent). */
  async #configure(config: WebhookClientConfig, persistentOnly: boolean): Promise<void> {
    const managed = this.#managed;
    if (!managed) return;
    for (const [resource, type] of MANAGED) {
      const webhooks = buildWebhooks(this.#handlers.filter((h) => h.type === type), {
        resources: this.#discovered.filter((r) => r.preferred),
        suffix: managed,
        clientConfig: config,
        persistentOnly,
      });
      await writeConfiguration(this.#options.api, resource, managed, webhooks);
    }
  }

  /** Leave only the persistent webhooks in the managed configurations. */
  async #unmanage(): Promise<void> {
    if (!this.#managed || this.#lastConfig === undefined) return;
    try {
      await this.#configure(this.#lastConfig, true);
    } catch (error) {
      this.#options.logger.warning(
        `The non-persistent webhooks could not be removed: ${errorMessage(error)}`,
      );
    }
  }

  /** Tell the server to stop and wait for it, but never forever (it may ignore the signal). */
  async #closeServer(): Promise<void> {
    this.#controller.abort();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), SERVER_CLOSE_TIMEOUT * 1000);
    });
    const closed = Promise.resolve(this.#iterator.return?.()).then(() => true, () => true);
    const done = await Promise.race([closed, grace]);
    clearTimeout(timer);
    if (!done) {
      this.#options.logger.warning(
        `The webhook server did not stop within ${SERVER_CLOSE_TIMEOUT}s of being told to ` +
          "(it must end when its context's signal aborts); leaving it behind.",
      );
    }
  }
}

/** Seconds a webhook server may take to stop once told to. */
const SERVER_CLOSE_TIMEOUT = 5;

const MANAGED: readonly [Resource, WebhookType][] = [
  [VALIDATING_CONFIGURATIONS, "validating"],
  [MUTATING_CONFIGURATIONS, "mutating"],
];

/** Create the configuration if absent, then replace its webhooks. */
async function writeConfiguration(
  api: ApiClient,
  resource: Resource,
  name: string,
  webhooks: JsonObject[],
): Promise<void> {
  try {
    await getObject(api, resource, { name });
  } catch (error) {
    if (!(error instanceof APINotFoundError)) throw error;
    await createObject(api, resource, {
      apiVersion: resource.apiVersion,
      kind: resource.kind,
      metadata: { name },
      webhooks,
    } as RawBody);
    return;
  }
  await patchObject(api, resource, { name }, { webhooks } as JsonObject);
}

/** Cluster facts from the API: the version, the nodes' labels. */
function clusterFacts(api: ApiClient): ClusterFacts {
  const nodes = new Resource({
    group: "",
    version: "v1",
    plural: "nodes",
    kind: "Node",
    namespaced: false,
  });
  return {
    async gitVersion() {
      try {
        const info = await api.request<{ gitVersion?: string }>("GET", "/version");
        return typeof info?.gitVersion === "string" ? info.gitVersion : undefined;
      } catch {
        return undefined;
      }
    },
    async nodeLabels() {
      try {
        const listed = await listObjects(api, nodes);
        return listed.items.map((n) => (n.metadata?.labels ?? {}) as Record<string, string>);
      } catch {
        return [];
      }
    },
  };
}
