import { ABSENT, diffValues, show } from '#projections/diff';

describe('diffValues', () => {
  it('finds nothing in equal values, whatever the key order', () => {
    expect(diffValues({ a: 1, b: [1, { c: null }], n: 5n }, { n: 5n, b: [1, { c: null }], a: 1 })).toEqual([]);
  });

  it('names each difference by its path', () => {
    const expected = { config: { temperature: 0.3, tools: [{ name: 'f' }] }, system_prompt: 'S', gone: true };
    const actual = { config: { temperature: 0.5, tools: [{ name: 'g' }, { name: 'h' }] }, system_prompt: 'S', extra: 1 };
    expect(diffValues(expected, actual)).toEqual([
      { path: 'config.temperature', expected: 0.3, actual: 0.5 },
      { path: 'config.tools[0].name', expected: 'f', actual: 'g' },
      { path: 'config.tools[1]', expected: ABSENT, actual: { name: 'h' } },
      { path: 'extra', expected: ABSENT, actual: 1 },
      { path: 'gone', expected: true, actual: ABSENT },
    ]);
  });

  it('tells null from absent and an object from an array', () => {
    expect(diffValues({ a: null }, {})).toEqual([{ path: 'a', expected: null, actual: ABSENT }]);
    expect(diffValues({ a: [] }, { a: {} })).toEqual([{ path: 'a', expected: [], actual: {} }]);
  });
});

describe('show', () => {
  it('prints JSON, bigints as decimals, absence, and cuts long values', () => {
    expect(show({ a: 'x' })).toBe('{"a":"x"}');
    expect(show(2n ** 70n)).toBe('"1180591620717411303424"');
    expect(show(ABSENT)).toBe('(absent)');
    expect(show('y'.repeat(200), 20)).toBe(`"${'y'.repeat(18)}…`);
  });
});
