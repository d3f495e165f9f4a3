import { fieldsOf, typeText, valuesOf } from '#src/console/variables';

/** The console's reading of a variables schema (src/console/variables.ts): the types it shows, the fields it asks with, the values it sends. */
const schema = {
  type: 'object',
  properties: {
    company: { type: 'string', description: 'Whose customers' },
    language: { type: 'string', enum: ['English', 'French'], default: 'English' },
    premium: { type: 'boolean' },
    count: { type: 'integer', minimum: 0 },
    ratio: { type: ['number', 'null'] },
    email: { type: 'string', format: 'email' },
    tags: { type: 'array', items: { type: 'string' } },
    order: { type: 'object' },
    anything: {},
  },
  required: ['company', 'count'],
};

describe('a variables schema in the console', () => {
  it('shows each variable’s type in words, in the order declared, with required, default and description', () => {
    expect(fieldsOf(schema).map((f) => [f.name, f.type, f.kind, f.required])).toEqual([
      ['company', 'string', 'text', true],
      ['language', 'one of "English", "French"', 'choice', false],
      ['premium', 'boolean', 'boolean', false],
      ['count', 'integer', 'integer', true],
      ['ratio', 'number or null', 'number', false],
      ['email', 'string (email)', 'text', false],
      ['tags', 'list of string', 'json', false],
      ['order', 'object', 'json', false],
      ['anything', 'any value', 'json', false],
    ]);
    expect(fieldsOf(schema)[0]).toMatchObject({ description: 'Whose customers' });
    expect(fieldsOf(schema)[1]).toMatchObject({ default: 'English', choices: ['English', 'French'] });
    expect(fieldsOf(null)).toEqual([]);
    expect(typeText({ type: 'string', pattern: '^AC-\\d+$' })).toBe('string matching ^AC-\\d+$');
  });

  it('sends what the form holds, typed as the schema says, and leaves empty fields out so defaults apply', () => {
    const fields = fieldsOf(schema);
    expect(
      valuesOf(fields, {
        company: 'Acme',
        language: '1',
        premium: 'false',
        count: '3',
        ratio: '',
        tags: '["a","b"]',
        order: ' ',
        anything: 'null',
      }),
    ).toEqual({
      values: { company: 'Acme', language: 'French', premium: false, count: 3, tags: ['a', 'b'], anything: null },
      problems: [],
    });
    expect(valuesOf(fields, { count: 'three', tags: '[a' }).problems).toEqual(['count: "three" is not a number', 'tags: not valid JSON']);
  });
});
