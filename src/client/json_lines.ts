/**
 * Incremental parsing of newline-delimited JSON, as watch streams send it. Chunks may
 * end anywhere: in the middle of a line, or inside a multi-byte UTF-8 character (the
 * decoder keeps the partial bytes until the rest arrives).
 *
 * @module
 */

/** A line of the stream is not valid JSON. */
export class JsonLineError extends Error {
  override name = "JsonLineError";
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch (e) {
    const shown = line.length > 120 ? `${line.slice(0, 120)}…` : line;
    throw new JsonLineError(`A stream line is not valid JSON (${(e as Error).message}): ${shown}`);
  }
}

/** Yield one parsed value per non-empty line of a byte stream. */
export async function* parseJsonLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<unknown> {
  const decoder = new TextDecoder("utf-8");
  let buffer = "";
  for await (const chunk of chunks) {
    // The kept tail has no newline: search only the new text (long lines stay linear).
    const searchFrom = buffer.length;
    buffer += decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let end = buffer.indexOf("\n", searchFrom); end >= 0; end = buffer.indexOf("\n", start)) {
      const line = buffer.slice(start, end);
      start = end + 1;
      if (line.trim()) yield parseLine(line);
    }
    buffer = start ? buffer.slice(start) : buffer;
  }
  buffer += decoder.decode();
  if (buffer.trim()) yield parseLine(buffer);
}
