import fc from 'fast-check';
import type { StoredFeedEvent } from '#src/eventstore/eventFeed';
import { fetchAnswer, fetchAnswerHead } from '#src/http/fetchAnswer';
import { feedEventJsonText, schemaVersionOf } from '#src/workspaceLog/eventJson';

/**
 * A consumer group's fetch answer as bytes (src/http/fetchAnswer.ts), and the schema version read
 * off a stored metadata text (src/workspaceLog/eventJson.ts): each against the plain way, JSON.parse and
 * JSON.stringify.
 */
const stored = (i: number, text: string): StoredFeedEvent => ({
  stored: true,
  id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  stream: `preset-6a0554e9-fc14-4ef5-b973-8cdc6694dca6-p${i}`,
  revision: BigInt(i),
  position: BigInt(i + 1),
  type: 'PresetDetailsChanged',
  data: JSON.stringify({ name: text, occurredAt: '2026-11-25T00:00:00.000Z', presetId: 'x' }),
  metadata: JSON.stringify({ actorUserId: 'u', schemaVersion: 3 }),
  recordedAt: new Date('2026-11-25T00:00:00.000Z'),
});

describe('fetchAnswer', () => {
  it('is the JSON of the events and the lease, whatever the characters, with or without room for the lease', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme' }), { maxLength: 20 }),
        fc.string({ unit: 'binary', maxLength: 400 }),
        (texts, id) => {
          const events = texts.map((text, i) => stored(i, text));
          const lease = { id, count: events.length };
          const answer = fetchAnswer(fetchAnswerHead(events), lease);
          const expected = `{"data":[${events.map(feedEventJsonText).join(',')}],"lease":${JSON.stringify(lease)}}`;
          expect(answer.toString('utf8')).toBe(expected);
          expect(JSON.parse(answer.toString('utf8'))).toEqual({ data: events.map((e) => JSON.parse(feedEventJsonText(e))), lease });
        },
      ),
    );
  });

  it('answers a null lease for nothing leased', () => {
    expect(JSON.parse(fetchAnswer(fetchAnswerHead([]), null).toString())).toEqual({ data: [], lease: null });
  });
});

describe('schemaVersionOf', () => {
  const parsed = (text: string): unknown => (JSON.parse(text) as { schemaVersion?: unknown }).schemaVersion;

  it('gives what JSON.parse gives, for any metadata object', () => {
    const key = fc.oneof(fc.constantFrom('schemaVersion', 'x"schemaVersion', 'schemaVersion"', 'a,'), fc.string());
    const value = fc.oneof(
      fc.nat(),
      fc.integer(),
      fc.double(),
      fc.string(),
      fc.constantFrom(',"schemaVersion":2', '{"schemaVersion":3}'),
      fc.jsonValue(),
    );
    fc.assert(
      fc.property(fc.dictionary(key, value), (metadata) => {
        const text = JSON.stringify(metadata);
        expect(schemaVersionOf(text)).toEqual(parsed(text));
      }),
    );
  });

  it.each([
    ['{"schemaVersion":2}', 2],
    ['{"a":"b","schemaVersion":12,"z":1}', 12],
    ['{"x\\"schemaVersion":2}', undefined],
    ['{"a":{"schemaVersion":2}}', undefined],
    ['{"a":",\\"schemaVersion\\":2"}', undefined],
    ['{"schemaVersion":2,"schemaVersion":3}', 3],
    ['{"schemaVersion":2.5}', 2.5],
    ['{"schemaVersion":"2"}', '2'],
    ['{"schemaVersion": 2}', 2],
    ['{"schemaVersion":02}', 'throws'],
  ])('reads %s as JSON.parse does', (text, expected) => {
    if (expected === 'throws') expect(() => schemaVersionOf(text)).toThrow();
    else expect(schemaVersionOf(text)).toEqual(expected);
  });
});
