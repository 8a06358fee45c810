/**
 * The answer of a request that returns an object (a write's, mostly), kept as its text: the
 * object's `metadata.resourceVersion` is read out of it at once without parsing it, and the
 * object is parsed only when first asked for. What a write needs of its answer is mostly the
 * version it produced; parsing the whole object -- its managed fields, its status -- for every
 * write was a few percent of an operator's CPU, and garbage.
 *
 * @module
 */

import type { RawBody } from "../structs/bodies.ts";
import { memberString } from "../structs/json_members.ts";
import { APIResponseError } from "./connection_errors.ts";

/** What the request was and how it was answered, for the error of an answer not JSON. */
interface Answered {
  readonly text: string;
  readonly fullPath: string;
  readonly status: number;
}

/** No text: for answers parsed already. */
const NOTHING: Answered = Object.freeze({ text: "", fullPath: "", status: 200 });

/** An object answered by the API server; see the module docs. */
export class ObjectAnswer {
  /** The object's `metadata.resourceVersion`, if it has one. */
  readonly resourceVersion: string | undefined;
  #answered: Answered | undefined;
  readonly #method: string;
  #body: RawBody | undefined;

  /** The answer to a request of this method, as received (or as parsed already). */
  constructor(answered: Answered, method: string, parsed?: RawBody) {
    this.#method = method;
    if (parsed !== undefined || !answered.text) {
      this.#body = parsed;
      this.resourceVersion = parsed?.metadata?.resourceVersion;
      return;
    }
    this.#answered = answered;
    this.resourceVersion = memberString(answered.text, "metadata", "resourceVersion") ??
      this.body?.metadata?.resourceVersion;
  }

  /** An answer parsed already (by a stand-in of the client). */
  static parsed(body: RawBody | undefined): ObjectAnswer {
    return new ObjectAnswer(NOTHING, "", body);
  }

  /**
   * The object, parsed when first asked for (`undefined` for an empty answer). An answer that
   * is not JSON throws an `APIResponseError`, as the request itself would have.
   */
  get body(): RawBody | undefined {
    const answered = this.#answered;
    if (answered === undefined) return this.#body;
    this.#body = parseAnswer<RawBody>(
      answered.text,
      answered.status,
      this.#method,
      answered.fullPath,
    );
    this.#answered = undefined;
    return this.#body;
  }
}

/**
 * The JSON of an answer's text, or an `APIResponseError` that names the request if it is not
 * JSON: what the client's requests make of their answers.
 */
export function parseAnswer<T>(text: string, status: number, method: string, path: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new APIResponseError(status, text, { method, path }, { cause: error });
  }
}
