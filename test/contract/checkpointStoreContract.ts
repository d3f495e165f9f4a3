import { randomUUID } from 'node:crypto';
import type { CheckpointStore } from '#src/feed/checkpoints';

/**
 * What every checkpoint store (src/feed/checkpoints.ts) promises a processor: nothing stored reads
 * as null, a stored position reads back (positions past 2^53 included), checkpoints are kept by
 * name, and a position moves only forward. Names are fresh UUIDs, so a shared server's old data
 * is never read.
 */
export const checkpointStoreContract = (open: () => Promise<{ store: CheckpointStore; cleanup(): Promise<void> }>) => {
  let store: CheckpointStore;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ store, cleanup } = await open());
  });
  afterEach(() => cleanup());

  it('reads null for a processor that stored nothing', async () => {
    expect(await store.read(`never-${randomUUID()}`)).toBeNull();
  });

  it('reads back what was stored, by name, positions beyond a double included', async () => {
    const a = `a-${randomUUID()}`;
    const b = `b-${randomUUID()}`;
    await store.store(a, 7n);
    await store.store(b, 2n ** 53n + 5n);
    expect(await store.read(a)).toBe(7n);
    expect(await store.read(b)).toBe(2n ** 53n + 5n);
    await store.store(a, 12n);
    expect(await store.read(a)).toBe(12n);
  });

  it('moves only forward: an older position, or the same one again, changes nothing', async () => {
    const name = `p-${randomUUID()}`;
    await store.store(name, 100n);
    await store.store(name, 99n);
    await store.store(name, 9n); // fewer digits: compared as a number, not as text
    await store.store(name, 100n);
    expect(await store.read(name)).toBe(100n);
    await store.store(name, 1000n);
    expect(await store.read(name)).toBe(1000n);
  });

  it('position 0 is a position', async () => {
    const name = `z-${randomUUID()}`;
    await store.store(name, 0n);
    expect(await store.read(name)).toBe(0n);
  });
};
