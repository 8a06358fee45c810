/**
 * Handlers' results on their way to the status: each result copied once as plain data
 * (views of the body become the data they show; what the status cannot hold is refused),
 * then delivered into the patch as `status.<id>`.
 *
 * Apart from the handlers' progress (`handler_progress.ts`, `handler_states.ts`): the
 * results go to the status whichever storage keeps the progress.
 *
 * @module
 */

import { isMapping } from "../structs/dicts.ts";
import { PermanentError } from "../structs/errors.ts";
import { Patch } from "../structs/patches.ts";
import type { StoragePatch } from "../settings/progress_storages.ts";
import { messageOf, type Outcome } from "./handler_progress.ts";

/**
 * Deliver handlers' results into the patch: a returned object is merged into
 * `status.<id>`, any other value (except `undefined`) replaces it; failures deliver nothing.
 * The results are copied (see {@link plainResult}) unless `copied` says they already are
 * private plain copies.
 */
export function deliverResults(
  outcomes: ReadonlyMap<string, Outcome> | Record<string, Outcome>,
  patch: StoragePatch,
  copied: boolean = false,
): void {
  const entries = outcomes instanceof Map ? outcomes : Object.entries(outcomes);
  for (const [id, outcome] of entries) {
    const failed = outcome.error !== undefined && outcome.error !== null;
    if (failed || outcome.result === undefined) continue;
    const status = patch instanceof Patch
      ? patch.status
      : ((patch as Record<string, unknown>).status ??= {}) as Record<string, unknown>;
    const result = copied ? outcome.result : copyResult(id, outcome.result);
    const current = status[id];
    status[id] = isMapping(result) ? { ...(isMapping(current) ? current : {}), ...result } : result;
  }
}

/** The result as {@link plainResult} copies it, refusing what cannot be stored clearly. */
function copyResult(id: string, result: unknown): unknown {
  try {
    return plainResult(result);
  } catch (error) {
    throw new TypeError(
      `The result of handler ${JSON.stringify(id)} cannot be stored in the status ` +
        `(${messageOf(error)}); return plain JSON data (objects, arrays, strings, numbers).`,
    );
  }
}

/**
 * The result as it goes to the status: a private plain copy (made once; the delivery takes
 * it as it is). When it cannot be stored (e.g. a function or a bigint), the handler fails
 * for good with a message saying so, rather than failing every cycle after it.
 */
export function storableResult(result: unknown): unknown {
  try {
    return plainResult(result); // views of the body (`return spec`) become data
  } catch (error) {
    throw new PermanentError(
      `its result cannot be stored in the status (${
        error instanceof Error ? error.message : String(error)
      }); return plain JSON data (objects, arrays, strings, numbers, booleans, null)`,
    );
  }
}

/**
 * A deep copy of a handler's result as plain data, in one walk: views of the body become
 * the data they show; other objects (dates, class instances) are cloned structurally.
 * Throws what cannot be stored in the status: functions, symbols, bigints, cycles.
 */
export function plainResult(value: unknown): unknown {
  return copyPlain(value, []);
}

function copyPlain(value: unknown, ancestors: object[]): unknown {
  switch (typeof value) {
    case "function":
    case "symbol":
    case "bigint":
      throw new TypeError(`a ${typeof value} cannot be stored`);
    case "object":
      if (value === null) return value;
      break;
    default:
      return value;
  }
  if (ancestors.includes(value)) throw new TypeError("a circular structure cannot be stored");
  const isArray = Array.isArray(value);
  const proto = Object.getPrototypeOf(value);
  if (!isArray && proto !== Object.prototype && proto !== null) {
    JSON.stringify(value); // throws as serialising the status would (e.g. for a bigint)
    return structuredClone(value); // throws for what cannot be cloned (e.g. functions)
  }
  ancestors.push(value);
  let copy: unknown;
  if (isArray) {
    const items = value as readonly unknown[];
    const out: unknown[] = [];
    for (let i = 0; i < items.length; i++) out.push(copyPlain(items[i], ancestors));
    copy = out;
  } else {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      out[key] = copyPlain((value as Record<string, unknown>)[key], ancestors);
    }
    copy = out;
  }
  ancestors.pop();
  return copy;
}
