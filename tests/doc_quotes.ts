/**
 * The output that the docs quote: a doc's backquoted spans, and a quote as the pattern of a
 * printed line (`…` standing for any text).
 */
import { assert } from "./assert.ts";

const DOCS = new URL("../docs/", import.meta.url);

/** A code span: a run of backquotes, its text, and a run of as many (CommonMark's rule). */
const SPAN = /(?<!`)(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g;

/**
 * The backquoted spans of a doc (a path under docs/, or `../README.md`) that start with
 * `prefix`; spans of two backquotes may hold single ones.
 */
export async function quotes(doc: string, prefix: string): Promise<string[]> {
  const text = (await Deno.readTextFile(new URL(doc, DOCS)))
    .replace(/```[\s\S]*?```/g, "") // code blocks: their backquotes are no spans
    .replace(/\n\s*/g, " ");
  return [...text.matchAll(SPAN)]
    .map((m) => /^ .*\S.* $/.test(m[2]) ? m[2].slice(1, -1) : m[2])
    .filter((q) => q.startsWith(prefix));
}

/** The one span of a doc that starts with `prefix` (and passes `which`). */
export async function quote(
  doc: string,
  prefix: string,
  which: (quote: string) => boolean = () => true,
): Promise<string> {
  const found = (await quotes(doc, prefix)).filter(which);
  assert(
    found.length === 1,
    `${doc} quotes one line starting with ${prefix}: ${found.join(" | ")}`,
  );
  return found[0];
}

/** A doc's ```text code blocks, each without its last newline. */
export async function textBlocks(doc: string): Promise<string[]> {
  const text = await Deno.readTextFile(new URL(doc, DOCS));
  return [...text.matchAll(/```text\n([\s\S]*?)```/g)].map((m) => m[1].trimEnd());
}

/** The lines of a doc's ```text code blocks. */
export async function textBlockLines(doc: string): Promise<string[]> {
  return (await textBlocks(doc)).flatMap((block) => block.split("\n"));
}

/** A quote as a pattern of (a part of) a printed line: `…` is any text. */
export function patternOf(quote: string): RegExp {
  return new RegExp(quote.split("…").map(escape).join(".*"));
}

/** The text as a regular expression that matches it literally. */
export function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A quote with each `…` replaced by the given text, in order. */
export function filled(quote: string, ...texts: string[]): string {
  const parts = quote.split("…");
  assert(parts.length === texts.length + 1, `${texts.length} "…" in ${quote}`);
  return parts.reduce((all, part, i) => all + texts[i - 1] + part);
}

/** What a number or a duration (`67 ms`, `13.4 s`, `10 h 10 min`) in a shape stands for. */
const NUMBER = String.raw`\d+(?:\.\d+)?`;
const DURATION = `${NUMBER} (?:ms|s|min|h)(?: \\d+ (?:s|min))?`;

/**
 * A quote as the pattern of the whole printed text when the numbers of the quote are an
 * example: each number or duration stands for any, a run of spaces for any run (columns
 * widen with their numbers), a line break of the doc for any white space or none (a quote
 * wrapped to the doc's width), and `…` for any text.
 */
export function shapeOf(quote: string): RegExp {
  const token = new RegExp(`…|\\n\\s*|${DURATION}\\b|${NUMBER}| {2,}`, "g");
  let pattern = "";
  let at = 0;
  for (const m of quote.matchAll(token)) {
    pattern += escape(quote.slice(at, m.index));
    const [text] = m;
    pattern += text === "…"
      ? "[\\s\\S]*"
      : text.startsWith("\n")
      ? "\\s*"
      : text.startsWith(" ")
      ? " +"
      : /[a-z]$/.test(text)
      ? DURATION
      : NUMBER;
    at = m.index + text.length;
  }
  return new RegExp(`^${pattern}${escape(quote.slice(at))}$`);
}
