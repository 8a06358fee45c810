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

/** A line's value; one that is not JSON throws a {@link JsonLineError}. */
export function parseJsonLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch (e) {
    const shown = line.length > 120 ? `${line.slice(0, 120)}\u2026` : line;
    throw new JsonLineError(`A stream line is not valid JSON (${(e as Error).message}): ${shown}`);
  }
}

/** Whether the text between the offsets is only whitespace (as `trim()` sees it). */
function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    // The common case, a JSON value's first character, answers at once.
    if (code > 32 && code < 127) return false;
    if (text[i].trim() !== "") return false;
  }
  return true;
}

/** What {@link JsonLines.next} returns when no complete line is left. */
export const NO_LINE: unique symbol = Symbol("no line");

/** The decoding options of all chunks but the last: made once, not per chunk. */
const STREAMING: TextDecodeOptions = Object.freeze({ stream: true });

/**
 * A synchronous splitter of a byte stream into parsed JSON lines: {@link push} chunks,
 * take the values of the complete lines with {@link next}, and {@link end} the stream to
 * have its last line (one without a newline) parsed too. A reader that parses as it reads
 * needs no async generator (and its promises) between the bytes and the values.
 */
export class JsonLines {
  // A BOM is dropped here, at the stream's start only: chunks are decoded alone at times.
  readonly #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  /** Whether any text has come: a BOM before it is dropped. */
  #begun = false;
  /** Whether the decoder may hold the first bytes of a character split across chunks. */
  #pending = false;
  /** The text not yet split, from {@link #start} on. */
  #buffer = "";
  #start = 0;
  /** Where to look for the next newline: the text before it, from {@link #start}, has none. */
  #searchFrom = 0;
  #ended = false;

  /** Add a chunk of the stream. */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    // A chunk that ends with an ASCII byte (a newline, usually) ends a character: with
    // nothing pending before it, it decodes alone, without converting streaming options.
    const split = chunk[chunk.length - 1] >= 0x80;
    const text = this.#pending || split
      ? this.#decoder.decode(chunk, STREAMING)
      : this.#decoder.decode(chunk);
    this.#pending = split;
    this.#append(text);
  }

  /** The stream is over: its last line, if it has no newline, is parsed too. */
  end(): void {
    this.#append(this.#decoder.decode());
    this.#ended = true;
  }

  #append(text: string): void {
    if (!this.#begun && text) {
      this.#begun = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.#start >= this.#buffer.length) {
      // All split (the usual end of a chunk: a newline): the new text is the buffer as it is.
      this.#buffer = text;
      this.#searchFrom = 0;
    } else {
      this.#buffer = this.#buffer.slice(this.#start) + text;
      this.#searchFrom = Math.max(0, this.#searchFrom - this.#start);
    }
    this.#start = 0;
  }

  /** The next complete line's value, or {@link NO_LINE}; a bad line throws a JsonLineError. */
  next(): unknown {
    const line = this.nextLine();
    return line === NO_LINE ? NO_LINE : parseJsonLine(line);
  }

  /**
   * The next complete line that is not blank, unparsed (see {@link parseJsonLine}), or
   * {@link NO_LINE}: a reader may tell from its text that it needs no parsing.
   */
  nextLine(): string | typeof NO_LINE {
    const buffer = this.#buffer;
    for (;;) {
      const start = this.#start;
      if (start >= buffer.length) return NO_LINE;
      let end = buffer.indexOf("\n", Math.max(start, this.#searchFrom));
      if (end < 0) {
        if (!this.#ended) {
          this.#searchFrom = buffer.length;
          return NO_LINE;
        }
        end = buffer.length;
      }
      this.#start = end + 1;
      if (!isBlank(buffer, start, end)) return buffer.slice(start, end);
    }
  }
}
