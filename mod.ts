/**
 * A Kubernetes operator framework for TypeScript, modelled on Kopf.
 *
 * Register plain async functions on the {@link kopf} namespace object and run the
 * operator; the framework watches the cluster, detects changes, calls the handlers,
 * retries them and persists their progress on the objects.
 *
 * Each public name is reached one way: values (functions, classes, markers) through
 * `kopf`, types by name -- a class is both, constructed as `new kopf.X()` and written as
 * the type `X`.
 *
 * ```ts
 * import { kopf, type ChangingKwargs } from "@kopf/kopf";
 *
 * kopf.on.create("kopfexamples", async ({ spec, logger }: ChangingKwargs) => {
 *   logger.info(`Created with ${JSON.stringify(spec)}`);
 *   return { message: "hello" };
 * });
 * ```
 *
 * More entry points: `@kopf/kopf/testing` (the fake cluster and the operator runner for
 * tests), `@kopf/kopf/client` (the Kubernetes API client on its own), `@kopf/kopf/cli`
 * (the `kopf` command line).
 *
 * @module
 */

export * as kopf from "./src/kopf.ts";

// --- registering handlers ---
export type { OperatorRegistry } from "./src/intents/registry.ts";
export type {
  ActivityRegistrar,
  FamilyFor,
  HandlerFamilies,
  ResourceArg,
  ResourceRegistrar,
} from "./src/intents/registrar_types.ts";
export type { OnNamespace } from "./src/intents/on_namespace.ts";
export type { CheckedOptions, UninferredOptions } from "./src/intents/option_checks.ts";
export type { ChildOf, ChildRegistrar } from "./src/intents/child_registration.ts";
export type { BuiltinObjects } from "./src/structs/builtin_objects.ts";
export type { CauseOverrides } from "./src/intents/causes.ts";
export type { ExecuteOptions } from "./src/handling/subhandler_execution.ts";
export type { LifeCycleFn } from "./src/intents/lifecycles.ts";
export type {
  ChildOptions,
  CreateOptions,
  DaemonOptions,
  EventHandlerOptions,
  HandlerOptions,
  TimerOptions,
  UpdateOptions,
  WebhookOptions,
} from "./src/intents/handler_options.ts";
export type { FieldFilterValue, MetaFilter, ValueCallback } from "./src/intents/filters.ts";
export type {
  PartOf,
  ResourceName,
  SelectorKeywords,
  TypedResource,
} from "./src/structs/resource_selectors.ts";
export type { Marker } from "./src/structs/markers.ts";

// --- what handlers receive ---
export type { Resource } from "./src/structs/resources.ts";
export type { Memo } from "./src/structs/memos.ts";
export type {
  ActivityKwargs,
  ChangingKwargs,
  ChildFilterKwargs,
  ChildKwargs,
  DaemonKwargs,
  EventKwargs,
  IndexingKwargs,
  ResourceKwargs,
  RetryKwargs,
  TimerKwargs,
  WatchedKwargs,
  WebhookKwargs,
} from "./src/intents/kwargs.ts";
export type { Activity, Reason } from "./src/intents/reasons.ts";
export type { ResourceInit } from "./src/structs/resources.ts";
export type { JsonObject, JsonValue, RawBody, RawMeta, RawStatus } from "./src/structs/bodies.ts";
export type {
  Body,
  DeepReadonly,
  Meta,
  ReadonlyJsonObject,
  ReadonlyJsonValue,
  Spec,
  Status,
} from "./src/structs/views.ts";
export type { MergePatch, Patch, PatchSection } from "./src/structs/patches.ts";
export type { Diff } from "./src/structs/diffs.ts";
export type { FieldSpec } from "./src/structs/dicts.ts";
export type { Index, IndexKey, Store } from "./src/structs/indices.ts";
export type { DaemonStopped } from "./src/structs/stoppers.ts";
export type { Logger, ObjectLogger } from "./src/structs/loggers.ts";
export type { LocalObjectLogger } from "./src/handling/object_loggers.ts";
export type { AdmissionOperation } from "./src/structs/admission_reviews.ts";

// --- errors: those handlers raise, and those the framework reports ---
export type {
  AdmissionError,
  CertificateError,
  ConfigurationError,
  HandlerRetriesError,
  HandlerTimeoutError,
  KopfError,
  LoginError,
  PermanentError,
  StoredStateError,
  TemporaryError,
  UsageError,
} from "./src/structs/errors.ts";
export type { SelectorError } from "./src/structs/resource_selectors.ts";
export type { RegistrationError } from "./src/intents/handler_options.ts";
export type {
  APIBadRequestError,
  APIClientError,
  APIConflictError,
  APIError,
  APIForbiddenError,
  APIGoneError,
  APIMethodNotAllowedError,
  APINotFoundError,
  APIServerError,
  APITooManyRequestsError,
  APIUnauthorizedError,
  APIUnprocessableError,
  APIUnsupportedMediaTypeError,
} from "./src/client/api_errors.ts";
export type {
  APICertificateError,
  APIConnectionError,
  APIResponseError,
  APITimeoutError,
} from "./src/client/connection_errors.ts";
export type { ActivityError } from "./src/engines/activities.ts";
export type { PeeringConfigurationError } from "./src/engines/peering.ts";
export type { OperatorConfigurationError } from "./src/reactor/operator_options.ts";
export type { Outcome } from "./src/handling/handler_progress.ts";

// --- settings and storages ---
export type {
  AdmissionSettings,
  EndpointSettings,
  LeadershipSettings,
  PeeringSettings,
} from "./src/settings/cluster_settings.ts";
export type {
  ApplyingSettings,
  ConditionsSettings,
  PostingSettings,
} from "./src/settings/output_settings.ts";
export type {
  BackgroundSettings,
  BatchingSettings,
  PersistenceSettings,
} from "./src/settings/processing_settings.ts";
export type {
  NetworkingSettings,
  ScanningSettings,
  WatchingSettings,
} from "./src/settings/api_settings.ts";
export type { OperatorSettings } from "./src/settings/operator_settings.ts";
export type { QueueingSettings } from "./src/settings/queueing_settings.ts";
export type { WatchSelectors } from "./src/settings/watch_selectors.ts";
export type {
  AnnotationsProgressStorage,
  StatusProgressStorage,
} from "./src/settings/object_progress_storages.ts";
export type {
  MultiProgressStorage,
  SmartProgressStorage,
} from "./src/settings/multi_progress_storages.ts";
export type { ProgressStorage } from "./src/settings/progress_storages.ts";
export type {
  AnnotationsDiffBaseStorage,
  DiffBaseStorage,
  MultiDiffBaseStorage,
  StatusDiffBaseStorage,
} from "./src/settings/diffbase_storages.ts";
export type { OperatorSettingsInit } from "./src/settings/operator_settings.ts";
export type { StorageOptions } from "./src/settings/storage_options.ts";
export type {
  ProgressFetchArgs,
  ProgressPurgeArgs,
  ProgressRecord,
  ProgressStoreArgs,
  ProgressTouchArgs,
  StoragePatch,
} from "./src/settings/progress_storages.ts";
export type { DiffBaseBuildArgs, DiffBaseStoreArgs } from "./src/settings/diffbase_storages.ts";

// --- running an operator ---
export type { OperatorOptions } from "./src/reactor/operator_options.ts";
export type { OperatorTasks } from "./src/reactor/embedding.ts";
export type { Reconciler, ReconcilerOptions } from "./src/reactor/pipeline/reconciler.ts";
export type { Reconciliation } from "./src/reactor/pipeline/object_processing.ts";
export type { BodySource, LeavingEvent, ObjectEvent } from "./src/structs/bodies.ts";
export type { Clock } from "./src/structs/clock.ts";
export type { LogFormat, LogLevelSetting } from "./src/structs/log_formats.ts";

// --- logging in ---
export type { ConnectionInfo, LoginOptions } from "./src/structs/credentials.ts";

// --- events and hierarchies ---
export type { EventOptions } from "./src/engines/posting.ts";
export type {
  HierarchyOptions,
  ObjectLike,
  ObjectReference,
  OwnerReference,
} from "./src/kits/hierarchies.ts";
export type { ApplyOptions } from "./src/kits/applying.ts";
export type { ConditionInit } from "./src/kits/conditions.ts";

// --- admission webhooks: the servers, and what custom servers implement ---
export type {
  WebhookAutoServer,
  WebhookAutoTunnel,
  WebhookK3dServer,
  WebhookMinikubeServer,
  WebhookNgrokTunnel,
  WebhookServer,
} from "./src/kits/webhooks.ts";
export type { AdmissionRequestError } from "./src/engines/webhook_servers.ts";
export type { WebhookServerOptions } from "./src/kits/webhooks.ts";
export type {
  AdmissionServer,
  AdmissionServerContext,
  WebhookClientConfig,
  WebhookFn,
} from "./src/engines/webhook_servers.ts";
export type { AdmissionReviewResponse } from "./src/structs/admission_reviews.ts";
