/**
 * What the `undici` package reads from the environment when it loads, kept apart from the
 * HTTP client that loads it so that the permission planning can list it without
 * depending on the client.
 *
 * @module
 */

/**
 * The environment variables `undici` reads when it loads (on Deno, only insecure mode
 * loads it): a program with a narrow `--allow-env=...` list must include them.
 */
export const UNDICI_ENV_VARIABLES: readonly string[] = Object.freeze([
  "JEST_WORKER_ID",
  "UNDICI_NO_WASM_SIMD",
]);
