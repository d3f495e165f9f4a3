import { randomUUID } from 'node:crypto';
import type { EventFeed, SubscribeOptions } from '../../../src/eventstore/eventFeed';
import { openMemoryEventStore } from '../../../src/eventstore/memory';
import { withSharedTail } from '../../../src/feed/sharedTail';

/** When the one reader of the log fails, every subscriber hears of it, and the next starts a new reader. */
it('a failing reader ends every subscriber with its error; the next subscriber starts a new one', async () => {
  const store = openMemoryEventStore();
  const upstream: SubscribeOptions[] = [];
  const feed: EventFeed = {
    maxPosition: store.maxPosition,
    readAll: (o) => store.readAll(o),
    readAllBackwards: (o) => store.readAllBackwards(o),
    headPosition: (o) => store.headPosition(o),
    subscribe: (from, onEvent, options = {}) => {
      upstream.push(options);
      return store.subscribe(from, onEvent, options);
    },
  };
  const shared = withSharedTail(feed);
  const errors: unknown[][] = [[], []];
  const subs = [0, 1].map((i) =>
    shared.subscribe('start', async () => undefined, { streamPrefix: `preset-${randomUUID()}-`, onError: (e) => errors[i]!.push(e) }),
  );
  while (upstream.length === 0) await new Promise((r) => setTimeout(r, 5));
  const boom = new Error('store gone');
  upstream[0]!.onError!(boom);
  while (errors.some((e) => e.length === 0)) await new Promise((r) => setTimeout(r, 5));
  expect(errors).toEqual([[boom], [boom]]);
  expect(shared.subscribers).toBe(0);
  const seen: string[] = [];
  const next = shared.subscribe('start', async (e) => void seen.push(e.id), { streamPrefix: 'preset-' });
  await store.append(`preset-${randomUUID()}-x`, [{ id: 'e1', type: 'T', data: {}, metadata: {} }], 'no_stream');
  while (seen.length === 0) await new Promise((r) => setTimeout(r, 5));
  expect(upstream).toHaveLength(2);
  await next.stop();
  for (const s of subs) await s.stop();
  await shared.close();
  await store.close();
});
