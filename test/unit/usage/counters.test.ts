import { startUsageCounters } from '#src/usage/counters';
import { createMemoryUsageStore } from '#src/usage/memory';
import type { UsageCount } from '#src/usage/usageStore';

/** A process's usage counters: counted in memory by hour, added to the store on flush, kept when a flush fails. */
describe('usage counters', () => {
  const what = { workspaceId: 'w', presetId: 'p', label: 'production', version: 2 };
  const all = (store: ReturnType<typeof createMemoryUsageStore>) => store.query('w', 'p', new Date(0), new Date('2100-01-01T00:00:00Z'));

  it('adds what was counted, by hour, once per flush', async () => {
    const store = createMemoryUsageStore();
    let now = new Date('2026-11-24T13:59:59.000Z');
    const counters = startUsageCounters({ store, clock: () => now });
    counters.count(what);
    counters.count(what);
    now = new Date('2026-11-24T14:00:00.000Z');
    counters.count(what);
    counters.count({ ...what, label: null });
    await counters.flush();
    await counters.flush(); // nothing new: nothing added
    expect((await all(store)).map((c) => [c.hour, c.label, c.count])).toEqual([
      ['2026-11-24T13:00:00.000Z', 'production', 2],
      ['2026-11-24T14:00:00.000Z', null, 1],
      ['2026-11-24T14:00:00.000Z', 'production', 1],
    ]);
    await counters.stop();
  });

  it('keeps the counts of a failed flush for the next one', async () => {
    const store = createMemoryUsageStore();
    let fail = true;
    const flaky = {
      add: async (counts: readonly UsageCount[]) => {
        if (fail) throw new Error('disk full');
        await store.add(counts);
      },
    };
    const counters = startUsageCounters({ store: flaky, clock: () => new Date('2026-11-24T10:00:00Z') });
    counters.count(what);
    await expect(counters.flush()).rejects.toThrow('disk full');
    counters.count(what);
    fail = false;
    await counters.stop();
    expect((await all(store)).map((c) => c.count)).toEqual([2]);
  });
});
