import fc from 'fast-check';
import { canonicalize } from 'json-canonicalize';
import { canonicalJson } from '../../../src/audit/canonicalJson';

/**
 * The hash chain, the checkpoints and the signed exports hash canonical JSON (RFC 8785); links
 * already stored were made with json-canonicalize, and the export verifier still uses it. The text
 * canonicalJson makes must be the same for every JSON value, or a stored link would stop matching.
 */
describe('canonicalJson', () => {
  it('writes the same text as json-canonicalize for any JSON value (any Unicode, lone surrogates included)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('sorts keys by UTF-16 code units and writes numbers as RFC 8785 does (its own examples)', () => {
    // RFC 8785 §3.2.3: "\u20ac" (€), "\r", "\ufb33", "1", "\ud83d\ude00" (😀), "\u0080", "\u00f6" sort as in its expected output.
    const keys = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    expect(canonicalJson(keys)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
    // RFC 8785 §3.2.2.3 / Appendix B.
    expect(canonicalJson([333333333.3333333, 1e30, 4.5, 2e-3, 0.000000000000000000000000001, -0, 1e21, 1e-7])).toBe(
      '[333333333.3333333,1e+30,4.5,0.002,1e-27,0,1e+21,1e-7]',
    );
  });

  it('refuses what JSON cannot hold instead of writing something else', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const value of [{ n: NaN }, { n: Infinity }, { n: 1n }, cycle, undefined]) expect(() => canonicalJson(value)).toThrow();
  });
});
