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
