/**
 * The responses the HTTP/1.1 agent (`http1_agent.ts`) returns read whole by
 * `http1_parser.ts`: their headers and text handed out as `Response`'s would be, without the
 * copies and objects a `Response` of Deno's own makes for them (a watch's, read in parts, is
 * `http1_streams.ts`'s).
 *
 * @module
 */

/**
 * A response header (`name` in lower case), read without making the response's `Headers`
 * when the response is one of {@link ResponseReader}'s.
 */
export function responseHeader(response: Response, name: string): string | null {
  return response instanceof Http1Response ? response.header(name) : response.headers.get(name);
}

/**
 * A response read whole. Its `Headers` are made when first asked for: most callers only
 * read the status and the text, and building `Headers` costs more than the rest of it. Its
 * text is kept as it was decoded, and handed to `text()` and `json()` as it is: given to
 * `Response` as a body, it would be encoded to bytes again at once and decoded again when
 * read (two copies of every write's answer). A body stream is made only if one is asked for.
 */
export class Http1Response extends Response {
  readonly #status: number;
  readonly #statusText: string;
  readonly #fields: string[];
  #headers: Headers | undefined;
  readonly #text: string | null;
  /** Whether the text was taken (`text()`, `json()`, ...); the stream, once made, says itself. */
  #taken = false;
  /** The body as a response of Deno's own, once a stream or bytes are asked for. */
  #whole: Response | undefined;

  constructor(text: string | null, status: number, statusText: string, fields: string[]) {
    // Made without an init: Deno's would convert and check it (WebIDL) for every response.
    // The parser has checked the status (200-599) and the reason phrase (no control but a
    // tab) as that check would; both are kept here, and read from here.
    super();
    this.#status = status;
    this.#statusText = statusText;
    this.#text = text;
    this.#fields = fields;
  }

  override get status(): number {
    return this.#status;
  }

  override get statusText(): string {
    return this.#statusText;
  }

  override get ok(): boolean {
    return this.#status >= 200 && this.#status <= 299;
  }

  /** One header's values joined as `Headers.get` joins them, without making the `Headers`. */
  header(name: string): string | null {
    if (this.#headers !== undefined) return this.#headers.get(name);
    let value: string | null = null;
    for (let i = 0; i < this.#fields.length; i += 2) {
      if (this.#fields[i] === name) {
        value = value === null ? this.#fields[i + 1] : `${value}, ${this.#fields[i + 1]}`;
      }
    }
    return value;
  }

  override get headers(): Headers {
    if (this.#headers === undefined) {
      const headers = new Headers();
      for (let i = 0; i < this.#fields.length; i += 2) {
        headers.append(this.#fields[i], this.#fields[i + 1]);
      }
      this.#headers = headers;
    }
    return this.#headers;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    return this.#text === null ? null : this.#deno().body;
  }

  override get bodyUsed(): boolean {
    return this.#taken || (this.#whole?.bodyUsed ?? false);
  }

  override text(): Promise<string> {
    if (this.#whole !== undefined) return this.#whole.text();
    if (this.#taken) return Promise.reject(new TypeError("Body already consumed"));
    this.#taken = true;
    return Promise.resolve(this.#text ?? "");
  }

  override async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return this.#deno().arrayBuffer();
  }

  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.#deno().bytes();
  }

  override blob(): Promise<Blob> {
    return this.#deno().blob();
  }

  override formData(): Promise<FormData> {
    return this.#deno().formData();
  }

  override clone(): Response {
    if (this.bodyUsed) throw new TypeError("Body already consumed");
    return new Http1Response(this.#text, this.status, this.statusText, this.#fields);
  }

  /** The body as Deno's own response holds it: for the reads other than the text. */
  #deno(): Response {
    if (this.#whole === undefined) {
      if (this.#taken) return consumed();
      this.#whole = new Response(this.#text, { headers: this.headers });
    }
    return this.#whole;
  }
}

/** A response whose body is used up: its reads fail as a consumed body's do. */
function consumed(): Response {
  const response = new Response("");
  void response.text();
  return response;
}
