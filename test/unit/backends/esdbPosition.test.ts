import fc from 'fast-check';
import { decodePosition, encodePosition, knownPosition } from '#src/eventstore/eventstoredb/position';

const U64_MAX = 2n ** 64n - 1n;
const u64 = fc.bigInt({ min: 0n, max: U64_MAX });
const position = fc.record({ commit: u64, prepare: u64 });
const compare = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

describe('EventStoreDB position encoding', () => {
  it('round-trips every pair of unsigned 64-bit parts', () => {
    fc.assert(
      fc.property(position, (p) => {
        expect(decodePosition(encodePosition(p))).toEqual(p);
      }),
    );
  });

  it('orders encoded positions as EventStoreDB orders them: by commit, then prepare', () => {
    fc.assert(
      fc.property(position, position, (a, b) => {
        const expected = compare(a.commit, b.commit) || compare(a.prepare, b.prepare);
        expect(compare(encodePosition(a), encodePosition(b))).toBe(expected);
      }),
    );
  });

  it('keeps a position whose parts fit 64 bits exact through a decimal string', () => {
    const p = { commit: U64_MAX - 1n, prepare: 12345n };
    expect(decodePosition(BigInt(encodePosition(p).toString()))).toEqual(p);
  });

  it('refuses parts outside 64 bits and numbers that are no encoded position', () => {
    expect(() => encodePosition({ commit: -1n, prepare: 0n })).toThrow(RangeError);
    expect(() => encodePosition({ commit: 0n, prepare: U64_MAX + 1n })).toThrow(RangeError);
    expect(() => decodePosition(-1n)).toThrow(RangeError);
    expect(() => decodePosition(2n ** 128n)).toThrow(RangeError);
  });

  it('treats the server’s "no position" (-1 unsigned) and a missing one as unknown', () => {
    expect(knownPosition(undefined)).toBeUndefined();
    expect(knownPosition({ commit: U64_MAX, prepare: U64_MAX })).toBeUndefined();
    expect(knownPosition({ commit: 7n, prepare: 7n })).toEqual({ commit: 7n, prepare: 7n });
  });
});
