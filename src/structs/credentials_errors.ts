/**
 * Kept only so that older imports resolve: {@link LoginError} lives in `errors.ts`, with
 * the other public errors. Import it from there.
 *
 * @module
 */

export { LoginError } from "./errors.ts";
