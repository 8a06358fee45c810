/**
 * The handler runs the soak's operator reported, kept in typed columns (29 bytes a run)
 * rather than as objects of strings (some 250): the driver's process also holds the fake
 * cluster, whose memory the soak reports, so the driver's own records must not grow like
 * a leak over a long run.
 *
 * @module
 */

/** One run of a handler, as the operator printed it. */
export interface Run {
  readonly what: string;
  readonly name: string;
  readonly value: string;
  /** The `resourceVersion` of the state it ran on. */
  readonly version: string;
  /** The handler's retry count. */
  readonly retry: string;
  readonly incarnation: number;
}

const WHATS = ["create", "update", "delete"];

/** The name of the soak's i-th object. */
export function objectName(i: number): string {
  return `soak-${String(i).padStart(5, "0")}`;
}

/** The runs reported so far, in order. */
export class RunLog {
  #size = 0;
  #what = new Uint8Array(1024);
  #index = new Int32Array(1024);
  #value = new Float64Array(1024);
  #version = new Float64Array(1024);
  #retry = new Int32Array(1024);
  #incarnation = new Int32Array(1024);

  /** How many runs. */
  get length(): number {
    return this.#size;
  }

  /** Record a `RUN <what> <name> <value> <resourceVersion> <retry>` line's fields. */
  add(
    what: string,
    name: string,
    value: string,
    version: string,
    retry: string,
    incarnation: number,
  ): void {
    const kind = WHATS.indexOf(what);
    const index = Number(name.slice(name.lastIndexOf("-") + 1));
    if (kind < 0 || !Number.isInteger(index)) return; // not a run of the soak's handlers
    if (this.#size === this.#what.length) this.#grow();
    const i = this.#size++;
    this.#what[i] = kind;
    this.#index[i] = index;
    this.#value[i] = value === "-" ? Number.NaN : Number(value);
    this.#version[i] = Number(version);
    this.#retry[i] = Number(retry);
    this.#incarnation[i] = incarnation;
  }

  /** The runs as objects (made now, for the analysis at the end). */
  *[Symbol.iterator](): IterableIterator<Run> {
    for (let i = 0; i < this.#size; i++) {
      const value = this.#value[i];
      yield {
        what: WHATS[this.#what[i]],
        name: objectName(this.#index[i]),
        value: Number.isNaN(value) ? "-" : String(value),
        version: String(this.#version[i]),
        retry: String(this.#retry[i]),
        incarnation: this.#incarnation[i],
      };
    }
  }

  #grow(): void {
    const grown = <T extends Uint8Array | Int32Array | Float64Array>(old: T): T => {
      const next = new (old.constructor as new (n: number) => T)(old.length * 2);
      next.set(old);
      return next;
    };
    this.#what = grown(this.#what);
    this.#index = grown(this.#index);
    this.#value = grown(this.#value);
    this.#version = grown(this.#version);
    this.#retry = grown(this.#retry);
    this.#incarnation = grown(this.#incarnation);
  }
}
