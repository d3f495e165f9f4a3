import fc from 'fast-check';
import { resolutionJson } from '#src/http/resolutionJson';
import type { Resolution } from '#src/resolve/codecs';

const freeze = <T>(value: T): T => {
  if (typeof value === 'object' && value !== null) {
    Object.freeze(value);
    for (const child of Object.values(value)) freeze(child);
  }
  return value;
};

describe('a resolution as JSON', () => {
  it("is JSON.stringify's text, whether its parts are frozen (shared, their JSON kept) or not, the first time and the next", () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    const resolution = fc.record(
      {
        request: fc.dictionary(
          fc.string(),
          fc.tuple(json, fc.boolean()).map(([v, frozen]) => (frozen ? freeze(v) : v)),
        ),
        preset: fc.record({
          id: fc.uuid(),
          slug: fc.string(),
          version: fc.nat(),
          version_id: fc.uuid(),
          label: fc.option(fc.string()),
          source_format: fc.constantFrom('chat_completions', 'messages', 'responses'),
          template_format: fc.constantFrom('none', 'handlebars'),
        }),
        dropped: fc.array(fc.record({ field: fc.string(), reason: fc.string() })).map(freeze),
        overridden: fc.array(fc.string()),
        served: fc.record({ version: fc.nat(), label: fc.string(), split_key_source: fc.constantFrom('header', 'random') }),
        unused_variables: fc.array(fc.string()),
      },
      // Only when the request named a split label, only when it gave variables.
      { requiredKeys: ['request', 'preset', 'dropped', 'overridden'] },
    );
    fc.assert(
      fc.property(resolution, (r) => {
        const expected = JSON.stringify(r);
        expect(resolutionJson(r as unknown as Resolution)).toBe(expected);
        expect(resolutionJson(r as unknown as Resolution)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});
