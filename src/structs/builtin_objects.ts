/**
 * The shapes of the built-in objects whose top-level fields operators read most, by the
 * plural name a test or a child handler names them with: what `FakeCluster.get("configmaps",
 * ...)` returns and what `kopf.on.child(parent, "configmaps", ...)` gets as `child`, typed
 * without a cast or a model package. Other resources' objects are raw bodies.
 *
 * @module
 */
import type { RawBody, RawMeta } from "./bodies.ts";

/** The built-in objects typed by plural name; see the module. */
export interface BuiltinObjects {
  /** A ConfigMap: string data by key. */
  configmaps: RawBody & {
    metadata: RawMeta;
    data?: Record<string, string>;
    binaryData?: Record<string, string>;
    immutable?: boolean;
  };
  /** A Secret: base64 data by key (`stringData` on writes), and its type. */
  secrets: RawBody & {
    metadata: RawMeta;
    type?: string;
    data?: Record<string, string>;
    stringData?: Record<string, string>;
    immutable?: boolean;
  };
  /** A core Event: what happened to which object. */
  events: RawBody & {
    metadata: RawMeta;
    type?: string;
    reason?: string;
    message?: string;
    count?: number;
    involvedObject?: Record<string, string>;
  };
}
