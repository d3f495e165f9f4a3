/**
 * MurmurHash3 (x86, 32 bits), the same function as the `murmurhash` package's `v3` (which the tests
 * hold it to, on arbitrary bytes and seeds), written with `Math.imul`: the package multiplies in
 * 16-bit halves, which made a split label's pick cost twice as much (docs/performance.md,
 * "Rollouts"). Bytes are read from `bytes[0..length)`, so a caller can hash part of a scratch array.
 */
const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r));
const scramble = (k: number) => Math.imul(rotl(Math.imul(k, C1), 15), C2);
const mix = (h: number, k: number) => (Math.imul(rotl(h ^ scramble(k), 13), 5) + 0xe6546b64) | 0;
const finalMix = (h: number) => {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
};

export const murmur3 = (bytes: Uint8Array, length: number, seed: number): number => {
  let h = seed | 0;
  const blocks = length & ~3;
  let i = 0;
  for (; i < blocks; i += 4) h = mix(h, bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
  const rest = length & 3;
  if (rest > 0) {
    let k = bytes[i]!;
    if (rest > 1) k |= bytes[i + 1]! << 8;
    if (rest > 2) k |= bytes[i + 2]! << 16;
    h ^= scramble(k);
  }
  return finalMix(h ^ length);
};

/** `murmur3` of the 4 little-endian bytes of a 32-bit word, without writing them anywhere. */
export const murmur3OfWord = (word: number, seed: number): number => finalMix(mix(seed | 0, word | 0) ^ 4);

/** What `murmur3Ascii` answers for a string that is not ASCII: no 32-bit hash is equal to it. */
export const NOT_ASCII = 2 ** 32;

/**
 * `murmur3` of an ASCII string's bytes (its UTF-16 code units, which are its UTF-8 bytes), read
 * straight from the string, as a SIGNED 32-bit integer (`>>> 0` gives `murmur3`'s): a value V8
 * hands back from a call without boxing it. `NOT_ASCII` when the string holds a character past
 * 0x7f (hash its UTF-8 bytes then). A split key is usually an ASCII user id: this spares copying
 * it into bytes first.
 */
export const murmur3Ascii = (text: string, seed: number): number => {
  const length = text.length;
  let h = seed | 0;
  const blocks = length & ~3;
  let i = 0;
  for (; i < blocks; i += 4) {
    const c0 = text.charCodeAt(i);
    const c1 = text.charCodeAt(i + 1);
    const c2 = text.charCodeAt(i + 2);
    const c3 = text.charCodeAt(i + 3);
    if ((c0 | c1 | c2 | c3) > 0x7f) return NOT_ASCII;
    h = mix(h, c0 | (c1 << 8) | (c2 << 16) | (c3 << 24));
  }
  const rest = length & 3;
  if (rest > 0) {
    const c0 = text.charCodeAt(i);
    const c1 = rest > 1 ? text.charCodeAt(i + 1) : 0;
    const c2 = rest > 2 ? text.charCodeAt(i + 2) : 0;
    if ((c0 | c1 | c2) > 0x7f) return NOT_ASCII;
    h ^= scramble(c0 | (c1 << 8) | (c2 << 16));
  }
  return finalMix(h ^ length) | 0;
};
