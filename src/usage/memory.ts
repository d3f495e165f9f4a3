import { compareCounts, type UsageCount, type UsageStore } from './usageStore';

/** Usage in memory, for tests and the pure tiers: the same contract as the stored ones. */
export const createMemoryUsageStore = (): UsageStore => {
  const held = new Map<string, UsageCount>();
  return {
    async add(counts) {
      for (const c of counts) {
        const key = JSON.stringify([c.workspaceId, c.presetId, c.label, c.version, c.hour]);
        const current = held.get(key);
        held.set(key, { ...c, count: (current?.count ?? 0) + c.count });
      }
    },
    async query(workspaceId, presetId, from, to) {
      const [low, high] = [from.toISOString(), to.toISOString()];
      return [...held.values()]
        .filter((c) => c.workspaceId === workspaceId && c.presetId === presetId && c.hour >= low && c.hour < high)
        .map((c) => ({ ...c }))
        .sort(compareCounts);
    },
    async close() {},
  };
};
