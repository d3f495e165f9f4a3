import * as t from 'io-ts';
import { toJsonSchema } from '#src/jsonSchema';
import {
  between,
  enumOf,
  limits,
  listOf,
  metadata,
  nullable,
  object,
  objectWith,
  oneOf,
  props,
  refine,
  variants,
} from '#src/formats/codecs';

describe('io-ts codec → JSON Schema', () => {
  it("adds the keywords a refinement declares to the refined codec's schema", () => {
    expect(toJsonSchema(between(0, 2))).toEqual({ type: 'number', minimum: 0, maximum: 2 });
    expect(toJsonSchema(refine(t.number, Number.isInteger, 'integer', { type: 'integer' }))).toEqual({ type: 'integer' });
  });

  it('refuses a refinement that does not say what it checks, rather than publish a looser schema', () => {
    expect(() => toJsonSchema(refine(t.string, (s) => s.length > 2, 'long'))).toThrow(/cannot express/);
    expect(() => toJsonSchema(t.type({ n: t.Int }))).toThrow(/cannot express/);
  });

  it('reads nullable and kind-picked unions as lists of types where that says the same', () => {
    expect(toJsonSchema(nullable(between(-2, 2)))).toEqual({ type: ['number', 'null'], minimum: -2, maximum: 2 });
    expect(toJsonSchema(nullable(enumOf('tier', ['a', 'b'])))).toEqual({ type: ['string', 'null'], enum: ['a', 'b', null] });
    expect(toJsonSchema(oneOf('s or l', { string: t.string, array: listOf(t.string) }))).toEqual({
      type: ['string', 'array'],
      items: { type: 'string' },
    });
    expect(toJsonSchema(t.union([t.literal('x'), t.null]))).toEqual({ anyOf: [{ const: 'x' }, { type: 'null' }] });
  });

  it('gives metadata its pair count and key length, and nested limits without a type', () => {
    expect(toJsonSchema(metadata(true))).toEqual({
      type: 'object',
      additionalProperties: { type: 'string', maxLength: 512 },
      maxProperties: 16,
      propertyNames: { maxLength: 64, pattern: '^[^\\[\\]]*$' },
    });
    expect(toJsonSchema(limits.array({ minItems: 1, maxItems: 8 }, limits.string({ maxLength: 3 })))).toEqual({
      minItems: 1,
      maxItems: 8,
      items: { maxLength: 3 },
    });
  });

  it('reads a discriminated variant as if/then on the discriminator', () => {
    expect(toJsonSchema(objectWith(variants('id', { fusion: props({ n: limits.number({ maximum: 16 }) }) })))).toEqual({
      type: 'object',
      allOf: [{ if: { properties: { id: { const: 'fusion' } }, required: ['id'] }, then: { properties: { n: { maximum: 16 } } } }],
    });
    expect(toJsonSchema(object)).toEqual({ type: 'object' });
  });

  it('writes a codec met below the root as a $ref when asked', () => {
    const Inner = t.type({ a: t.string });
    expect(toJsonSchema(t.type({ inner: Inner }), { refs: new Map([[Inner, 'Inner']]) })).toEqual({
      type: 'object',
      properties: { inner: { $ref: '#/components/schemas/Inner' } },
      required: ['inner'],
    });
  });
});
