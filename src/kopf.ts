/**
 * The runtime values of `@kopf/kopf`: what `mod.ts` exposes as the `kopf` namespace
 * object -- the registration functions, markers, errors, settings and storages, the
 * operator itself, logins, events, hierarchies, server-side apply, status conditions and
 * webhook servers.
 * The types that an operator author writes in signatures are exported by name from
 * `mod.ts` instead, so each public name is reached one way: a value as `kopf.<name>`, a
 * type as `<Name>` (a class is both: `new kopf.OperatorSettings()`,
 * `settings: OperatorSettings`).
 *
 * Internals stay out: the processing, queueing and observation, the handler records and
 * the registry's matching, the client's building blocks (behind `@kopf/kopf/client`) and
 * the fake cluster's (behind `@kopf/kopf/testing`).
 *
 * @module
 */

// --- registering handlers ---
export { daemon, index, on, timer } from "./intents/registration.ts";
export { register, subhandler } from "./intents/subhandlers.ts";
export { execute } from "./handling/subhandler_execution.ts";
export { lifecycles, setDefaultLifecycle } from "./intents/lifecycles.ts";
export { ABSENT, EVERYTHING, PRESENT } from "./structs/markers.ts";
export { resource } from "./structs/resource_selectors.ts";
export { all, any, none, not } from "./structs/combinators.ts";
export { getDefaultRegistry, OperatorRegistry, setDefaultRegistry } from "./intents/registry.ts";

// --- what handlers receive ---
export { Reason } from "./intents/reasons.ts";
export { Resource } from "./structs/resources.ts";
export { Memo } from "./structs/memos.ts";
export { LocalObjectLogger } from "./handling/object_loggers.ts";

// --- errors: those handlers raise, and those the framework reports ---
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
export { SelectorError } from "./structs/resource_selectors.ts";
export { RegistrationError } from "./intents/handler_options.ts";
export {
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
} from "./client/api_errors.ts";
export {
  APICertificateError,
  APIConnectionError,
  APIOutcomeUnknownError,
  APIResponseError,
  APITimeoutError,
} from "./client/connection_errors.ts";
export { ActivityError } from "./engines/activities.ts";
export { PeeringConfigurationError } from "./engines/peering_errors.ts";
export { OperatorConfigurationError } from "./reactor/operator_options.ts";

// --- settings and storages ---
export {
  AdmissionSettings,
  EndpointSettings,
  LeadershipSettings,
  PeeringSettings,
} from "./settings/cluster_settings.ts";
export {
  ApplyingSettings,
  ConditionsSettings,
  PostingSettings,
} from "./settings/output_settings.ts";
export {
  BackgroundSettings,
  BatchingSettings,
  PersistenceSettings,
} from "./settings/processing_settings.ts";
export { NetworkingSettings, ScanningSettings, WatchingSettings } from "./settings/api_settings.ts";
export { OperatorSettings } from "./settings/operator_settings.ts";
export { QueueingSettings } from "./settings/queueing_settings.ts";
export {
  AnnotationsProgressStorage,
  StatusProgressStorage,
} from "./settings/object_progress_storages.ts";
export { MultiProgressStorage, SmartProgressStorage } from "./settings/multi_progress_storages.ts";
export { ProgressStorage } from "./settings/progress_storages.ts";
export {
  AnnotationsDiffBaseStorage,
  DiffBaseStorage,
  MultiDiffBaseStorage,
  StatusDiffBaseStorage,
} from "./settings/diffbase_storages.ts";

// --- running an operator ---
export { operator, run } from "./reactor/running.ts";
export { runTasks, spawnTasks } from "./reactor/embedding.ts";
export { reconciler } from "./reactor/pipeline/reconciler.ts";
export { configure } from "./platform/logging.ts";

// --- logging in ---
export { loginWithDefaults, loginWithKubeconfig } from "./client/login.ts";
export { loginWithServiceAccount } from "./client/service_account.ts";
export { loginViaClient } from "./client/piggybacking.ts";

// --- events and hierarchies ---
export { event, exception, info, warn } from "./engines/posting.ts";
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
export { apply } from "./kits/applying.ts";
export { setCondition } from "./kits/conditions.ts";

// --- admission webhooks: the servers, and what custom servers implement ---
export {
  WebhookAutoServer,
  WebhookAutoTunnel,
  WebhookK3dServer,
  WebhookMinikubeServer,
  WebhookNgrokTunnel,
  WebhookServer,
} from "./kits/webhooks.ts";
export { AdmissionRequestError } from "./engines/webhook_servers.ts";
