import fc from 'fast-check';
import * as E from 'fp-ts/Either';
import { FORMAT_CODECS } from '#src/formats';
import { SOURCE_FORMATS } from '#src/presets/events';
import { RESOLVE_REQUEST_CODECS } from '#src/resolve/codecs';
import { RICH_BODIES } from '#support/richBodies';

/**
 * The resolver checks a body with the codec's `is` and decodes only to say what is wrong (decoding
 * costs several times more): that is only sound if `is` accepts exactly what `decode` accepts.
 * Checked on bodies near the valid ones (rich bodies with fields swapped for arbitrary JSON, so
 * every field's codec sees values of every kind) and on arbitrary values.
 */
const json = fc.jsonValue({ maxDepth: 4 });

describe.each(SOURCE_FORMATS)('%s', (format) => {
  const codec = RESOLVE_REQUEST_CODECS[format];
  const fields = [...Object.keys(FORMAT_CODECS[format].fieldCodecs), 'preset'];
  const near = fc
    .tuple(RICH_BODIES[format], fc.dictionary(fc.constantFrom(...fields), json, { maxKeys: 3 }))
    .map(([body, changes]) => ({ ...body, ...changes }));
  const same = (value: unknown) => expect(codec.is(value)).toBe(E.isRight(codec.decode(value)));

  it('is(x) holds exactly when decode(x) succeeds, for bodies near valid ones', () => {
    fc.assert(fc.property(near, same), { numRuns: 3000 });
  });

  it('and for arbitrary values', () => {
    fc.assert(fc.property(fc.oneof(json, fc.dictionary(fc.constantFrom(...fields), json)), same), { numRuns: 2000 });
  });
});
