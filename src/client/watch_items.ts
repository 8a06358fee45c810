/**
 * What a watch yields: live events, and listings whole or in parts.
 *
 * @module
 */
import type { RawBody } from "../structs/bodies.ts";

/**
 * What a watch yields: live events, and the full state after every (re)listing -- in one
 * `LISTED` item, or (with `listParts`) in `LISTING` parts completed by a `LISTED` item.
 */
export type WatchItem =
  | { type: "ADDED" | "MODIFIED" | "DELETED"; object: RawBody }
  | {
    /** A part of a listing in progress (only with `listParts`). */
    type: "LISTING";
    objects: RawBody[];
    /** False when this part begins a listing: parts of an unfinished one are void. */
    continued: boolean;
  }
  | {
    /** A listing is complete: the objects of its `LISTING` parts and these are all there are. */
    type: "LISTED";
    objects: RawBody[];
    resourceVersion: string;
    /** True when `LISTING` parts of this listing came before; false or absent otherwise. */
    continued?: boolean;
  };

/** What a watch yields when listings come whole: no `LISTING` parts. */
export type WholeWatchItem = Exclude<WatchItem, { type: "LISTING" }>;
