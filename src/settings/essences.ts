/**
 * The old and new essences of an object, as a handling cycle compares them: the stored
 * diff-base and the current essence, both without the progress storage's own fields.
 *
 * @module
 */

import type { RawBody } from "../structs/bodies.ts";
import type { DiffBaseStorage } from "./diffbase_storages.ts";
import type { FieldSpec } from "./field_paths.ts";
import type { ProgressStorage } from "./progress_storages.ts";
import { isThenable } from "../structs/thenables.ts";

/** The storages involved (`settings.persistence`, or any object with both). */
export interface EssenceStorages {
  /** Where the last handled essence is kept. */
  readonly diffbaseStorage: DiffBaseStorage;
  /** Where progress is kept (its fields never count as changes). */
  readonly progressStorage: ProgressStorage;
}

/** The essences to diff: `old` is `null` when the object was never handled. */
export interface Essences {
  /** The last handled essence, or `null`. */
  readonly old: RawBody | null;
  /** The current essence; store it as the new diff-base when the cycle succeeds. */
  readonly new: RawBody;
}

/**
 * The stored and the current essence of `body`. `extraFields` are fields the handlers
 * watch beyond the essence (e.g. `status.phase` for field handlers on the status).
 */
export function loadEssences(
  persistence: EssenceStorages,
  body: RawBody,
  extraFields: readonly FieldSpec[] = [],
): Promise<Essences> {
  // Not an async function: a sync diff-base storage (the built-in ones) costs no turn.
  try {
    const fetched = persistence.diffbaseStorage.fetch({ body });
    if (isThenable(fetched)) {
      return Promise.resolve(fetched).then((stored) =>
        essences(persistence, body, extraFields, stored)
      );
    }
    return Promise.resolve(essences(persistence, body, extraFields, fetched));
  } catch (error) {
    return Promise.reject(error);
  }
}

function essences(
  persistence: EssenceStorages,
  body: RawBody,
  extraFields: readonly FieldSpec[],
  stored: RawBody | null,
): Essences {
  const current = persistence.diffbaseStorage.build({ body, extraFields });
  return {
    old: stored === null ? null : persistence.progressStorage.clear(stored),
    new: persistence.progressStorage.clear(current),
  };
}
