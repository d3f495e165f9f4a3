import fc from 'fast-check';

/** Any JSON value, with object keys from `key` and strings from `text` (fast-check), a few levels deep. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export const jsonValue = (key: fc.Arbitrary<string>, text: fc.Arbitrary<string> = fc.string()): fc.Arbitrary<Json> =>
  fc.letrec<{ value: Json }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant(null),
      fc.boolean(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
      text,
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(key, tie('value'), { maxKeys: 5 }),
    ),
  })).value;
