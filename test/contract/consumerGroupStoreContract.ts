import { randomUUID } from 'node:crypto';
import type { ConsumerGroup } from '#src/consumerGroups/group';
import type { ConsumerGroupStore } from '#src/consumerGroups/store';

/** What every consumer group store must do. Fresh workspace ids per test, so a shared server can hold old data. */
export interface ConsumerGroupStoreFixture {
  store: ConsumerGroupStore;
  cleanup(): Promise<void>;
}

const group = (workspaceId: string, name: string, overrides: Partial<ConsumerGroup> = {}): ConsumerGroup => ({
  workspaceId,
  name,
  filter: { types: ['PresetCreated', 'PresetVersionAdded'], slugPrefix: 'support-' },
  leaseMs: 30_000,
  // Positions exceed 2^64 on EventStoreDB: they must survive as exact integers.
  checkpoint: 2n ** 70n + 5n,
  lease: { id: randomUUID(), first: 2n ** 70n + 6n, last: 2n ** 70n + 9n, count: 3, expiresAt: '2026-11-24T12:00:30.000Z' },
  revision: 0,
  createdAt: '2026-11-24T12:00:00.000Z',
  updatedAt: '2026-11-24T12:00:00.000Z',
  ...overrides,
});

export const consumerGroupStoreContract = (open: () => Promise<ConsumerGroupStoreFixture>) => {
  let fixture: ConsumerGroupStoreFixture;
  let store: ConsumerGroupStore;
  let workspace: string;
  beforeEach(async () => {
    fixture = await open();
    store = fixture.store;
    workspace = randomUUID();
  });
  afterEach(async () => fixture.cleanup());

  it('keeps a group exactly as given, and lists a workspace’s own by name', async () => {
    const b = group(workspace, 'b-group');
    const a = group(workspace, 'a-group', { checkpoint: null, lease: null, filter: { types: null, slugPrefix: null } });
    const other = group(randomUUID(), 'a-group');
    for (const g of [b, a, other]) expect(await store.insert(g)).toBe(true);
    expect(await store.get(workspace, 'b-group')).toEqual(b);
    expect(await store.get(workspace, 'a-group')).toEqual(a);
    expect(await store.list(workspace)).toEqual([a, b]);
    expect(await store.get(workspace, 'nope')).toBeNull();
    const all = await store.listAll();
    expect(all).toEqual(expect.arrayContaining([a, b, other]));
  });

  it('keeps the filter’s fields in the order given', async () => {
    const g = group(workspace, 'ordered', { filter: { slugPrefix: 'support-', types: ['PresetCreated'] } });
    expect(await store.insert(g)).toBe(true);
    expect(Object.keys(((await store.get(workspace, 'ordered')) as ConsumerGroup).filter)).toEqual(['slugPrefix', 'types']);
  });

  it('refuses a second group of the same name in a workspace', async () => {
    expect(await store.insert(group(workspace, 'g'))).toBe(true);
    expect(await store.insert(group(workspace, 'g', { leaseMs: 1000 }))).toBe(false);
    expect(await store.get(workspace, 'g')).toMatchObject({ leaseMs: 30_000 });
  });

  it('changes a group only at the revision it was read at', async () => {
    const g = group(workspace, 'g');
    await store.insert(g);
    const acked = { ...g, checkpoint: g.lease!.last, lease: null, revision: 1 };
    expect(await store.update(acked, 0)).toBe(true);
    // A second consumer that read revision 0 too loses.
    expect(await store.update({ ...g, lease: { ...g.lease!, id: randomUUID() }, revision: 1 }, 0)).toBe(false);
    expect(await store.get(workspace, 'g')).toEqual(acked);
    // Another workspace's group of the name is not this one.
    expect(await store.update({ ...acked, workspaceId: randomUUID(), revision: 2 }, 1)).toBe(false);
    expect(await store.update({ ...acked, name: 'gone', revision: 2 }, 1)).toBe(false);
  });

  it('deletes a group, and says when there was none', async () => {
    await store.insert(group(workspace, 'g'));
    expect(await store.delete(randomUUID(), 'g')).toBe(false);
    expect(await store.delete(workspace, 'g')).toBe(true);
    expect(await store.delete(workspace, 'g')).toBe(false);
    expect(await store.get(workspace, 'g')).toBeNull();
  });
};
