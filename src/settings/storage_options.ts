/**
 * The options of the built-in progress and diff-base storages, as one documented list.
 *
 * @module
 */

import type { FieldSpec } from "./field_paths.ts";

/**
 * Options of the built-in storages. Each constructor takes those it reads: the
 * annotations storages `prefix`, `v1` and their keys, the status storages `name` and
 * their fields; `SmartProgressStorage` those of both progress storages.
 */
export interface StorageOptions {
  /** The annotations prefix; `kopf.zalando.org` by default. */
  prefix?: string;
  /** Also write and read the V1 keys (see the conventions); on by default, as in Kopf. */
  v1?: boolean;
  /** Progress in annotations: keep `null` fields in the stored JSON (Kopf's `verbose`); off by default. */
  verbose?: boolean;
  /** Progress in annotations: the name of the touch annotation; `touch-dummy` by default. */
  touchKey?: string;
  /** Diff-base in an annotation: its name; `last-handled-configuration` by default. */
  key?: string;
  /** Substituted for `{name}` in the status fields; `kopf` by default. */
  name?: string;
  /**
   * The status field: of the progress records, `status.{name}.progress` by default; of the
   * diff-base, `status.{name}.last-handled-configuration`.
   */
  field?: FieldSpec;
  /** Progress in the status: where the touch mark lives; `status.{name}.dummy` by default. */
  touchField?: FieldSpec;
}
