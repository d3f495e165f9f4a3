import type { EventStoreAdapter } from '#src/eventstore/eventStore';
import { openMemoryEventStore } from '#src/eventstore/memory';
import { PROJECTOR_NAME } from '#projections/projector';
import { openMemoryReadModel } from '#projections/readmodel/memory';
import { catchUp, rebuildInto } from '#projections/rebuild';
import { dump, makeHistory, projectLive } from '#support/presetHistory';
import { WORKSPACE_STREAM_PREFIX } from '#src/events/workspaceStreams';

describe('rebuild', () => {
  let store: EventStoreAdapter;
  beforeEach(() => {
    store = openMemoryEventStore();
  });
  afterEach(async () => {
    await store.close();
  });
  const head = () => store.headPosition({ streamPrefix: WORKSPACE_STREAM_PREFIX });

  it.each([1, 4, 5000])('builds what the live projector builds, rollbacks included (pages of %i)', async (pageSize) => {
    await makeHistory(store);
    const live = openMemoryReadModel();
    await projectLive(store, live);
    const rebuilt = openMemoryReadModel();
    const log: string[] = [];
    const result = await rebuildInto(store, rebuilt, { log: (l) => log.push(l), pageSize });
    const expected = await dump(live);
    expect(await dump(rebuilt)).toEqual(expected);
    expect(expected.find((p) => p.record?.view.slug === 'support-bot')?.record?.view.designated_version.version).toBe(1);
    expect(result.position).toBe(await head());
    expect(await rebuilt.checkpoint(PROJECTOR_NAME)).toBe(await head());
    expect(log).toEqual([]); // no progress lines within 2 s, nothing arrived meanwhile
  });

  it('stops at the position it is given, and a second pass takes the rest', async () => {
    await makeHistory(store, { extraPresets: 0 });
    const all = await store.readAll({ limit: 100, streamPrefix: WORKSPACE_STREAM_PREFIX });
    const middle = all[4]!.position;
    const rm = openMemoryReadModel();
    const first = await catchUp(store, rm, { after: undefined, until: middle, pageSize: 3 });
    expect(first).toEqual({ position: middle, events: 5 });
    expect(await rm.checkpoint(PROJECTOR_NAME)).toBe(middle);
    const rest = await catchUp(store, rm, { after: first.position, until: await head(), pageSize: 3 });
    expect(rest.events).toBe(all.length - 5);
    expect(await catchUp(store, rm, { after: undefined, until: null })).toEqual({ position: undefined, events: 0 });
  });

  it('takes in events appended while it ran', async () => {
    await makeHistory(store, { extraPresets: 0 });
    let appended = false;
    const racing: EventStoreAdapter = {
      ...store,
      readAll: async (options) => {
        const page = await store.readAll(options);
        if (!appended) {
          appended = true;
          await makeHistory(store, { extraPresets: 1 }); // more events, after the head taken at the start
        }
        return page;
      },
    };
    const log: string[] = [];
    const rebuilt = openMemoryReadModel();
    const result = await rebuildInto(racing, rebuilt, { log: (l) => log.push(l) });
    expect(result.position).toBe(await head());
    expect(log.some((l) => /events arrived during the rebuild/.test(l))).toBe(true);
  });
});
