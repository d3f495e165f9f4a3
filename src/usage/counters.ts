import { hourOf, type UsageCount, type UsageStore } from './usageStore';

/**
 * A process's usage counters: each resolution answered adds one to its (workspace, preset, label,
 * version, hour) in memory, and the counts are added to the store every `flushEveryMs` and at
 * shutdown. A flush that fails keeps its counts for the next one. The service's resolve route and
 * `presets/client` (whose store is the service, through POST /api/v1/usage) both count with it.
 */
export interface UsageCounters {
  count(what: Omit<UsageCount, 'hour' | 'count'>): void;
  /** Adds what was counted since the last flush to the store. */
  flush(): Promise<void>;
  /** Stops the timer and flushes. */
  stop(): Promise<void>;
}

export const startUsageCounters = ({
  store,
  flushEveryMs,
  clock = () => new Date(),
  onError = () => {},
}: {
  store: Pick<UsageStore, 'add'>;
  /** Unset: only `flush()` and `stop()` flush. */
  flushEveryMs?: number;
  clock?: () => Date;
  onError?: (error: unknown) => void;
}): UsageCounters => {
  let counts = new Map<string, UsageCount>();
  let flushing: Promise<void> = Promise.resolve();

  const flushNow = async () => {
    if (counts.size === 0) return;
    const batch = counts;
    counts = new Map();
    try {
      await store.add([...batch.values()]);
    } catch (error) {
      // Kept for the next flush, added to what was counted meanwhile.
      for (const [key, c] of batch) {
        const now = counts.get(key);
        counts.set(key, now ? { ...now, count: now.count + c.count } : c);
      }
      throw error;
    }
  };
  // One flush at a time, in order.
  const flush = () => (flushing = flushing.catch(() => {}).then(flushNow));

  const timer = flushEveryMs === undefined ? undefined : setInterval(() => flush().catch(onError), flushEveryMs);
  timer?.unref();

  return {
    count({ workspaceId, presetId, label, version }) {
      const hour = hourOf(clock());
      const key = `${workspaceId}\n${presetId}\n${label ?? ''}\n${version}\n${hour}`;
      const held = counts.get(key);
      if (held) held.count++;
      else counts.set(key, { workspaceId, presetId, label, version, hour, count: 1 });
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
};
