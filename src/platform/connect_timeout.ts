/**
 * The error of a connection not made in time, shared by the HTTP clients of this layer.
 *
 * @module
 */

/** The connection could not be established within the connect timeout. */
export class ConnectTimeoutError extends Error {
  override name = "ConnectTimeoutError";
}
