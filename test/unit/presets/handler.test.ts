import { randomUUID } from 'node:crypto';
import { ConcurrencyConflict, type EventStoreAdapter } from '#src/eventstore/eventStore';
import { openMemoryEventStore } from '#src/eventstore/memory';
import { withStateCache } from '#src/eventstore/states';
import { createPresetCommandHandler, presetStates, type PresetCommandRequest } from '#src/presets/handler';
import { decodePresetEvent as decodeEvent } from '#src/presets/events';
import { presetStreamName } from '#src/presets/streamName';

const WS = '0b7c3f5e-1d2a-4e8b-9c6d-2f1e0a9b8c7d';
type Req = { actorUserId?: string; requestId?: string };
/** Adds a version as user `actorUserId` in request `requestId`. */
const addVersion = (deps: Parameters<typeof createPresetCommandHandler>[0], { actorUserId = 'u1', requestId = 'req-1' }: Req = {}) => {
  const command: PresetCommandRequest = {
    type: 'AddPresetVersion',
    data: { workspaceId: WS, slug: 'bot', config: { model: 'm' }, systemPrompt: 'S' },
    metadata: { requestId, actorUserId, sourceFormat: 'responses' },
  };
  return createPresetCommandHandler(deps)(command);
};
const request = () => ({ workspaceId: WS });

describe('the add-version command handler', () => {
  let store: EventStoreAdapter;
  beforeEach(() => {
    store = openMemoryEventStore();
  });
  afterEach(async () => {
    await store.close();
  });

  it('appends PresetCreated at revision 0, then PresetVersionAdded, with metadata', async () => {
    const first = await addVersion({ eventStore: store });
    const second = await addVersion({ eventStore: store }, { requestId: 'req-2', actorUserId: 'u2' });
    expect([first.revision, second.revision]).toEqual([0n, 1n]);
    const events = (await store.read(presetStreamName(request().workspaceId, 'bot'))).map(decodeEvent);
    expect(events.map((e) => e.event.type)).toEqual(['PresetCreated', 'PresetVersionAdded']);
    expect(events[1]!.metadata).toEqual({
      requestId: 'req-2',
      actorUserId: 'u2',
      sourceFormat: 'responses',
      schemaVersion: 3,
      hashed: 'as_stored',
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(events[1]!.event).toMatchObject({ data: { version: { number: 2 } } });
    expect(new Set(events.map((e) => e.id)).size).toBe(2);
  });

  it('stores the metadata keys in the order the log has always had them (stored JSON is kept as written)', async () => {
    // Given in another order than the log's: the order stored is the builder's, not the caller's.
    await createPresetCommandHandler({ eventStore: store })({
      type: 'AddPresetVersion',
      data: { workspaceId: WS, slug: 'bot', config: { model: 'm' }, systemPrompt: 'S' },
      metadata: { keyId: 'k1', sourceFormat: 'messages', actorUserId: 'u1', requestId: 'req-1' },
    });
    const [stored] = await store.read(presetStreamName(WS, 'bot'));
    expect(Object.keys(stored!.metadata as object).filter((k) => k !== 'hash' && k !== 'hashed')).toEqual([
      'requestId',
      'actorUserId',
      'schemaVersion',
      'sourceFormat',
      'keyId',
    ]);
  });

  it('fails with ConcurrencyConflict when another write lands between its read and its append', async () => {
    await addVersion({ eventStore: store });
    // A store whose read lets a competing writer in right after it answers.
    const racing: EventStoreAdapter = {
      ...store,
      read: async (stream, options) => {
        const events = await store.read(stream, options);
        await addVersion({ eventStore: store }, { requestId: 'competitor' });
        return events;
      },
    };
    await expect(addVersion({ eventStore: racing }, { requestId: 'loser' })).rejects.toBeInstanceOf(ConcurrencyConflict);
    const events = (await store.read(presetStreamName(request().workspaceId, 'bot'))).map(decodeEvent);
    expect(events.map((e) => [e.metadata.requestId, e.event.type])).toEqual([
      ['req-1', 'PresetCreated'],
      ['competitor', 'PresetVersionAdded'],
    ]);
  });

  it('uses ids from its id source for the preset, the version and the event', async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    let i = 0;
    const outcome = await addVersion({ eventStore: store, newId: () => ids[i++]!, clock: () => new Date('2026-05-05T05:05:05.000Z') });
    expect(outcome.events[0]).toMatchObject({
      type: 'PresetCreated',
      data: { presetId: ids[0], version: { id: ids[1] }, occurredAt: '2026-05-05T05:05:05.000Z' },
    });
    expect((await store.read(presetStreamName(request().workspaceId, 'bot')))[0]!.id).toBe(ids[2]);
  });

  it('sees versions written by another process despite its state cache (it reads forward from the cached revision)', async () => {
    const here = createPresetCommandHandler({ eventStore: store, states: withStateCache(presetStates(store), 100) });
    const elsewhere = createPresetCommandHandler({ eventStore: store, states: withStateCache(presetStates(store), 100) });
    const command = (requestId: string): PresetCommandRequest => ({
      type: 'AddPresetVersion',
      data: { workspaceId: WS, slug: 'bot', config: {}, systemPrompt: '' },
      metadata: { requestId, actorUserId: 'u1' },
    });
    await here(command('a'));
    await elsewhere(command('b'));
    await elsewhere(command('c'));
    const outcome = await here(command('d'));
    expect(outcome.revision).toBe(3n);
    expect(outcome.events[0]).toMatchObject({ type: 'PresetVersionAdded', data: { version: { number: 4 } } });
  });
});
