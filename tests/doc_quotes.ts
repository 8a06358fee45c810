/**
 * The output that the docs quote: a doc's backquoted spans, and a quote as the pattern of a
 * printed line (`…` standing for any text).
 */

const DOCS = new URL("../docs/", import.meta.url);

/** The backquoted spans of a doc that start with `prefix`. */
export async function quotes(doc: string, prefix: string): Promise<string[]> {
  const text = (await Deno.readTextFile(new URL(doc, DOCS)))
    .replace(/```[\s\S]*?```/g, "") // code blocks: their backquotes are no spans
    .replace(/\n\s*/g, " ");
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]).filter((q) => q.startsWith(prefix));
}

/** A quote as a pattern of (a part of) a printed line: `…` is any text. */
export function patternOf(quote: string): RegExp {
  return new RegExp(quote.split("…").map(escape).join(".*"));
}

/** The text as a regular expression that matches it literally. */
export function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
