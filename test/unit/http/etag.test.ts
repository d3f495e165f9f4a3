import { ifNoneMatchNames } from '#src/http/etag';

describe('If-None-Match (RFC 9110 §13.1.2)', () => {
  it.each([
    ['"3"', '"3"', true],
    ['W/"3"', '"3"', true],
    ['"3"', 'W/"3"', true],
    ['"1", "2" ,"3"', '"3"', true],
    ['*', '"3"', true],
    [' * ', '"3"', true],
    ['"a,b", "c"', '"a,b"', true],
    ['"a,b"', '"a"', false],
    ['"30"', '"3"', false],
    ['3', '"3"', false],
    ['', '"3"', false],
    ['"4"', '"3"', false],
  ])('%s names %s: %s', (header, etag, expected) => {
    expect(ifNoneMatchNames(header, etag)).toBe(expected);
  });
});
