/**
 * The simulation's one source of chance: a small, fast generator (sfc32, seeded through
 * splitmix32) whose whole sequence follows from one integer seed, so that a run is
 * replayed exactly from its seed.
 *
 * @module
 */

/** Numbers, choices and ids, all drawn from one seeded sequence. */
export class SeededRandom {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(readonly seed: number) {
    let state = seed >>> 0;
    const split = () => {
      state = (state + 0x9e3779b9) | 0;
      let z = state;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.#a = split();
    this.#b = split();
    this.#c = split();
    this.#d = split();
    for (let i = 0; i < 12; i++) this.#next32();
  }

  #next32(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }

  /** A number in [0, 1), as `Math.random()`. */
  next(): number {
    return this.#next32() / 4294967296;
  }

  /** Whether an event of this probability happens now. */
  chance(probability: number): boolean {
    return probability > 0 && (probability >= 1 || this.next() < probability);
  }

  /** A whole number in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** A number in [low, high). */
  between(low: number, high: number): number {
    return low + this.next() * (high - low);
  }

  /** A wait with an exponential distribution of this mean: the gap between random events. */
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }

  /** A version 4 UUID, as `crypto.randomUUID()`. */
  uuid(): string {
    const hex = (n: number) => n.toString(16).padStart(8, "0");
    const a = hex(this.#next32());
    const b = hex(this.#next32());
    const c = hex(this.#next32());
    const d = hex(this.#next32());
    const variant = ((parseInt(c[0], 16) & 0x3) | 0x8).toString(16);
    return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-${variant}${c.slice(1, 4)}-${c.slice(4)}${d}`;
  }

  /** Fill the bytes, as `crypto.getRandomValues()`. */
  fill<T extends ArrayBufferView>(array: T): T {
    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    for (let i = 0; i < bytes.length; i += 4) {
      let word = this.#next32();
      for (let j = i; j < Math.min(i + 4, bytes.length); j++) {
        bytes[j] = word & 0xff;
        word >>>= 8;
      }
    }
    return array;
  }
}
