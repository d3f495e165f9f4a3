import { randomUUID } from 'node:crypto';
import type { UsageCount, UsageStore } from '#src/usage/usageStore';

/**
 * What every usage store does (in memory, SQLite, MongoDB): counts of the same workspace, preset,
 * label, version and hour add up; a query answers one preset of one workspace, for the hours that
 * start in [from, to), by hour, label (none first) and version.
 */
export const usageStoreContract = (open: () => Promise<{ store: UsageStore; cleanup: () => Promise<void> }>) => {
  let store: UsageStore;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ store, cleanup } = await open());
  });
  afterEach(async () => cleanup());

  const H = (h: number) => new Date(Date.UTC(2026, 10, 24, h)).toISOString();
  const count = (fields: Partial<UsageCount> & Pick<UsageCount, 'workspaceId' | 'presetId'>): UsageCount => ({
    label: 'production',
    version: 1,
    hour: H(10),
    count: 1,
    ...fields,
  });

  it('adds counts of the same key, keeps the others apart, and answers in order', async () => {
    const [ws, preset] = [randomUUID(), randomUUID()];
    await store.add([
      count({ workspaceId: ws, presetId: preset, version: 2, count: 3 }),
      count({ workspaceId: ws, presetId: preset, count: 2 }),
      count({ workspaceId: ws, presetId: preset, label: null, count: 4 }),
      count({ workspaceId: ws, presetId: preset, hour: H(9), count: 1 }),
    ]);
    await store.add([count({ workspaceId: ws, presetId: preset, version: 2, count: 5 })]);
    const got = await store.query(ws, preset, new Date(H(0)), new Date(H(23)));
    expect(got.map(({ hour, label, version, count: n }) => [hour, label, version, n])).toEqual([
      [H(9), 'production', 1, 1],
      [H(10), null, 1, 4],
      [H(10), 'production', 1, 2],
      [H(10), 'production', 2, 8],
    ]);
  });

  it('answers only the hours that start in [from, to), of that preset in that workspace', async () => {
    const [ws, other, preset] = [randomUUID(), randomUUID(), randomUUID()];
    await store.add([
      count({ workspaceId: ws, presetId: preset, hour: H(8) }),
      count({ workspaceId: ws, presetId: preset, hour: H(9) }),
      count({ workspaceId: ws, presetId: preset, hour: H(10) }),
      count({ workspaceId: other, presetId: preset, hour: H(9) }),
      count({ workspaceId: ws, presetId: randomUUID(), hour: H(9) }),
    ]);
    const got = await store.query(ws, preset, new Date(H(9)), new Date(H(10)));
    expect(got).toEqual([{ workspaceId: ws, presetId: preset, label: 'production', version: 1, hour: H(9), count: 1 }]);
    expect(await store.query(randomUUID(), preset, new Date(H(0)), new Date(H(23)))).toEqual([]);
  });

  it('takes an empty batch', async () => {
    await expect(store.add([])).resolves.toBeUndefined();
  });
};
