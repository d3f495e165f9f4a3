import { randomUUID } from 'node:crypto';
import { openMemoryEventStore } from '#src/eventstore/memory';
import { withSharedTail } from '#src/feed/sharedFeed';
import { pulledProcessor } from '#src/feed/pulled';
import { until } from '#support/until';

/**
 * A processor whose consumer pulls (a consumer group): it reads and waits for what its selection
 * names, on the shared tail, as a processor of this process would be handed it.
 */
const event = (type: string, n: number) => ({ id: randomUUID(), type, data: { n }, metadata: {} });

describe('pulledProcessor', () => {
  const store = openMemoryEventStore();
  const feed = withSharedTail(store, { idleStopMs: 50 });
  const group = pulledProcessor({ feed, tail: feed }, { streamPrefix: 'preset-w-', eventTypes: ['B'] });
  afterAll(() => feed.close());

  it('reads the selected events after a position, up to max, and counts its lag', async () => {
    await store.append('preset-w-a', [event('A', 1), event('B', 2), event('B', 3)], 'no_stream');
    await store.append('preset-v-a', [event('B', 4)], 'no_stream'); // another prefix
    const first = await group.read(null, 1);
    expect(first.map((e) => e.type)).toEqual(['B']);
    const rest = await group.read(first[0]!.position, 10);
    expect(rest).toHaveLength(1);
    expect(await group.lag(null, 10)).toEqual({ events: 2, head: rest[0]!.position });
    expect(await group.lag(rest[0]!.position, 10)).toEqual({ events: 0, head: rest[0]!.position });
  });

  it('waits until a selected event is stored: another type or prefix does not end the wait, its time or the signal does', async () => {
    const head = (await store.headPosition())!;
    const signal = new AbortController();
    let woken = false;
    const waiting = group.waitForMore(head, 60_000, signal.signal).then(() => (woken = true));
    await store.append('preset-w-b', [event('A', 5)], 'no_stream');
    await store.append('preset-v-b', [event('B', 6)], 'no_stream');
    await new Promise((r) => setTimeout(r, 50)); // room for a wrong wake-up
    expect(woken).toBe(false);
    await store.append('preset-w-b', [event('B', 7)], 0n);
    await waiting;
    expect(woken).toBe(true);

    const later = (await store.headPosition())!;
    await group.waitForMore(later, 20, new AbortController().signal); // nothing comes: it ends at its time
    const aborted = new AbortController();
    const gone = group.waitForMore(later, 60_000, aborted.signal);
    aborted.abort();
    await gone; // resolves: the caller went away
    await until(() => feed.subscribers === 0); // and no wait keeps its subscription
  });
});
