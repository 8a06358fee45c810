/**
 * The API server's warnings: the `Warning` headers of its answers (RFC 7234 section 5.5, as
 * kube-apiserver writes them: `299 - "unknown field \"status\""`), said in the log once per
 * text. They tell of what a request did not do as asked -- a field the server dropped, a
 * deprecated API -- which would otherwise go unseen: an operator writing a result into a
 * ConfigMap's `status` (which a ConfigMap has not) is only told so here.
 *
 * @module
 */
import { categoryLogger } from "../platform/logging.ts";

const logger = categoryLogger(["kopf", "client", "api"]);

/** How many distinct texts are remembered as said; beyond that, the oldest are forgotten. */
const REMEMBERED = 256;

/**
 * The texts of a `Warning` header's value: its warnings are separated by commas (several
 * headers are joined so), each `code agent "text"` with an optional date after the text.
 * What does not parse is given as it is, so that nothing the server said is lost.
 */
export function parseWarningHeader(value: string): string[] {
  const texts: string[] = [];
  let at = 0;
  while (at < value.length) {
    const match = /^\s*,?\s*(\d{3})\s+(\S+)\s+"/.exec(value.slice(at));
    if (match === null) {
      const rest = value.slice(at).replace(/^[\s,]+/, "").trim();
      if (rest) texts.push(rest);
      break;
    }
    at += match[0].length;
    let text = "";
    while (at < value.length && value[at] !== '"') {
      if (value[at] === "\\" && at + 1 < value.length) at++;
      text += value[at++];
    }
    at++; // the closing quote
    // An optional quoted date follows the text; the next warning begins after a comma.
    const date = /^\s+"[^"]*"/.exec(value.slice(at));
    if (date !== null) at += date[0].length;
    if (text) texts.push(text);
  }
  return texts;
}

/** Says each text of the server's warnings once per client; see the module docs. */
export class ServerWarnings {
  readonly #said = new Set<string>();

  /** Note the `Warning` header of an answer to `method path`, if it has one. */
  note(method: string, path: string, header: string | null): void {
    if (header === null) return;
    for (const text of parseWarningHeader(header)) {
      if (this.#said.has(text)) continue;
      if (this.#said.size >= REMEMBERED) {
        this.#said.delete(this.#said.values().next().value!);
      }
      this.#said.add(text);
      const where = path.split("?", 1)[0];
      logger.warning(`The API server warns on ${method} ${where}: ${text}`, {
        method,
        path: where,
      });
    }
  }
}
