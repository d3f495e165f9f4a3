import fc from 'fast-check';
import { canonicalize } from 'json-canonicalize';
import { jsonSpan } from '#src/jsonSpan';
import { jsonValue, type Json } from '../support/jsonArbitrary';

/**
 * jsonSpan against JSON.parse: for any JSON object, as JSON.stringify writes it (compact or
 * indented) or as canonical JSON (how the embedded store keeps events), the span found for a path
 * is the text of exactly the value JSON.parse finds there; a path that is not there finds nothing.
 */

/** Every path to a member of an object, with the member's value. */
const paths = (value: Json, prefix: string[] = []): Array<[string[], Json]> => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, member]) => [
    [[...prefix, key], member] as [string[], Json],
    ...paths(member, [...prefix, key]),
  ]);
};

// Keys and strings that a naive search would trip on: quotes, escapes, brackets, the key names themselves.
const tricky = fc.constantFrom('config', 'version', '"', '\\', '\\"', '{', '}', '[', ']', ':', ',', '"config":', 'é', '\u2028', '\u0000');
const text = fc.oneof(
  fc.string(),
  tricky,
  fc.tuple(tricky, fc.string(), tricky).map((parts) => parts.join('')),
);
const json = jsonValue(text, text);
const object = fc.dictionary(text, json, { minKeys: 1, maxKeys: 6 });

const writers: Array<[string, (value: Json) => string]> = [
  ['compact', (v) => JSON.stringify(v)],
  ['indented', (v) => JSON.stringify(v, null, 2)],
  ['canonical', (v) => canonicalize(v)],
];

describe.each(writers)('jsonSpan over %s JSON', (_name, write) => {
  it('finds exactly the value JSON.parse finds at every path', () => {
    fc.assert(
      fc.property(object, (value) => {
        const written = write(value);
        // The value each path names in the text as it was written (the last of duplicate keys never arises: no duplicates).
        const parsed = JSON.parse(written) as Json;
        for (const [path] of paths(parsed)) {
          const span = jsonSpan(written, path);
          expect(span).toBeDefined();
          const expected = path.reduce<Json>((v, key) => (v as Record<string, Json>)[key]!, parsed);
          expect(JSON.parse(written.slice(span!.start, span!.end))).toEqual(expected);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('finds nothing at a path that is not there', () => {
    fc.assert(
      fc.property(object, text, (value, missing) => {
        fc.pre(!(missing in value));
        const written = write(value);
        expect(jsonSpan(written, [missing])).toBeUndefined();
        // Below a member that is not an object there is nothing either.
        for (const [path, member] of paths(value))
          if (member === null || typeof member !== 'object' || Array.isArray(member))
            expect(jsonSpan(written, [...path, 'x'])).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });
});

it("finds a preset version's config in an event's canonical text, past a name and a key that say config", () => {
  const data = {
    name: '"version":{"config":',
    version: { number: 2, config: { model: 'm', tools: [{ config: { version: { config: 1 } } }] }, creatorId: 'u' },
  };
  const written = canonicalize(data);
  const span = jsonSpan(written, ['version', 'config'])!;
  expect(written.slice(span.start, span.end)).toBe(canonicalize(data.version.config));
  expect(jsonSpan(written, ['version', 'number'])).toEqual({
    start: written.indexOf('"number":2') + 9,
    end: written.indexOf('"number":2') + 10,
  });
  expect(jsonSpan('[1,2]', ['version'])).toBeUndefined();
  expect(jsonSpan('{}', ['version'])).toBeUndefined();
});
