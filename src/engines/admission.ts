/**
 * The admission engine: {@link startAdmission} runs the configured webhook server (see
 * `webhook_servers.ts`), which has the reviews answered (`admission_answers.ts`), counted
 * if metrics are kept; with a managed configuration name it keeps one
 * `ValidatingWebhookConfiguration` and one `MutatingWebhookConfiguration` of that name up
 * to date with one webhook per handler (`webhook_configurations.ts`); on exit only the
 * handlers registered with `persistent` stay there.
 *
 * @module
 */
import type { ObjectMemories } from "../handling/memories.ts";
import type { AdmissionReviewResponse } from "../structs/admission_reviews.ts";
import type { RawBody } from "../structs/bodies.ts";
import { ConfigurationError } from "../structs/errors.ts";
import type { Index } from "../structs/indices.ts";
import type { Logger } from "../structs/loggers.ts";
import type { OperatorMetrics } from "../structs/operator_metrics.ts";
import { Resource } from "../structs/resources.ts";
import type { ApiClient } from "../client/api.ts";
import { listObjects } from "../client/objects.ts";
import type { OperatorSettings } from "../settings/operator_settings.ts";
import type { WebhookHandler } from "../intents/handlers.ts";
import type { WebhookType } from "../intents/reasons.ts";
import { matcherOf, type OperatorRegistry } from "../intents/registry.ts";
import {
  type AdmissionServer,
  type AdmissionServerContext,
  type AdmissionServerFn,
  admissionServerLimits,
  type ClusterFacts,
  type WebhookClientConfig,
  type WebhookFn,
} from "./webhook_servers.ts";
import {
  type AdmissionReviewOptions,
  errorMessage,
  isObject,
  OPERATIONS,
  serveAdmissionReview,
} from "./admission_answers.ts";
import {
  buildWebhooks,
  MUTATING_CONFIGURATIONS,
  VALIDATING_CONFIGURATIONS,
  writeConfiguration,
} from "./webhook_configurations.ts";

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
