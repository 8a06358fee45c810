/**
 * Why an operator's file or module failed to load, said where: for a syntax error (a
 * type-stripping one included) the file, line and column that the runtime names and a
 * code frame (the offending line and a caret under the column); for a throw at the top
 * level of a module, its stack without the framework's and the runtime's own frames.
 *
 * Deno names the place in the message of the `import()`'s error: its own code frame and
 * an `at file:///...:LINE:COL` line for syntax errors and missing imports, or a trailing
 * `at file:///...:LINE:COL` for a missing export. Node 22's type stripping frames it as
 * `,-[file:///...:LINE:COL]`; Node 20 does not say where at all. The frame here is made
 * from the file itself, so it looks the same whichever runtime found the error.
 *
 * @module
 */
import { KopfError } from "../structs/errors.ts";
import { readTextFileIfExists } from "../platform/files.ts";
import { denoVersion } from "../platform/process.ts";
import { filePathOf, modulePath } from "../platform/modules.ts";

/**
 * An operator's file or module failed to load: the message says which and why in one
 * line (with the place, where known); `details` are the lines to show after it.
 */
export class OperatorLoadError extends KopfError {
  /** The error's name. */
  override name = "OperatorLoadError";
  /** The code frame and the user's stack frames, one line each (may be empty). */
  readonly details: readonly string[];

  /** Make the error from its one-line message and the lines after it. */
  constructor(message: string, details: readonly string[], options?: ErrorOptions) {
    super(message, options);
    this.details = details;
  }
}

/** A place in a module. */
interface Place {
  readonly url: string;
  readonly line: number;
  readonly column: number;
  /**
   * How the column counts: in UTF-16 units as V8 counts (stacks, link errors), or as
   * Deno's diagnostics display it (code points, a tab as two).
   */
  readonly columns: "utf16" | "display";
}

/** One frame of a stack: who (if named) and where. */
interface Frame extends Place {
  readonly who: string | undefined;
}

/** A code frame's line is shown around its column when longer than this. */
const FRAME_WIDTH = 120;

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;
/** The marker that makes repeated imports fresh (see `loadSources`): not the user's. */
const FRESH = /[?&]kopf-run=\d+$/;
/** `    at file:///x.ts:3:13` alone on a line (Deno: syntax errors, missing imports). */
const LINE_PLACE = /^\s*at (\S+):(\d+):(\d+)\s*$/;
/** `... at file:///x.ts:1:10` at the end of the first line (Deno: missing exports). */
const TRAILING_PLACE = /\s+at ((?:file|https?):\S+):(\d+):(\d+)$/;
/** `,-[file:///x.ts:2:1]` (the frames of Node's type stripping). */
const BRACKETED_PLACE = /,-\[(\S+):(\d+):(\d+)\]/;
/** A frame of a V8 stack: `at who (url:line:col)` or `at url:line:col`. */
const STACK_FRAME = /^\s*at (?:(.*?) \()?((?:[a-z][\w+.-]*:)[^()\s]*?):(\d+):(\d+)\)?\s*$/;
/** The runtimes' own modules. */
const RUNTIME = /^(ext|node|deno|internal|bun):/;

/**
 * Where the framework's own modules are, for a URL of this module: the `src/` directory of
 * the checkout or package it is in, else (a bundle) the bundle's directory.
 */
function frameworkOf(url: string): string {
  const source = /\/src\/commands\/load_errors\.[jt]s$/.exec(url);
  return source
    ? url.slice(0, source.index + "/src/".length)
    : url.slice(0, url.lastIndexOf("/") + 1);
}

let framework: readonly string[] | undefined;

/**
 * The framework's own modules, by the URL this module runs from and by the URL a stack names
 * it by: a bundle with source maps (the JSR package) runs from its chunks, and its stacks
 * name the sources published beside them. Found at the first error explained, not at the
 * start: a stack read at the start would have Deno read the source maps then.
 */
function frameworkPrefixes(): readonly string[] {
  if (framework !== undefined) return framework;
  const own = STACK_FRAME.exec(new Error().stack?.split("\n")[1]?.replace(ANSI, "") ?? "");
  const urls = [import.meta.url, ...own === null ? [] : [clean(own[2])]];
  return framework = [...new Set(urls.map(frameworkOf))];
}

function clean(url: string): string {
  return url.replace(FRESH, "");
}

/** Where the runtime's message says the error is, if it does. */
function placeInMessage(message: string): Place | undefined {
  const lines = message.split("\n");
  const diagnostic = lines.map((line) => LINE_PLACE.exec(line)).find((m) => m !== null) ??
    BRACKETED_PLACE.exec(message);
  const match = diagnostic ?? TRAILING_PLACE.exec(lines[0]);
  if (!match) return undefined;
  const columns = diagnostic ? "display" : "utf16";
  return { url: clean(match[1]), line: Number(match[2]), column: Number(match[3]), columns };
}

/** The first line of an error's message, its `at ...` place left out, its URLs made paths. */
export function firstLineOf(error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).replace(ANSI, "");
  const first = message.split("\n")[0].replace(TRAILING_PLACE, "").trim();
  return first.replace(/file:\/\/[^\s"'`)\]]+/g, (url) => modulePath(clean(url)));
}

/** The message's first line, named as the error (e.g. `SyntaxError: ...`). */
function headline(error: unknown): string {
  const readable = firstLineOf(error);
  const name = error instanceof Error ? error.name : "Error";
  // Deno's syntax errors come as a TypeError whose message starts with "SyntaxError: ".
  return /^[A-Z]\w*(Error|Exception)\b/.test(readable) ? readable : `${name}: ${readable}`;
}

/** The frames of a stack that are the user's: neither the runtime's nor the framework's. */
function userFrames(stack: string): Frame[] {
  const frames: Frame[] = [];
  for (const line of stack.replace(ANSI, "").split("\n")) {
    const m = STACK_FRAME.exec(line);
    if (!m) continue;
    const url = clean(m[2]);
    if (RUNTIME.test(url) || frameworkPrefixes().some((p) => url.startsWith(p))) continue;
    frames.push({ who: m[1], url, line: Number(m[3]), column: Number(m[4]), columns: "utf16" });
  }
  // What called the user's modules (the loader, the command line's packages) is not theirs.
  const own = (frame: Frame) =>
    frame.url.startsWith("file:") && !/[\\/](node_modules|npm)[\\/]/.test(frame.url);
  let last = frames.length - 1;
  while (last >= 0 && !own(frames[last])) last--;
  return last < 0 ? frames : frames.slice(0, last + 1);
}

/** `<what> at path:line:col`, the period of a sentence before the place left out. */
function at(what: string, place: Place): string {
  return `${what.replace(/\.$/, "")} at ${where(place)}`;
}

/** `path:line:col`, as editors and terminals open it. */
function where(place: Place): string {
  return `${modulePath(place.url)}:${place.line}:${place.column}`;
}

/** Where in the line (a string index) the place's column is. */
function indexOf(source: string, place: Place): number {
  if (place.columns === "utf16") return Math.max(0, Math.min(place.column - 1, source.length));
  let display = 0;
  let index = 0;
  for (const char of source) {
    if (display >= place.column - 1) break;
    display += char === "\t" ? 2 : 1;
    index += char.length;
  }
  return index;
}

/** A place, its code frame, and the place as editors count columns (in characters). */
interface Framed {
  readonly place: Place;
  readonly frame: readonly string[];
}

/** The offending line of the file and a caret under the column; no frame if unreadable. */
async function codeFrame(place: Place): Promise<Framed> {
  const path = filePathOf(place.url);
  const text = path === undefined
    ? undefined
    : await readTextFileIfExists(path).catch(() => undefined);
  const source = text?.split(/\r?\n/)[place.line - 1];
  if (source === undefined) return { place, frame: [] };
  const index = indexOf(source, place);
  let from = 0;
  if (source.length > FRAME_WIDTH) from = Math.max(0, index - FRAME_WIDTH / 2);
  const shown = (from > 0 ? "\u2026" : "") + source.slice(from, from + FRAME_WIDTH) +
    (from + FRAME_WIDTH < source.length ? "\u2026" : "");
  // Tabs stay tabs under the line, so that the caret lands where the terminal shows it.
  const before = (from > 0 ? " " : "") + source.slice(from, index).replace(/[^\t]/g, " ");
  const number = String(place.line);
  const gutter = " ".repeat(number.length);
  return {
    place: { ...place, column: index + 1, columns: "utf16" },
    frame: [`  ${number} | ${shown}`, `  ${gutter} | ${before}^`],
  };
}

/**
 * The error to report for a source that failed to load: its name, what went wrong and
 * where, with the code frame and the user's stack frames as details.
 */
export async function describeLoadFailure(
  name: string,
  error: unknown,
): Promise<OperatorLoadError> {
  const raw = error instanceof Error ? error.message : String(error);
  const message = raw.replace(ANSI, "");
  const what = headline(error);
  const place = placeInMessage(message);
  if (place !== undefined) {
    const framed = await codeFrame(place);
    return new OperatorLoadError(`Cannot load ${name}: ${at(what, framed.place)}`, framed.frame, {
      cause: error,
    });
  }
  const stack = error instanceof Error ? error.stack ?? "" : "";
  const frames = userFrames(stack);
  if (frames.length === 0) {
    const hint = error instanceof SyntaxError && denoVersion() === undefined
      ? " (Node does not say where; `node --check FILE` does, file by file)"
      : "";
    return new OperatorLoadError(`Cannot load ${name}: ${what}${hint}`, [], { cause: error });
  }
  const details = [
    ...(await codeFrame(frames[0])).frame,
    ...frames.map((f) => `    at ${f.who ? `${f.who} (${where(f)})` : where(f)}`),
  ];
  return new OperatorLoadError(`Cannot load ${name}: ${at(what, frames[0])}`, details, {
    cause: error,
  });
}
