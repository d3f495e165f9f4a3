import fc from 'fast-check';
import { canonicalize } from 'json-canonicalize';
import { canonicalJson, storedJson } from '#src/eventstore/canonicalJson';

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

  it('writes keys that are array indexes, a __proto__ key, dates and class instances as json-canonicalize does', () => {
    // JavaScript puts array-index keys first, in numeric order: a token-id map such as logit_bias.
    const bias = JSON.parse('{"50256":-100,"9":1,"10":2,"4294967294":3,"4294967295":4,"01":5,"a":6,"$ref":7}') as unknown;
    const proto = JSON.parse('{"b":1,"__proto__":{"x":1},"a":[{"__proto__":2}]}') as unknown;
    class Point {
      y = 2;
      x = 1;
    }
    const deep = Array.from({ length: 100 }).reduce<unknown>((inner, _, i) => ({ [`k${i % 3}`]: inner, z: i }), { end: true });
    const values = [
      bias,
      { config: { logit_bias: bias, model: 'm' } },
      proto,
      { at: new Date(0), nested: [new Date(1)] },
      new Point(),
      { points: [new Point()] },
      deep,
      Object.assign(Object.create(null) as object, { b: 1, a: 2 }),
    ];
    for (const value of values) expect(canonicalJson(value)).toBe(canonicalize(value));
    expect(canonicalJson(bias)).toBe('{"$ref":7,"01":5,"10":2,"4294967294":3,"4294967295":4,"50256":-100,"9":1,"a":6}');
  });

  it('writes undefined as JSON.stringify does: dropped from an object, null in an array', () => {
    expect(canonicalJson({ b: undefined, a: [undefined, 1], c: null })).toBe('{"a":[null,1],"c":null}');
  });

  it('refuses what JSON cannot hold instead of writing something else', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const deepCycle: Record<string, unknown> = { a: { b: { c: {} } } };
    (deepCycle.a as { b: { c: Record<string, unknown> } }).b.c.back = deepCycle;
    for (const value of [
      { n: NaN },
      { n: Infinity },
      { n: 1n },
      [-Infinity],
      { f: () => 1 },
      { s: Symbol('s') },
      cycle,
      deepCycle,
      [cycle],
      undefined,
    ])
      expect(() => canonicalJson(value)).toThrow();
  });
});

/**
 * The stores keep data and metadata as storedJson's text, and the chain links that text; a verify
 * of a parsed event rebuilds it with JSON.stringify. The two must agree for every JSON value, and
 * storedJson must refuse what JSON cannot hold, as canonicalJson does.
 */
describe('storedJson', () => {
  it('writes what JSON.stringify writes, keys in their order, and its parse serializes back to it (any JSON value)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), (value) => {
        const text = storedJson(value);
        expect(text).toBe(JSON.stringify(value));
        expect(JSON.stringify(JSON.parse(text))).toBe(text);
      }),
      { numRuns: 2000 },
    );
    expect(storedJson({ z: 1, a: { '10': 0, '9': 1, __proto__x: 2 } })).toBe('{"z":1,"a":{"9":1,"10":0,"__proto__x":2}}');
    expect(storedJson(JSON.parse('{"b":1,"__proto__":{"x":1}}'))).toBe('{"b":1,"__proto__":{"x":1}}');
  });

  it('refuses NaN, infinities, a BigInt, a function, a symbol and a cycle', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const value of [{ n: Number.NaN }, [Infinity], { b: 1n }, { f: () => 1 }, { s: Symbol('x') }, cycle])
      expect(() => storedJson(value)).toThrow();
  });
});
