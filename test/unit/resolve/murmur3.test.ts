import fc from 'fast-check';
import { v3 } from 'murmurhash';
import { murmur3, murmur3Ascii, murmur3OfWord, NOT_ASCII } from '#src/resolve/murmur3';
import { pickSplitVersion, type SplitTarget } from '#src/resolve/split';

/**
 * The service's MurmurHash3 is the `murmurhash` package's (x86, 32 bits), and a split label's pick
 * is the algorithm docs/rollouts.md publishes, computed here with that package: a gateway that
 * implements the documented algorithm with any MurmurHash3 picks the same version for a key.
 */
const bytes = fc.uint8Array({ maxLength: 80 });
const seed = fc.integer({ min: 0, max: 2 ** 32 - 1 });

it('hashes any bytes with any seed as the murmurhash package does, and only the first `length` bytes', () => {
  fc.assert(
    fc.property(bytes, seed, fc.uint8Array({ maxLength: 5 }), (b, s, tail) => {
      expect(murmur3(b, b.length, s)).toBe(v3(b, s));
      const longer = new Uint8Array([...b, ...tail]);
      expect(murmur3(longer, b.length, s)).toBe(v3(b, s));
    }),
    { numRuns: 2000 },
  );
});

it('hashes a 32-bit word as the package hashes its 4 little-endian bytes', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), seed, (w, s) => {
      expect(murmur3OfWord(w, s)).toBe(v3(new Uint8Array([w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24]), s));
    }),
    { numRuns: 2000 },
  );
});

it('hashes an ASCII string as the package hashes its UTF-8 bytes (signed), and says NOT_ASCII for any other string', () => {
  const utf8 = new TextEncoder();
  fc.assert(
    fc.property(fc.string({ unit: 'binary-ascii', maxLength: 40 }), seed, (text, s) => {
      expect(murmur3Ascii(text, s) >>> 0).toBe(v3(utf8.encode(text), s));
      expect(murmur3Ascii(text, s)).toBe(v3(utf8.encode(text), s) | 0);
    }),
    { numRuns: 2000 },
  );
  // One character past 0x7f anywhere (in a block of 4 or in the rest), whatever its bits.
  fc.assert(
    fc.property(
      fc.string({ unit: 'binary-ascii', maxLength: 12 }),
      fc.integer({ min: 0x80, max: 0xffff }),
      fc.string({ unit: 'binary-ascii', maxLength: 12 }),
      seed,
      (before, code, after, s) => {
        expect(murmur3Ascii(before + String.fromCharCode(code) + after, s)).toBe(NOT_ASCII);
      },
    ),
    { numRuns: 2000 },
  );
});

/** docs/rollouts.md's algorithm, with the package: the key's UTF-8 bytes, seeded by the hash of workspace, slug and label; then per version. */
const documented = (t: SplitTarget, key: string): number => {
  const utf8 = new TextEncoder();
  const h = v3(utf8.encode(key), v3(utf8.encode(`${t.workspaceId}\n${t.slug}\n${t.label}`), 0));
  const word = new Uint8Array([h & 0xff, (h >>> 8) & 0xff, (h >>> 16) & 0xff, h >>> 24]);
  const scored = [...t.split]
    .sort((a, b) => a.version - b.version)
    .map((s) => ({ version: s.version, score: -Math.log((v3(word, s.version) + 0.5) / 2 ** 32) / s.weight }));
  return scored.reduce((best, s) => (s.score < best.score ? s : best)).version;
};

it('picks the version the documented algorithm picks, for ASCII, non-ASCII and long keys', () => {
  const split = fc.uniqueArray(fc.record({ version: fc.integer({ min: 1, max: 50 }), weight: fc.integer({ min: 1, max: 100 }) }), {
    selector: (s) => s.version,
    minLength: 1,
    maxLength: 5,
  });
  const key = fc.oneof(
    fc.string({ minLength: 1 }),
    fc.string({ unit: 'grapheme', minLength: 1 }),
    fc.string({ minLength: 340, maxLength: 1200 }),
  );
  fc.assert(
    fc.property(fc.uuid(), fc.string(), fc.string(), split, key, (workspaceId, slug, label, shares, k) => {
      const target = { workspaceId, slug, label, split: shares };
      expect(pickSplitVersion(target, k)).toBe(documented(target, k));
    }),
    { numRuns: 1000 },
  );
});

it('picks the documented version when the scores come close: wide weights, many versions', () => {
  // The pick decides most keys by bounds on the logarithm and computes it only when they overlap:
  // weights from 1 to 10,000 and up to 10 versions make overlaps (near ties) common.
  const split = fc.uniqueArray(fc.record({ version: fc.integer({ min: 1, max: 1000 }), weight: fc.integer({ min: 1, max: 10_000 }) }), {
    selector: (s) => s.version,
    minLength: 2,
    maxLength: 10,
  });
  fc.assert(
    fc.property(fc.uuid(), split, fc.string({ minLength: 1, maxLength: 24 }), (workspaceId, shares, k) => {
      const target = { workspaceId, slug: 'bot', label: 'production', split: shares };
      expect(pickSplitVersion(target, k)).toBe(documented(target, k));
    }),
    { numRuns: 5000 },
  );
});
