/**
 * BLAKE2b (RFC 7693), plain or keyed, with a variable digest size of 1-64 bytes.
 *
 * Kopf shortens over-long annotation keys with a 4-byte BLAKE2b digest, and Web Crypto
 * offers no BLAKE2; one page of code beats a dependency for that. Keyed, it is a MAC that
 * is synchronous (Web Crypto's HMAC is not): the diff-base digests sensitive values with
 * it. 64-bit words are kept as pairs of 32-bit halves (low word first) so the hot loop
 * avoids BigInt.
 *
 * @module
 */

// The initialisation vector: the same eight 64-bit words as SHA-512's, as (low, high) halves.
const IV = new Uint32Array([
  0xf3bcc908,
  0x6a09e667,
  0x84caa73b,
  0xbb67ae85,
  0xfe94f82b,
  0x3c6ef372,
  0x5f1d36f1,
  0xa54ff53a,
  0xade682d1,
  0x510e527f,
  0x2b3e6c1f,
  0x9b05688c,
  0xfb41bd6b,
  0x1f83d9ab,
  0x137e2179,
  0x5be0cd19,
]);

// The message word permutations of the 12 rounds (rounds 10 and 11 repeat 0 and 1).
const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
];

const BLOCK = 128;

/** v[a] += v[b] (64-bit, modulo 2^64); indices point at the low halves. */
function addWords(v: Uint32Array, a: number, b: number): void {
  const lo = v[a] + v[b];
  v[a + 1] = v[a + 1] + v[b + 1] + (lo >= 0x100000000 ? 1 : 0);
  v[a] = lo;
}

/** v[a] += (lo, hi) (64-bit, modulo 2^64). */
function addConst(v: Uint32Array, a: number, lo: number, hi: number): void {
  const sum = v[a] + lo;
  v[a + 1] = v[a + 1] + hi + (sum >= 0x100000000 ? 1 : 0);
  v[a] = sum;
}

/** The mixing function G on words a, b, c, d (already doubled into half-indices). */
function mix(
  v: Uint32Array,
  m: Uint32Array,
  a: number,
  b: number,
  c: number,
  d: number,
  x: number,
  y: number,
): void {
  addWords(v, a, b);
  addConst(v, a, m[x], m[x + 1]);
  // d = (d ^ a) >>> 32: swap the halves.
  let lo = v[d] ^ v[a];
  let hi = v[d + 1] ^ v[a + 1];
  v[d] = hi;
  v[d + 1] = lo;
  addWords(v, c, d);
  // b = (b ^ c) >>> 24
  lo = v[b] ^ v[c];
  hi = v[b + 1] ^ v[c + 1];
  v[b] = (lo >>> 24) | (hi << 8);
  v[b + 1] = (hi >>> 24) | (lo << 8);
  addWords(v, a, b);
  addConst(v, a, m[y], m[y + 1]);
  // d = (d ^ a) >>> 16
  lo = v[d] ^ v[a];
  hi = v[d + 1] ^ v[a + 1];
  v[d] = (lo >>> 16) | (hi << 16);
  v[d + 1] = (hi >>> 16) | (lo << 16);
  addWords(v, c, d);
  // b = (b ^ c) >>> 63, i.e. rotate left by one.
  lo = v[b] ^ v[c];
  hi = v[b + 1] ^ v[c + 1];
  v[b] = (hi >>> 31) | (lo << 1);
  v[b + 1] = (lo >>> 31) | (hi << 1);
}

/** Compress one 128-byte block into the state `h`; `counter` counts the bytes so far. */
function compress(
  h: Uint32Array,
  block: Uint8Array,
  counter: number,
  last: boolean,
  v: Uint32Array,
  m: Uint32Array,
): void {
  for (let i = 0; i < 16; i++) {
    v[i] = h[i];
    v[i + 16] = IV[i];
  }
  v[24] ^= counter >>> 0;
  v[25] ^= Math.floor(counter / 0x100000000);
  if (last) {
    v[28] = ~v[28];
    v[29] = ~v[29];
  }
  for (let i = 0; i < 32; i++) {
    const o = i * 4;
    m[i] = block[o] | (block[o + 1] << 8) | (block[o + 2] << 16) | (block[o + 3] << 24);
  }
  for (const s of SIGMA) {
    mix(v, m, 0, 8, 16, 24, s[0] * 2, s[1] * 2);
    mix(v, m, 2, 10, 18, 26, s[2] * 2, s[3] * 2);
    mix(v, m, 4, 12, 20, 28, s[4] * 2, s[5] * 2);
    mix(v, m, 6, 14, 22, 30, s[6] * 2, s[7] * 2);
    mix(v, m, 0, 10, 20, 30, s[8] * 2, s[9] * 2);
    mix(v, m, 2, 12, 22, 24, s[10] * 2, s[11] * 2);
    mix(v, m, 4, 14, 16, 26, s[12] * 2, s[13] * 2);
    mix(v, m, 6, 8, 18, 28, s[14] * 2, s[15] * 2);
  }
  for (let i = 0; i < 16; i++) h[i] = h[i] ^ v[i] ^ v[i + 16];
}

/** No key: the plain hash. */
const NO_KEY = new Uint8Array(0);

/**
 * The BLAKE2b digest of `data`, `size` bytes long (1-64; 64 by default), keyed with `key`
 * (0-64 bytes; none by default).
 *
 * Equals Python's `hashlib.blake2b(data, digest_size=size, key=key).digest()`.
 */
export function blake2b(data: Uint8Array, size = 64, key: Uint8Array = NO_KEY): Uint8Array {
  if (!Number.isInteger(size) || size < 1 || size > 64) {
    throw new RangeError(`BLAKE2b digest size must be an integer 1..64, got ${size}.`);
  }
  if (key.length > 64) {
    throw new RangeError(`BLAKE2b key must be at most 64 bytes, got ${key.length}.`);
  }
  // Keyed, the key padded with zeros to a whole block comes before the data (RFC 7693 3.3).
  let input = data;
  if (key.length > 0) {
    input = new Uint8Array(BLOCK + data.length);
    input.set(key);
    input.set(data, BLOCK);
  }
  const h = new Uint32Array(IV);
  // The parameter block: fanout 1, depth 1, the key's length, the digest size.
  h[0] ^= 0x01010000 ^ (key.length << 8) ^ size;
  const v = new Uint32Array(32);
  const m = new Uint32Array(32);
  const block = new Uint8Array(BLOCK);
  let offset = 0;
  // Every full block except the very last one is compressed as non-final.
  while (input.length - offset > BLOCK) {
    block.set(input.subarray(offset, offset + BLOCK));
    offset += BLOCK;
    compress(h, block, offset, false, v, m);
  }
  block.fill(0);
  block.set(input.subarray(offset));
  compress(h, block, input.length, true, v, m);
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = h[i >> 2] >>> (8 * (i & 3));
  return out;
}
