/**
 * Causes for the tests of handler selection: a reason and a body, with the rest of a cause
 * (not initial, not deleted, a creation unless `old` is given, the diff between the two).
 */
import type { CauseMatch } from "../../src/intents/handler_matching.ts";
import { diff } from "../../src/structs/diffs.ts";

/** A cause of the given reason, body and states, with what else a cause holds by default. */
export function causeOf(
  fields: Pick<CauseMatch, "reason" | "body"> & Partial<Omit<CauseMatch, "old" | "new">> & {
    readonly old?: unknown;
    readonly new?: unknown;
  },
): CauseMatch {
  const old = (fields.old ?? null) as CauseMatch["old"];
  const now = (fields.new ?? fields.body) as CauseMatch["new"];
  return { initial: false, deleted: false, diff: diff(old, now), ...fields, old, new: now };
}
