/**
 * Everything public, gathered in one module: `mod.ts` exposes it both as the `kopf`
 * namespace object and as named exports. Each area adds its own section here.
 *
 * @module
 */

// --- structs: shared data shapes ---
export { Resource } from "./structs/resources.ts";
export type { ResourceInit, ResourceUrlOptions } from "./structs/resources.ts";
export type { ConnectionInfo } from "./structs/credentials.ts";
export type {
  JsonObject,
  JsonValue,
  RawBody,
  RawEvent,
  RawEventType,
  RawMeta,
  RawStatus,
  WatchEventType,
} from "./structs/bodies.ts";

// --- client: logins and API errors ---
export { loginWithKubeconfig } from "./client/kubeconfig.ts";
export type { KubeconfigLoginOptions } from "./client/kubeconfig.ts";
export type { LoginFunctionOptions } from "./structs/credentials.ts";
export { loginWithServiceAccount } from "./client/service_account.ts";
export type { ServiceAccountLoginOptions } from "./client/service_account.ts";
export { loginViaClient } from "./client/piggybacking.ts";
export type { ClientLoginOptions } from "./client/piggybacking.ts";
export { loginWithDefaults } from "./client/login.ts";
export type { DefaultLoginOptions } from "./client/login.ts";
export {
  APIBadRequestError,
  APICertificateError,
  APIClientError,
  APIConflictError,
  APIConnectionError,
  APIError,
  APIForbiddenError,
  APIGoneError,
  APIMethodNotAllowedError,
  APINotFoundError,
  APIResponseError,
  APIServerError,
  APITimeoutError,
  APITooManyRequestsError,
  APIUnauthorizedError,
  APIUnprocessableError,
  APIUnsupportedMediaTypeError,
} from "./client/api_errors.ts";
export type { APIErrorContext } from "./client/api_errors.ts";
export type { WatchItem } from "./client/watch.ts";

// --- settings: operator settings, progress and diff-base storages ---
export {
  AdmissionSettings,
  BackgroundSettings,
  BatchingSettings,
  NetworkingSettings,
  OperatorSettings,
  PeeringSettings,
  PersistenceSettings,
  PostingSettings,
  ScanningSettings,
  WatchingSettings,
} from "./settings/operator_settings.ts";
export type {
  AdmissionServerLike,
  OperatorSettingsInit,
  PostingLevel,
} from "./settings/operator_settings.ts";
export {
  AnnotationsProgressStorage,
  MultiProgressStorage,
  ProgressStorage,
  SmartProgressStorage,
  StatusProgressStorage,
} from "./settings/progress_storages.ts";
export type {
  AnnotationsProgressStorageOptions,
  MaybePromise,
  ProgressFetchArgs,
  ProgressPurgeArgs,
  ProgressRecord,
  ProgressStoreArgs,
  ProgressTouchArgs,
  SmartProgressStorageOptions,
  StatusProgressStorageOptions,
  StoragePatch,
} from "./settings/progress_storages.ts";
export {
  AnnotationsDiffBaseStorage,
  DiffBaseStorage,
  MultiDiffBaseStorage,
  StatusDiffBaseStorage,
} from "./settings/diffbase_storages.ts";
export type {
  AnnotationsDiffBaseStorageOptions,
  DiffBaseBuildArgs,
  DiffBaseStoreArgs,
  StatusDiffBaseStorageOptions,
} from "./settings/diffbase_storages.ts";

// --- logging, events and hierarchies ---
export { configure } from "./platform/logging.ts";
export type { LoggingOptions } from "./platform/logging.ts";
export type { LogFormat, LogLevelSetting, LogSeverity } from "./structs/log_formats.ts";
export { event, exception, info, warn } from "./engines/posting.ts";
export type { EventExceptionOptions, EventOptions, EventReasonOptions } from "./engines/posting.ts";
export {
  adjustNamespace,
  adopt,
  appendOwnerReference,
  buildObjectReference,
  buildOwnerReference,
  harmonizeNaming,
  label,
  removeOwnerReference,
} from "./kits/hierarchies.ts";
export type {
  AdjustNamespaceOptions,
  AdoptOptions,
  AppendOwnerReferenceOptions,
  HarmonizeNamingOptions,
  LabelOptions,
  NestedPaths,
  ObjectLike,
  ObjectMetaLike,
  ObjectOrObjects,
  ObjectReference,
  OwnerReference,
  OwnerReferenceOptions,
  RemoveOwnerReferenceOptions,
} from "./kits/hierarchies.ts";

// --- intents: handlers, selectors, filters and their arguments ---
export { ABSENT, EVERYTHING, PRESENT } from "./structs/markers.ts";
export type { Absent, Everything, Present } from "./structs/markers.ts";
export {
  AdmissionError,
  CertificateError,
  ConfigurationError,
  ErrorsMode,
  HandlerRetriesError,
  HandlerTimeoutError,
  KopfError,
  LoginError,
  PermanentError,
  StoredStateError,
  TemporaryError,
  UsageError,
} from "./structs/errors.ts";
export type {
  AdmissionErrorOptions,
  PermanentErrorOptions,
  TemporaryErrorOptions,
} from "./structs/errors.ts";
export type { Logger, LogProperties, ObjectLogger } from "./structs/loggers.ts";
export { Patch } from "./structs/patches.ts";
export type { JsonPatchOperation, MetaPatch, PatchSection } from "./structs/patches.ts";
export { diff } from "./structs/diffs.ts";
export type { Diff, DiffItem, DiffOperation } from "./structs/diffs.ts";
export type { FieldPath, FieldSpec } from "./structs/dicts.ts";
export type {
  Annotations,
  Body,
  BodyShape,
  DeepReadonly,
  Labels,
  Meta,
  ReadonlyJsonObject,
  ReadonlyJsonValue,
  Spec,
  Status,
} from "./structs/views.ts";
export { Memo } from "./structs/memos.ts";
export type { Index, IndexKey, IndexKeyPart, Store } from "./structs/indices.ts";
export { all, any, none, not } from "./structs/combinators.ts";
export type { Predicate } from "./structs/combinators.ts";
export type { DaemonStopped, DaemonStoppingReason } from "./structs/stoppers.ts";
export { Selector, SelectorError } from "./structs/selectors.ts";
export type {
  ResourceName,
  ResourcePredicate,
  Selection,
  SelectorKeywords,
} from "./structs/selectors.ts";
export { Reason } from "./intents/reasons.ts";
export type { Activity, HandlerReason, WebhookType } from "./intents/reasons.ts";
export type {
  ActivityKwargs,
  ChangingKwargs,
  DaemonKwargs,
  EventKwargs,
  IndexingKwargs,
  ResourceKwargs,
  RetryKwargs,
  TimerKwargs,
  WatchEvent,
  WebhookKwargs,
} from "./intents/kwargs.ts";
export { RegistrationError } from "./intents/handler_options.ts";
export type {
  ActivityOptions,
  ChangeFilterOptions,
  CommonOptions,
  CreateOptions,
  DaemonOptions,
  DeleteOptions,
  EventHandlerOptions,
  FieldOptions,
  FilterOptions,
  IndexOptions,
  ResumeOptions,
  RetryOptions,
  SubhandlerOptions,
  TimerOptions,
  UpdateOptions,
  WebhookOptions,
} from "./intents/handler_options.ts";
export type {
  FieldFilterValue,
  HandlerFilters,
  MatchData,
  MetaFilter,
  MetaFilterValue,
  ValueCallback,
  WhenCallback,
} from "./intents/filters.ts";
export { daemon, index, on, timer } from "./intents/registration.ts";
export type {
  ActivityHandlerFn,
  ActivityRegistrar,
  Awaitable,
  KwargsFamilies,
  KwargsFamily,
  NoIndices,
  OnNamespace,
  OptionFamilies,
  OptionFamily,
  OptionsOf,
  ResourceHandlerFn,
  ResourceRegistrar,
  ResourceRegistrarWithOptions,
} from "./intents/registration.ts";
export { execute, register, subhandler } from "./intents/subhandlers.ts";
export type { ExecuteOptions, SubhandlerFn } from "./intents/subhandlers.ts";
export { getDefaultRegistry, OperatorRegistry, setDefaultRegistry } from "./intents/registry.ts";
export type {
  ChangingCause,
  OperatorRegistryOptions,
  ResourceHandlers,
  WebhookRequest,
} from "./intents/registry.ts";
export type {
  ActivityHandler,
  BaseHandler,
  ChangingHandler,
  DaemonHandler,
  EventHandler,
  Handler,
  HandlerFn,
  HandlerKind,
  IndexingHandler,
  ResourceBoundHandler,
  RetryPolicy,
  TimerHandler,
  WebhookHandler,
} from "./intents/handlers.ts";

// --- running: the operator itself ---
export { operator, OperatorConfigurationError, run } from "./reactor/running.ts";
export type { OperatorOptions, RunOptions } from "./reactor/running.ts";
export { ActivityError } from "./engines/activities.ts";
export type { DefaultLogin } from "./engines/activities.ts";
export type { Outcome as HandlerOutcome } from "./handling/handler_states.ts";
export type { NamespacePattern } from "./reactor/namespaces.ts";
export type { Clock } from "./structs/clock.ts";

// --- admission: webhook servers and what custom servers implement ---
export {
  DEFAULT_WEBHOOK_PORT,
  detectLocalCluster,
  K3D_HOST,
  MINIKUBE_HOST,
  WebhookAutoServer,
  WebhookAutoTunnel,
  WebhookK3dServer,
  WebhookMinikubeServer,
  WebhookNgrokTunnel,
  WebhookServer,
} from "./kits/webhooks.ts";
export type {
  WebhookAutoTunnelOptions,
  WebhookNgrokTunnelOptions,
  WebhookServerOptions,
} from "./kits/webhooks.ts";
export { AdmissionRequestError } from "./engines/admission.ts";
export type {
  AdmissionOperation,
  AdmissionReviewResponse,
  AdmissionReviewVerdict,
} from "./structs/admission_reviews.ts";
export type {
  AdmissionServer,
  AdmissionServerContext,
  AdmissionServerFn,
  ClusterFacts,
  WebhookClientConfig,
  WebhookFn,
  WebhookRequestInfo,
} from "./engines/admission.ts";
