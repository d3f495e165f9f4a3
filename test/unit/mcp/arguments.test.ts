import fc from 'fast-check';
import Ajv2020 from 'ajv/dist/2020';
import { allowedTypes, parseArguments, promptArguments } from '#src/mcp/arguments';

/**
 * MCP gives a prompt's arguments as strings; the version's variables schema says what each should
 * be. The values made from the strings are checked here with ajv against the schema (the checker
 * the resolve uses), not against our reading of it.
 */
const ajv = new Ajv2020({ strict: false });
const schemaOf = (property: Record<string, unknown>) => ({ type: 'object', properties: { x: property } });
const accepts = (property: Record<string, unknown>, value: unknown) => ajv.validate(schemaOf(property), { x: value });

const jsonValue = fc.jsonValue();

describe('parseArguments', () => {
  it('gives back, for a schema of one JSON type, any value of that type written as JSON', () => {
    const cases: Array<[string, fc.Arbitrary<unknown>]> = [
      ['integer', fc.integer()],
      ['number', fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0))],
      ['boolean', fc.boolean()],
      ['array', fc.array(jsonValue, { maxLength: 4 })],
      ['object', fc.dictionary(fc.string(), jsonValue, { maxKeys: 4 })],
      ['null', fc.constant(null)],
    ];
    for (const [type, values] of cases) {
      fc.assert(
        fc.property(values, (value) => {
          const text = JSON.stringify(value);
          const parsed = parseArguments(schemaOf({ type }), { x: text }).x;
          // The value the JSON text writes (a -0 inside a list is written 0).
          expect(parsed).toEqual(JSON.parse(text));
          expect(accepts({ type }, parsed)).toBe(true);
        }),
      );
    }
  });

  it('keeps any string as it is where only text is allowed, JSON-looking or not', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          jsonValue.map((v) => JSON.stringify(v)),
        ),
        (text) => {
          expect(parseArguments(schemaOf({ type: 'string' }), { x: text }).x).toBe(text);
          expect(parseArguments(schemaOf({ enum: ['true', 'false'] }), { x: text }).x).toBe(text);
        },
      ),
    );
  });

  it('keeps a string that is not JSON of an allowed type, for the schema to refuse or accept', () => {
    const number = parseArguments(schemaOf({ type: 'integer' }), { x: 'many' }).x;
    expect(number).toBe('many');
    expect(accepts({ type: 'integer' }, number)).toBe(false);
    // JSON, but of a type the schema does not allow: the string stays, and the schema says no.
    expect(parseArguments(schemaOf({ type: 'boolean' }), { x: '1' }).x).toBe('1');
    // Text or a number: 42 is the number, "forty" the text.
    expect(parseArguments(schemaOf({ type: ['string', 'number'] }), { x: '42' }).x).toBe(42);
    expect(parseArguments(schemaOf({ type: ['string', 'number'] }), { x: 'forty' }).x).toBe('forty');
  });

  it('reads an untyped variable (an inferred #if flag) as JSON when it is JSON, else as text', () => {
    const untyped = { type: 'object', properties: { flag: {} } };
    expect(parseArguments(untyped, { flag: 'false' }).flag).toBe(false);
    expect(parseArguments(untyped, { flag: 'yes' }).flag).toBe('yes');
  });

  it('takes the types from enum, const and anyOf when there is no type', () => {
    expect(parseArguments(schemaOf({ enum: [1, 2, 3] }), { x: '2' }).x).toBe(2);
    expect(parseArguments(schemaOf({ const: true }), { x: 'true' }).x).toBe(true);
    expect(parseArguments(schemaOf({ anyOf: [{ type: 'integer' }, { type: 'null' }] }), { x: 'null' }).x).toBeNull();
    expect([...allowedTypes({ anyOf: [{ type: 'integer' }, { type: 'string' }] })!]).toEqual(['integer', 'string']);
    expect(allowedTypes({ anyOf: [{ type: 'integer' }, {}] })).toBeUndefined();
  });

  it('passes an undeclared argument as text, and a name like __proto__ as an own property', () => {
    const values = parseArguments({ type: 'object', properties: {} }, { other: '5', __proto__: '{"polluted":true}' } as Record<
      string,
      string
    >);
    expect(values.other).toBe('5');
    expect(Object.getPrototypeOf(values)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const declared = parseArguments(
      { type: 'object', properties: { ['__proto__']: { type: 'object' } } },
      JSON.parse('{"__proto__":"{\\"a\\":1}"}') as Record<string, string>,
    );
    expect(Object.hasOwn(declared, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(declared, '__proto__')!.value).toEqual({ a: 1 });
  });
});

describe('promptArguments', () => {
  it("lists the schema's properties in order, each required as the schema says, with its description and how to write it", () => {
    const args = promptArguments({
      type: 'object',
      properties: {
        company: { type: 'string', description: 'Whose customers' },
        language: { type: 'string', enum: ['English', 'French'], default: 'English' },
        premium: { type: 'boolean' },
        items: { type: 'array', description: 'What was bought' },
        notes: {},
      },
      required: ['company', 'items'],
    });
    expect(args).toEqual([
      { name: 'company', description: 'Whose customers', required: true },
      { name: 'language', description: '(one of English, French; default English)', required: false },
      { name: 'premium', description: '(true or false)', required: false },
      { name: 'items', description: 'What was bought (JSON array)', required: true },
      { name: 'notes', required: false },
    ]);
  });

  it('has none for a version without variables', () => {
    expect(promptArguments(null)).toEqual([]);
    expect(promptArguments({ type: 'object' })).toEqual([]);
  });
});
