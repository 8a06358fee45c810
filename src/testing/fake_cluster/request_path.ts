/**
 * The path of a request, read once at the entry so that authorization and routing see the
 * same one. Like kube-apiserver, the server does not clean paths: a path with an empty
 * segment (`//apis/...`, `/apis//apps/...`) or a segment that decodes to `.`, `..` or to
 * something with a `/` in it names no resource and is answered 404 (after authorization,
 * which reads the segments the same way routing does). Trailing slashes are dropped, as
 * the API server's router drops them. Dot segments spelled out (`/./`, `/../`, `%2e%2e`)
 * are resolved by the URL parser before the server sees the path, as a browser resolves
 * them, so they reach both authorization and routing already resolved.
 *
 * @module
 */
import { badRequest } from "./errors.ts";

/** A request's path, as authorization and routing both read it. */
export interface RequestPath {
  /** The path as sent, without trailing slashes: how errors name it. */
  readonly path: string;
  /** The path as sent, percent-decoded: what `nonResourceURLs` rules are matched against. */
  readonly decoded: string;
  /** The decoded segments, without trailing slashes (nor empty segments, if any). */
  readonly segments: readonly string[];
  /**
   * Why the path is not one the server serves (an empty, dot or slash-bearing segment), in
   * words for the 404, or `undefined` for a path in its canonical form.
   */
  readonly oddity: string | undefined;
}

/** The path of this URL, or a 400 when it is not properly percent-encoded. */
export function requestPathOf(url: URL): RequestPath {
  const raw = url.pathname;
  const encoded = raw.includes("%");
  let decoded = raw;
  try {
    if (encoded) decoded = decodeURIComponent(raw);
  } catch {
    throw badRequest(`the path ${raw} is not properly percent-encoded`);
  }
  const path = raw.replace(/\/+$/, "") || "/";
  const parts = path === "/" ? [] : path.split("/").slice(1);
  const segments: string[] = [];
  let empty = false;
  let oddity: string | undefined;
  for (const part of parts) {
    if (part === "") {
      empty = true;
      continue;
    }
    const segment = encoded ? decodeURIComponent(part) : part;
    if (segment === "." || segment === "..") oddity ??= `the path has a "${segment}" segment`;
    else if (segment.includes("/")) oddity ??= `the segment "${part}" has an encoded slash`;
    segments.push(segment);
  }
  if (empty) {
    oddity ??= `the path has an empty segment (a doubled slash); the server does not clean ` +
      `paths: send ${canonicalPath(segments)}`;
  }
  return { path, decoded, segments, oddity };
}

/** The canonical spelling of a path's segments, e.g. `/apis/apps/v1`. */
export function canonicalPath(segments: readonly string[]): string {
  return "/" + segments.map(encodeURIComponent).join("/");
}
