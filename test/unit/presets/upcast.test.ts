import fc from 'fast-check';
import * as E from 'fp-ts/Either';
import type * as t from 'io-ts';
import type { EventStoreAdapter, RecordedEvent } from '#src/eventstore/eventStore';
import { openMemoryEventStore } from '#src/eventstore/memory';
import { CURRENT_SCHEMA_VERSION, EventMetadata, MalformedEvent, presetEventDataCodecs } from '#src/presets/events';
import { keyEventDataCodecs } from '#src/keys/events';
import { decodeWorkspaceEvent as decodeEvent } from '#src/workspaceLog/catalog';

const eventDataCodecs = { ...presetEventDataCodecs, ...keyEventDataCodecs };
import { createPresetCommandHandler } from '#src/presets/handler';
import { presetStreamName } from '#src/presets/streamName';
import { upcast, UPCASTERS, type RawEvent } from '#src/presets/upcasters';
import { projectBatch } from '#projections/projectBatch';
import { openMemoryReadModel } from '#projections/readmodel/memory';
import { rebuildInto } from '#projections/rebuild';

const WS = '6a0d2c1e-3b4f-4a5e-8d7c-9e0f1a2b3c4d';
const version = (n: number) => ({ id: `v${n}`, number: n, config: { model: 'm' }, systemPrompt: `S${n}` });
const meta = (actorUserId: string) => ({
  requestId: `req-${actorUserId}`,
  actorUserId,
  schemaVersion: 1,
  sourceFormat: 'chat_completions',
});
/** Events as a v1 writer stored them: no version.creatorId. */
const v1Created = {
  type: 'PresetCreated',
  metadata: meta('alice'),
  data: {
    presetId: 'p1',
    workspaceId: WS,
    slug: 'old',
    name: 'old',
    creatorUserId: 'alice',
    version: version(1),
    occurredAt: '2025-01-01T00:00:00.000Z',
  },
};
const v1Added = {
  type: 'PresetVersionAdded',
  metadata: meta('bob'),
  data: { presetId: 'p1', version: version(2), occurredAt: '2025-01-02T00:00:00.000Z' },
};

const recorded = (raw: RawEvent, revision = 0n): RecordedEvent => ({
  ...raw,
  id: `e${revision}`,
  stream: 's',
  revision,
  position: revision + 1n,
  recordedAt: new Date(),
});

describe('the upcasters', () => {
  it('cover every schema version below the current one', () => {
    for (let v = 1; v < CURRENT_SCHEMA_VERSION; v++) expect(UPCASTERS[v]).toBeInstanceOf(Function);
    expect(UPCASTERS[CURRENT_SCHEMA_VERSION]).toBeUndefined();
  });

  it('v1 → v2: the version creator is the actor of the event, and the metadata says 2', () => {
    const input = structuredClone(v1Added);
    expect(upcast(input, 1, 2)).toEqual({
      type: 'PresetVersionAdded',
      data: { ...v1Added.data, version: { ...version(2), creatorId: 'bob' } },
      metadata: { ...meta('bob'), schemaVersion: 2 },
    });
    expect(input).toEqual(v1Added); // pure: the stored event is not changed
  });

  it('keeps a creatorId that a v1 event already carries, and leaves other event types to the codec', () => {
    const withCreator = { ...v1Created, data: { ...v1Created.data, version: { ...version(1), creatorId: 'carol' } } };
    expect(upcast(withCreator, 1, 2).data).toEqual(withCreator.data);
    const designated = {
      type: 'PresetVersionDesignated',
      metadata: meta('dave'),
      data: { presetId: 'p1', versionId: 'v1', versionNumber: 1, previousVersionNumber: 2, occurredAt: 'x' },
    };
    expect(upcast(designated, 1, 2)).toEqual({ ...designated, metadata: { ...meta('dave'), schemaVersion: 2 } });
  });

  it('v2 → v3: a version made before templates reads as "none", without variables or messages; other events change only their schema version', () => {
    const v2Created = {
      ...v1Created,
      data: { ...v1Created.data, version: { ...version(1), creatorId: 'alice' } },
      metadata: { ...meta('alice'), schemaVersion: 2 },
    };
    const input = structuredClone(v2Created);
    expect(upcast(input, 2, 3)).toEqual({
      type: 'PresetCreated',
      data: { ...v2Created.data, version: { ...v2Created.data.version, templateFormat: 'none', variables: null, messages: [] } },
      metadata: { ...meta('alice'), schemaVersion: 3 },
    });
    expect(input).toEqual(v2Created);
    const labelled = {
      type: 'PresetLabelMoved',
      metadata: { ...meta('erin'), schemaVersion: 2 },
      data: { presetId: 'p1', label: 'prod', versionNumber: 1, versionId: 'v1', previousVersionNumber: null, occurredAt: 'x' },
    };
    expect(upcast(labelled, 2, 3)).toEqual({ ...labelled, metadata: { ...labelled.metadata, schemaVersion: 3 } });
    // A v1 event climbs the whole chain.
    expect(decodeEvent(recorded(v1Added)).event.data).toMatchObject({
      version: { ...version(2), creatorId: 'bob', templateFormat: 'none', variables: null, messages: [] },
    });
  });

  it('passes a malformed event on unchanged for the codec to reject', () => {
    const broken = { type: 'PresetCreated', data: 'nonsense', metadata: meta('x') };
    expect(upcast(broken, 1, 2).data).toBe('nonsense');
    expect(() => decodeEvent(recorded(broken))).toThrow(MalformedEvent);
  });

  it('decodeEvent upcasts before validating, and refuses unknown schema versions', () => {
    expect(decodeEvent(recorded(v1Created)).event).toMatchObject({ data: { version: { creatorId: 'alice' } } });
    expect(decodeEvent(recorded(v1Created)).metadata.schemaVersion).toBe(CURRENT_SCHEMA_VERSION);
    for (const schemaVersion of [CURRENT_SCHEMA_VERSION + 1, 0, 1.5, '1', undefined]) {
      expect(() => decodeEvent(recorded({ ...v1Created, metadata: { ...meta('alice'), schemaVersion } }))).toThrow(/schema version/);
    }
  });
});

describe('decodeEvent', () => {
  const currentAdded = {
    ...v1Added,
    data: {
      ...v1Added.data,
      version: {
        ...version(2),
        templateFormat: 'handlebars',
        variables: { type: 'object', properties: { name: { type: 'string' } } },
        messages: [{ role: 'user', content: 'Hi {{name}}' }],
        creatorId: 'bob',
      },
    },
    metadata: { ...meta('bob'), schemaVersion: CURRENT_SCHEMA_VERSION },
  };
  // The decoder's answer, as the codecs' decode gives it (decodeEvent takes a faster path for valid events).
  const byDecode = (raw: RawEvent) => {
    const data = (eventDataCodecs[raw.type as keyof typeof eventDataCodecs] as t.Mixed).decode(raw.data);
    const metadata = EventMetadata.decode(raw.metadata);
    return E.isRight(data) && E.isRight(metadata) ? { data: data.right, metadata: metadata.right } : null;
  };
  const fields = ['presetId', 'version', 'occurredAt'] as const;
  const versionFields = ['id', 'number', 'config', 'systemPrompt', 'templateFormat', 'variables', 'messages', 'creatorId'] as const;

  it('accepts exactly what the codecs accept, and answers what they answer', () => {
    const mutated = fc
      .tuple(
        fc.constantFrom(...fields, ...versionFields, 'meta.actorUserId', 'meta.sourceFormat'),
        fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined)),
      )
      .map(([field, value]) => {
        const raw = structuredClone(currentAdded) as { data: Record<string, unknown>; metadata: Record<string, unknown>; type: string };
        if (field.startsWith('meta.')) raw.metadata[field.slice(5)] = value;
        else if ((versionFields as readonly string[]).includes(field)) (raw.data.version as Record<string, unknown>)[field] = value;
        else raw.data[field] = value;
        return raw as RawEvent;
      });
    fc.assert(
      fc.property(mutated, (raw) => {
        const expected = byDecode(raw);
        if (expected === null) expect(() => decodeEvent(recorded(raw))).toThrow(MalformedEvent);
        else
          expect(decodeEvent(recorded(raw))).toMatchObject({ event: { type: raw.type, data: expected.data }, metadata: expected.metadata });
      }),
      { numRuns: 300 },
    );
  });
});

describe('v1 events in a store', () => {
  let store: EventStoreAdapter;
  const stream = presetStreamName(WS, 'old');
  beforeEach(async () => {
    store = openMemoryEventStore();
    await store.append(stream, [{ id: 'e0', ...v1Created }], 'no_stream');
    await store.append(stream, [{ id: 'e1', ...v1Added }], 0n);
  });
  afterEach(async () => {
    await store.close();
  });

  it('are read by the command handler, which appends current ones after them', async () => {
    const handle = createPresetCommandHandler({ eventStore: store });
    const added = await handle({
      type: 'AddPresetVersion',
      data: { workspaceId: WS, slug: 'old', config: {}, systemPrompt: '' },
      metadata: { requestId: 'r3', actorUserId: 'carol' },
    });
    expect(added.state).toMatchObject({ status: 'active', versionIds: ['v1', 'v2', expect.any(String)], designatedVersion: 3 });
    await handle({
      type: 'DesignateVersion',
      data: { workspaceId: WS, slug: 'old', version: 1 },
      metadata: { requestId: 'r4', actorUserId: 'dave' },
    });
    const raw = await store.read(stream);
    expect(raw.map((e) => (e.metadata as { schemaVersion: number }).schemaVersion)).toEqual([
      1,
      1,
      CURRENT_SCHEMA_VERSION,
      CURRENT_SCHEMA_VERSION,
    ]);
    expect((raw[0]!.data as { version: object }).version).not.toHaveProperty('creatorId'); // stored events are never rewritten
  });

  it('project creator ids taken from the metadata', async () => {
    const readModel = openMemoryReadModel();
    try {
      await projectBatch(readModel, await store.read(stream), 'test');
      const creators = await Promise.all([1, 2].map(async (n) => (await readModel.getVersion('p1', n))?.creator_id));
      expect(creators).toEqual(['alice', 'bob']);
      expect((await readModel.getPreset(WS, 'old'))?.view).toMatchObject({
        creator_user_id: 'alice',
        designated_version: { version: 2, creator_id: 'bob' },
      });
    } finally {
      await readModel.close();
    }
  });

  it('are upcast by a rebuild too', async () => {
    const rebuilt = openMemoryReadModel();
    expect(await rebuildInto(store, rebuilt, { log: () => {} })).toMatchObject({ events: 2 });
    expect((await rebuilt.listVersions('p1', { offset: 0, limit: 10 })).items.map((v) => v.creator_id)).toEqual(['alice', 'bob']);
    expect((await rebuilt.getPreset(WS, 'old'))?.view.designated_version.creator_id).toBe('bob');
  });
});
