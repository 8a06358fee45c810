/**
 * The proxy variables of Deno's `fetch`, kept apart from the HTTP client that reads them
 * so that the permission planning can list them without depending on the client.
 *
 * @module
 */

/**
 * The environment variables through which Deno's `fetch` sends requests to a proxy. The
 * HTTP client reads them (when granted) to know whether its own transport of writes, which
 * speaks to the server directly, may be used.
 */
export const PROXY_ENV_VARIABLES: readonly string[] = Object.freeze([
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "all_proxy",
]);
