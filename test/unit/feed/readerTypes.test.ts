import { readerTypes } from '#src/feed/readerTypes';

/** What the shared tail's reader reads as subscribers come and go. */
it('reads the union of the named types; every type while one subscriber takes every type, or when the store cannot narrow', () => {
  const reading = readerTypes(true);
  expect(reading.wanted()).toBeUndefined(); // no subscriber: nothing named
  reading.count(new Set(['KeyCreated', 'KeyRevoked']), 1);
  reading.count(new Set(['KeyRevoked', 'A']), 1);
  expect(reading.wanted()).toEqual(['A', 'KeyCreated', 'KeyRevoked']);
  reading.count(undefined, 1);
  expect(reading.wanted()).toBeUndefined();
  reading.count(undefined, -1);
  reading.count(new Set(['KeyRevoked', 'A']), -1);
  expect(reading.wanted()).toEqual(['KeyCreated', 'KeyRevoked']);
  expect(reading.key(reading.wanted())).toBe(reading.key(['KeyCreated', 'KeyRevoked']));
  expect(reading.key(reading.wanted())).not.toBe(reading.key(undefined));

  const cannot = readerTypes(false);
  cannot.count(new Set(['KeyCreated']), 1);
  expect(cannot.wanted()).toBeUndefined();
});
