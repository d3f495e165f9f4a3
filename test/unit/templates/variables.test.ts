import * as E from 'fp-ts/Either';
import { checkTemplate, renderVersion } from '#src/templates/render';
import { compileVariables, patternProblem } from '#src/templates/variables';

/**
 * A variables schema is user input (src/templates/variables.ts): JSON Schema draft 2020-12 as ajv
 * reads it in strict mode, within bounds, with patterns on RE2. Each case is a schema a write may
 * send; the problems are what the 400 lists.
 */
const PATH = '$.variables';
const problems = (schema: unknown) => {
  const compiled = compileVariables(schema, PATH);
  return Array.isArray(compiled) ? compiled : [];
};
const object = (properties: Record<string, unknown>, rest: Record<string, unknown> = {}) => ({ type: 'object', properties, ...rest });

describe('a variables schema', () => {
  it('is JSON Schema 2020-12 of an object, with types, enums, defaults, descriptions and formats', () => {
    expect(
      problems(
        object(
          {
            language: { type: 'string', enum: ['en', 'fr'], default: 'en', description: 'The reply’s language' },
            email: { type: 'string', format: 'email' },
            when: { type: 'string', format: 'date' },
            count: { type: ['integer', 'null'], minimum: 0 },
            tags: { type: 'array', items: { type: 'string' }, maxItems: 10, uniqueItems: true },
            code: { type: 'string', pattern: '^[A-Z]{2}-\\d{3}$' },
            owner: { $ref: '#/$defs/person' },
          },
          {
            required: ['language'],
            $defs: { person: object({ name: { type: 'string' } }) },
            $schema: 'https://json-schema.org/draft/2020-12/schema',
          },
        ),
      ),
    ).toEqual([]);
  });

  it('is refused when not an object schema, or not valid JSON Schema, at the place of the problem', () => {
    expect(problems([])).toEqual([{ path: PATH, message: expect.stringMatching(/JSON Schema object/) }]);
    expect(problems({ type: 'string' })).toEqual([{ path: '$.variables.type', message: expect.stringMatching(/must be "object"/) }]);
    expect(problems(object({ a: { type: 'text' } }))).toEqual(
      expect.arrayContaining([{ path: '$.variables.properties.a.type', message: expect.stringMatching(/^is not valid JSON Schema/) }]),
    );
    expect(problems(object({ a: { type: 'string', minLenght: 3 } }))).toEqual([
      { path: PATH, message: expect.stringMatching(/unknown keyword: "minLenght"/) },
    ]);
    expect(problems(object({ a: { type: 'string', format: 'colour' } }))).toEqual([
      { path: PATH, message: expect.stringMatching(/unknown format "colour"/) },
    ]);
    expect(problems(object({ a: { type: 'string' } }, { required: ['b'] }))).toEqual([
      { path: PATH, message: expect.stringMatching(/required property "b" is not defined/) },
    ]);
    expect(problems({ ...object({}), $schema: 'http://json-schema.org/draft-07/schema#' })).toEqual([
      { path: '$.variables.$schema', message: expect.stringMatching(/draft 2020-12/) },
    ]);
  });

  it('is one document: no $id or anchors, $ref only a JSON pointer into itself, and never recursive', () => {
    expect(problems({ ...object({}), $id: 'https://example.com/s' })).toEqual([
      { path: '$.variables.$id', message: expect.stringMatching(/not supported/) },
    ]);
    expect(problems(object({ a: { $ref: 'https://example.com/schema.json' } }))).toEqual([
      { path: '$.variables.properties.a.$ref', message: expect.stringMatching(/JSON pointer/) },
    ]);
    expect(problems(object({ a: { $ref: '#/$defs/missing' } }))).toEqual([
      { path: '$.variables.properties.a.$ref', message: expect.stringMatching(/JSON pointer/) },
    ]);
    expect(
      problems(
        object(
          { tree: { $ref: '#/$defs/node' } },
          { $defs: { node: object({ children: { type: 'array', items: { $ref: '#/$defs/node' } } }) } },
        ),
      ),
    ).toEqual([{ path: PATH, message: expect.stringMatching(/recursive/) }]);
  });

  it('is bounded: size, depth, and subschemas with each $ref counted as a copy, so references cannot multiply the work', () => {
    expect(problems(object({ a: { type: 'string', description: 'x'.repeat(33_000) } }))).toEqual([
      { path: PATH, message: expect.stringMatching(/larger than 32768/) },
    ]);
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 20; i++) deep = object({ a: deep });
    expect(problems(object({ a: deep }))).toEqual([{ path: PATH, message: expect.stringMatching(/deeper than 32/) }]);
    // Each level refers to the next twice: 2^20 subschemas in a few hundred bytes.
    const defs: Record<string, unknown> = { d20: { type: 'string' } };
    for (let i = 0; i < 20; i++) defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
    expect(problems(object({ a: { $ref: '#/$defs/d0' } }, { $defs: defs }))).toEqual([
      { path: PATH, message: expect.stringMatching(/more than 500 subschemas/) },
    ]);
  });

  it('compares items pairwise only within a small maxItems', () => {
    expect(problems(object({ a: { type: 'array', uniqueItems: true } }))).toEqual([
      { path: '$.variables.properties.a.uniqueItems', message: expect.stringMatching(/maxItems/) },
    ]);
    expect(problems(object({ a: { type: 'array', uniqueItems: true, maxItems: 5000 } }))).toHaveLength(1);
  });
});

describe('patterns run on RE2, in time linear in the text', () => {
  it('refuses lookaround and backreferences, which RE2 cannot run, and what is no regular expression', () => {
    expect(patternProblem('^(?=.*\\d).+$')).toMatch(/cannot run in linear time/);
    expect(patternProblem('^(a)\\1$')).toMatch(/cannot run in linear time/);
    expect(patternProblem('(')).toMatch(/is not a regular expression/);
    expect(patternProblem('a'.repeat(1001))).toMatch(/longer than 1000/);
    expect(problems(object({}, { patternProperties: { '^(?!x)': { type: 'string' } } }))).toEqual([
      { path: '$.variables.patternProperties["^(?!x)"]', message: expect.stringMatching(/linear time/) },
    ]);
  });

  it('matches as ECMAScript does for what both engines read alike (\\d, \\p{L}, \\u escapes, anchors)', () => {
    const version = {
      id: 'patterns-1',
      system_prompt: '{{code}} {{name}}',
      template_format: 'handlebars' as const,
      variables: object({ code: { type: 'string', pattern: '^[A-Z]{2}-\\d{3}$' }, name: { type: 'string', pattern: '^\\p{L}+\\u00e9?$' } }),
    };
    expect(E.isRight(renderVersion(version, { code: 'AB-123', name: 'Renée' }, '$.v'))).toBe(true);
    const wrong = renderVersion(version, { code: 'ab-123', name: 'R2' }, '$.v');
    expect(E.isLeft(wrong) && wrong.left.problems.map((p) => p.path)).toEqual(['$.v.code', '$.v.name']);
  });

  it('takes a pattern that backtracking engines take exponential time on, and a long text that does not match, in stride', () => {
    const version = {
      id: 'patterns-2',
      system_prompt: '{{text}}',
      template_format: 'handlebars' as const,
      variables: object({ text: { type: 'string', pattern: '^(a|a)*$' } }),
    };
    // With JavaScript's RegExp this would not finish (2^50 paths); RE2 answers in one pass.
    const answer = renderVersion(version, { text: `${'a'.repeat(50)}b` }, '$.v');
    expect(E.isLeft(answer) && answer.left.problems).toEqual([{ path: '$.v.text', message: 'must match pattern "^(a|a)*$"' }]);
  });
});

describe('a schema given to a write', () => {
  it('is checked at the write, with the template, and the 400 names the schema’s place', () => {
    const result = checkTemplate(
      {
        templateFormat: 'handlebars',
        systemPrompt: '{{a}}',
        messages: [],
        variables: object({ a: { type: 'string', pattern: '(?<=x)a' } }),
      },
      { systemPrompt: '$.system_prompt', messages: '$.messages', variables: '$.variables' },
    );
    expect(result).toEqual(E.left([{ path: '$.variables.properties.a.pattern', message: expect.stringMatching(/linear time/) }]));
  });
});
