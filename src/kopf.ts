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
} from "./structs/bodies.ts";

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
} from "./settings/progress.ts";
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
} from "./settings/progress.ts";
export {
  AnnotationsDiffBaseStorage,
  DiffBaseStorage,
  MultiDiffBaseStorage,
  StatusDiffBaseStorage,
} from "./settings/diffbase.ts";
export type {
  AnnotationsDiffBaseStorageOptions,
  DiffBaseBuildArgs,
  DiffBaseStoreArgs,
  StatusDiffBaseStorageOptions,
} from "./settings/diffbase.ts";

// --- logging, events and hierarchies ---
export { configure } from "./platform/logging.ts";
export type { LoggingOptions } from "./platform/logging.ts";
export type { LogFormat, LogLevelSetting } from "./structs/log_formats.ts";
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
