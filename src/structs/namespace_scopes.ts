/**
 * Namespace scopes: which namespaces an operator serves.
 *
 * A scope is either cluster-wide (one cluster-level watch per resource) or a list of
 * namespace patterns. Each pattern is a comma-separated list of globs (`*`, `?`, and
 * character classes such as `[a-c]` or `[!x]`), where a glob starting with `!`
 * excludes. The first glob of a pattern decides: a namespace it does not match is not
 * matched by the pattern at all; when the first glob is a negation, a catch-all `*`
 * is assumed in front of it. Later globs are applied left to right: a negation
 * excludes a namespace, an inclusion re-includes it (only if the first glob matched).
 * A namespace is served when any of the patterns matches it. A `RegExp` can be given
 * instead of a string pattern and must match the whole name.
 *
 * @module
 */

import { ConfigurationError } from "./errors.ts";

/** A namespace pattern: a glob list as described in the module docs, or a `RegExp`. */
export type NamespacePattern = string | RegExp;

/** Where an operator looks for objects. */
export type Scope =
  | { readonly clusterwide: true }
  | { readonly clusterwide: false; readonly namespaces: readonly NamespacePattern[] };

/** Build a scope from the usual operator options (`clusterwide`, `namespaces`). */
export function makeScope(
  options: { clusterwide?: boolean; namespaces?: readonly NamespacePattern[] },
): Scope {
  const namespaces = options.namespaces ?? [];
  if (options.clusterwide && namespaces.length > 0) {
    throw new ConfigurationError(
      "Either serve the whole cluster (clusterwide) or a list of namespaces, not both.",
    );
  }
  if (options.clusterwide) return { clusterwide: true };
  return { clusterwide: false, namespaces: [...namespaces] };
}

/**
 * Whether the namespaces of the scope must be discovered by watching the cluster's
 * namespaces: true when a pattern can match more than its own literal name.
 */
export function needsNamespaceWatching(scope: Scope): boolean {
  if (scope.clusterwide) return false;
  return scope.namespaces.some((pattern) => literalNameOf(pattern) === undefined);
}

/** Whether a namespace is served by the scope (always so for a cluster-wide scope). */
export function isServedNamespace(name: string, scope: Scope): boolean {
  if (scope.clusterwide) return true;
  return scope.namespaces.some((pattern) => matchNamespace(name, pattern));
}

/** Whether a namespace matches one pattern, by the rules in the module docs. */
export function matchNamespace(name: string, pattern: NamespacePattern): boolean {
  if (pattern instanceof RegExp) return fullMatch(pattern, name);
  const globs = pattern.split(",").map((glob) => glob.trim());
  if (globs[0].startsWith("!")) globs.unshift("*");
  const firstMatch = compileGlob(globs[0]).test(name);
  let matches = firstMatch;
  for (const glob of globs.slice(1)) {
    if (glob.startsWith("!")) {
      matches = matches && !compileGlob(glob.slice(1)).test(name);
    } else {
      matches = matches || (firstMatch && compileGlob(glob).test(name));
    }
  }
  return matches;
}

/**
 * The patterns that name exactly one namespace, as those names. They are what an
 * operator serves when it may not list the cluster's namespaces: globs, negations and
 * lists cannot be resolved then, so they are left out.
 */
export function literalNamespaces(patterns: readonly NamespacePattern[]): string[] {
  const names = new Set<string>();
  for (const pattern of patterns) {
    const name = literalNameOf(pattern);
    if (name !== undefined) names.add(name);
  }
  return [...names];
}

/** The one namespace a pattern names literally, or `undefined` for real patterns. */
function literalNameOf(pattern: NamespacePattern): string | undefined {
  if (pattern instanceof RegExp) return undefined;
  const name = pattern.trim();
  return name === "" || /[,!*?[\]]/.test(name) ? undefined : name;
}

/** Anchored copies of the scope's regular expressions, whose source and flags never change. */
const anchoredCopies = new WeakMap<RegExp, RegExp>();

function fullMatch(pattern: RegExp, name: string): boolean {
  // An anchored copy without `g`/`y`, so that the caller's `lastIndex` never matters.
  let anchored = anchoredCopies.get(pattern);
  if (anchored === undefined) {
    anchored = new RegExp(`^(?:${pattern.source})$`, pattern.flags.replace(/[gy]/g, ""));
    anchoredCopies.set(pattern, anchored);
  }
  return anchored.test(name);
}

const compiled = new Map<string, RegExp>();

/** Compile one glob (no commas, no leading `!`) into an anchored regular expression. */
export function compileGlob(glob: string): RegExp {
  let re = compiled.get(glob);
  if (re === undefined) {
    re = new RegExp(`^${globToRegExpSource(glob)}$`, "s");
    if (compiled.size >= 1024) compiled.clear(); // patterns are few; bound it anyway
    compiled.set(glob, re);
  }
  return re;
}

/**
 * Translate a shell-style glob to a regular expression source: `*` is any run of
 * characters, `?` any one character, `[...]` a class with ranges (`[!...]` negates, a
 * leading `]` is literal), and an unclosed `[` is a literal bracket.
 */
function globToRegExpSource(glob: string): string {
  let out = "";
  let i = 0;
  while (i < glob.length) {
    const c = glob[i++];
    if (c === "*") {
      out += ".*";
      while (glob[i] === "*") i++;
    } else if (c === "?") {
      out += ".";
    } else if (c === "[") {
      const end = classEnd(glob, i);
      if (end < 0) {
        out += "\\[";
      } else {
        out += classToRegExp(glob.slice(i, end));
        i = end + 1;
      }
    } else {
      out += escapeChar(c);
    }
  }
  return out;
}

/** The index of the `]` closing a class whose body starts at `start`, or -1. */
function classEnd(glob: string, start: number): number {
  let j = start;
  if (glob[j] === "!") j++;
  if (glob[j] === "]") j++; // a leading `]` is a member, not the end
  const end = glob.indexOf("]", j);
  return end;
}

/** A class body (between the brackets) as a regular expression class. */
function classToRegExp(body: string): string {
  let negate = false;
  let i = 0;
  if (body[0] === "!") {
    negate = true;
    i = 1;
  }
  const members: string[] = [];
  while (i < body.length) {
    const lo = body[i];
    if (body[i + 1] === "-" && i + 2 < body.length) {
      const hi = body[i + 2];
      // A reversed range like `z-a` holds nothing (as in Python's fnmatch).
      if (lo <= hi) members.push(`${escapeClassChar(lo)}-${escapeClassChar(hi)}`);
      i += 3;
    } else {
      members.push(escapeClassChar(lo));
      i += 1;
    }
  }
  if (members.length === 0) return negate ? "." : "(?!)";
  return `[${negate ? "^" : ""}${members.join("")}]`;
}

function escapeChar(c: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(c) ? `\\${c}` : c;
}

function escapeClassChar(c: string): string {
  return /[\\\]^[-]/.test(c) ? `\\${c}` : c;
}

/** The scope as a log line says it: `the whole cluster`, `the namespaces default, team-*`. */
export function describeScope(scope: Scope): string {
  if (scope.clusterwide) return "the whole cluster";
  const names = scope.namespaces.map((pattern) => String(pattern));
  return `the namespace${names.length === 1 ? "" : "s"} ${names.join(", ")}`;
}
