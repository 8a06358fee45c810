/**
 * The old and new essences of an object, as a handling cycle compares them: the stored
 * diff-base and the current essence, both without the progress storage's own fields, and
 * both with digests in place of sensitive values (`sensitive_fields.ts`): what is stored is
 * what is compared, so a change of a secret is seen without the secret being kept.
 *
 * @module
 */

import type { RawBody } from "../structs/bodies.ts";
import type { DiffBaseStorage } from "./diffbase_storages.ts";
import type { FieldSpec } from "./field_paths.ts";
import type { ProgressStorage } from "./progress_storages.ts";
import { isThenable } from "../structs/thenables.ts";
import { digestEssence, digestKey, sensitivePaths } from "./sensitive_fields.ts";

/** The storages involved (`settings.persistence`, or any object with both). */
export interface EssenceStorages {
  /** Where the last handled essence is kept. */
  readonly diffbaseStorage: DiffBaseStorage;
  /** Where progress is kept (its fields never count as changes). */
  readonly progressStorage: ProgressStorage;
  /** Fields kept as digests besides the Secrets' own; none if omitted. */
  readonly sensitiveFields?: readonly FieldSpec[];
}

/** The essences to diff: `old` is `null` when the object was never handled. */
export interface Essences {
  /** The last handled essence, or `null`; sensitive values as digests. */
  readonly old: RawBody | null;
  /**
   * The current essence, sensitive values as digests; store it as the new diff-base when
   * the cycle succeeds.
   */
  readonly new: RawBody;
  /**
   * The stored essence holds plain values where digests belong (Kopf or an older version
   * wrote it): store the new one even if nothing changed, so that they are gone.
   */
  readonly rewrite?: boolean;
}

/**
 * The stored and the current essence of `body`. `extraFields` are fields the handlers
 * watch beyond the essence (e.g. `status.phase` for field handlers on the status). Not a
 * promise when the diff-base storage answers synchronously (the built-in ones do): every
 * event of every object asks, and a promise would cost its objects and a turn each time.
 * A storage's error is thrown, or rejects the promise, as the storage's answer came.
 */
export function loadEssences(
  persistence: EssenceStorages,
  body: RawBody,
  extraFields: readonly FieldSpec[] = [],
): Essences | Promise<Essences> {
  const fetched = persistence.diffbaseStorage.fetch({ body });
  if (isThenable(fetched)) {
    return Promise.resolve(fetched).then((stored) =>
      essences(persistence, body, extraFields, stored)
    );
  }
  return essences(persistence, body, extraFields, fetched);
}

function essences(
  persistence: EssenceStorages,
  body: RawBody,
  extraFields: readonly FieldSpec[],
  stored: RawBody | null,
): Essences {
  const current = persistence.diffbaseStorage.build({ body, extraFields });
  const old = stored === null ? null : persistence.progressStorage.clear(stored);
  const fresh = persistence.progressStorage.clear(current);
  const paths = sensitivePaths(body, persistence.sensitiveFields);
  if (paths.length === 0) return { old, new: fresh };
  const key = digestKey(body);
  const digested = old === null ? null : digestEssence(old, paths, key, true);
  return {
    old: digested === null ? null : digested.essence,
    new: digestEssence(fresh, paths, key).essence,
    rewrite: digested?.plain ?? false,
  };
}
