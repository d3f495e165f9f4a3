import type { EventStore, RecordedEvent } from '#src/eventstore/eventStore';
import { openMemoryEventStore } from '#src/eventstore/memory';
import { foldFromStore, withStateCache } from '#src/eventstore/states';

/** A stream's state folded from its events, and the cache that saves reading them again. */
const counting = (store: EventStore) => {
  const reads: bigint[] = [];
  const read: EventStore['read'] = (stream, options) => {
    reads.push(options?.fromRevision ?? 0n);
    return store.read(stream, options);
  };
  return { reads, store: { ...store, read } };
};
const fold = {
  evolve: (sum: number, n: number) => sum + n,
  initialState: () => 0,
  decode: (e: RecordedEvent) => (e.data as { n: number }).n,
};
const event = (n: number) => ({ id: `e${n}-${Math.random()}`, type: 'N', data: { n }, metadata: {} });

describe('stream states', () => {
  it('folds every event of the stream, and knows a stream that does not exist', async () => {
    const store = openMemoryEventStore();
    await store.append('s', [event(1), event(2), event(3)], 'no_stream');
    const states = foldFromStore(store, fold);
    expect(await states.load('s')).toEqual({ state: 6, revision: 2n });
    expect(await states.load('missing')).toEqual({ state: 0, revision: null });
  });

  it('with a cache, reads only the events after the revision it holds, including those another writer appended', async () => {
    const memory = openMemoryEventStore();
    const { reads, store } = counting(memory);
    const states = withStateCache(foldFromStore(store, fold), 10);
    await memory.append('s', [event(1), event(2)], 'no_stream');
    expect(await states.load('s')).toEqual({ state: 3, revision: 1n });
    await memory.append('s', [event(10)], 1n); // written elsewhere: this cache was not told
    expect(await states.load('s')).toEqual({ state: 13, revision: 2n });
    states.saved('s', { state: 113, revision: 3n }); // what an append through this process left
    expect(await states.load('s')).toEqual({ state: 113, revision: 3n });
    expect(reads).toEqual([0n, 2n, 4n]);
  });

  it('forgets the least recently used streams past its size', async () => {
    const memory = openMemoryEventStore();
    const { reads, store } = counting(memory);
    const states = withStateCache(foldFromStore(store, fold), 1);
    await memory.append('a', [event(1)], 'no_stream');
    await memory.append('b', [event(2)], 'no_stream');
    await states.load('a');
    await states.load('b');
    await states.load('a'); // evicted by b: read from the start again
    expect(reads).toEqual([0n, 0n, 0n]);
  });
});
