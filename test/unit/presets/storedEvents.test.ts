import fc from 'fast-check';
import { canonicalJson } from '#src/eventstore/canonicalJson';
import type { StoredFeedEvent } from '#src/eventstore/eventFeed';
import { CURRENT_SCHEMA_VERSION, decodePresetEvent as decodeEvent, MalformedEvent, type StoredPresetEvent } from '#src/presets/events';
import { streamFold } from '#projections/presetProjection';
import { jsonValue } from '#support/jsonArbitrary';
import { presetViewJson, versionViewJson } from '#projections/readmodel/documentJson';
import { decodeStoredEvent, isRawJson } from '#src/presets/storedEvents';

/**
 * A rebuild folds events from their stored text, a version's config kept as that text; the live
 * projector folds them parsed. Whatever the config, both must make the same documents, byte for
 * byte (the ETag of a document is its revision: the bytes behind one ETag may not change with a
 * rebuild). The stored text is what the embedded store writes: canonical JSON (writer.ts).
 */
const key = fc.oneof(fc.string(), fc.constantFrom('0', '1', '2', '10', '09', '-1', 'config', '"', '\\', '"config":'), fc.nat().map(String));
const json = jsonValue(key);
const config = fc.dictionary(key, json, { maxKeys: 6 });

let position = 0n;
const stored = (type: string, data: unknown, revision: bigint, metadata: object = {}): StoredFeedEvent => ({
  stored: true,
  id: `e${++position}`,
  stream: 'preset-w-s',
  revision,
  position,
  type,
  data: canonicalJson(data),
  metadata: canonicalJson({
    requestId: 'r',
    actorUserId: 'u',
    schemaVersion: CURRENT_SCHEMA_VERSION,
    sourceFormat: 'chat_completions',
    ...metadata,
  }),
  recordedAt: new Date(0),
});
const parsed = (e: StoredFeedEvent): StoredPresetEvent =>
  decodeEvent({ ...e, data: JSON.parse(e.data) as unknown, metadata: JSON.parse(e.metadata) as unknown });

// Every other version templated: its variables schema and messages follow the config in the stored text.
const version = (n: number, c: unknown) => ({
  id: `v${n}`,
  number: n,
  config: c,
  systemPrompt: `prompt ${n} "quoted" {{x}}`,
  ...(n % 2 === 0
    ? {
        templateFormat: 'handlebars',
        variables: { type: 'object', properties: { x: { type: 'string', description: '"config":{}' } }, $defs: { y: { type: 'number' } } },
        messages: [{ role: 'user', content: 'Say {{x}}' }],
      }
    : { templateFormat: 'none', variables: null, messages: [] }),
  creatorId: 'u',
});
const created = (c: unknown) =>
  stored(
    'PresetCreated',
    {
      presetId: 'p',
      workspaceId: 'w',
      slug: 's',
      name: 'N',
      creatorUserId: 'u',
      version: version(1, c),
      occurredAt: '2026-01-01T00:00:00Z',
    },
    0n,
  );
const added = (c: unknown, revision: bigint, designated?: false) =>
  stored(
    'PresetVersionAdded',
    {
      presetId: 'p',
      version: version(Number(revision) + 1, c),
      occurredAt: '2026-01-02T00:00:00Z',
      ...(designated === false ? { designated } : {}),
    },
    revision,
  );

/** The documents a fold makes of the events, as text: the preset and every version. */
const documents = (events: StoredPresetEvent[]) => {
  const fold = streamFold();
  for (const e of events) fold.apply(e);
  return { preset: presetViewJson(fold.current()!.view), versions: fold.versions().map(versionViewJson) };
};

it('makes the same documents from stored text as from the parsed events, for any config', () => {
  fc.assert(
    fc.property(config, config, fc.boolean(), (first, second, protect) => {
      const events = [created(first), added(second, 1n, protect ? false : undefined)];
      expect(documents(events.map(decodeStoredEvent))).toEqual(documents(events.map(parsed)));
    }),
    { numRuns: 500 },
  );
});

it('keeps a config as its text unless it has an integer-like key (JavaScript puts those first), and decodes the rest', () => {
  const plain = decodeStoredEvent(created({ model: 'm', temperature: 0.5, tools: [{ type: 'function' }] }));
  expect(plain.event.type === 'PresetCreated' && isRawJson(plain.event.data.version.config)).toBe(true);
  expect(plain.event.data).toMatchObject({ presetId: 'p', slug: 's', version: { number: 1, systemPrompt: 'prompt 1 "quoted" {{x}}' } });
  const biased = decodeStoredEvent(created({ model: 'm', logit_bias: { '50256': -100, '1234': 5 } }));
  expect(biased.event.type === 'PresetCreated' && biased.event.data.version.config).toEqual({
    model: 'm',
    logit_bias: { '50256': -100, '1234': 5 },
  });
});

it('still refuses an event whose other fields do not match their schema, and a config that is not an object', () => {
  const bad = stored(
    'PresetVersionAdded',
    { presetId: 'p', version: { ...version(2, { model: 'm' }), number: 'two' }, occurredAt: 'x' },
    1n,
  );
  expect(() => decodeStoredEvent(bad)).toThrow(MalformedEvent);
  const notObject = stored('PresetVersionAdded', { presetId: 'p', version: version(2, ['m']), occurredAt: 'x' }, 1n);
  expect(() => decodeStoredEvent(notObject)).toThrow(MalformedEvent);
  // An event of schema version 1 is upcast as decodeEvent does (its creator from the metadata).
  const v1 = stored(
    'PresetVersionAdded',
    { presetId: 'p', version: { id: 'v2', number: 2, config: { model: 'm' }, systemPrompt: '' }, occurredAt: 'x' },
    1n,
    {
      schemaVersion: 1,
      actorUserId: 'someone',
    },
  );
  expect(decodeStoredEvent(v1).event.data).toMatchObject({ version: { creatorId: 'someone' } });
});
