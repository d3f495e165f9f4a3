import { randomUUID } from 'node:crypto';
import type { EventFeed, SubscribeOptions } from '#src/eventstore/eventFeed';
import { openMemoryEventStore } from '#src/eventstore/memory';
import { nextPageLength, sharedTail, type TailSource } from '#src/feed/sharedTail';
import { withSharedTail } from '#src/feed/sharedFeed';

/** When the one reader of the log fails, every subscriber hears of it, and the next starts a new reader. */
it('a failing reader ends every subscriber with its error; the next subscriber starts a new one', async () => {
  const store = openMemoryEventStore();
  const upstream: SubscribeOptions[] = [];
  const feed: EventFeed = {
    maxPosition: store.maxPosition,
    readAll: (o) => store.readAll(o),
    countAll: (o) => store.countAll(o),
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

/**
 * Pages of events whose size the tail can tell (stored text) are sized by bytes: a range of large
 * events is read a few at a time, so the pages a subscriber holds do not grow with its events.
 */
describe('catch-up pages sized by bytes', () => {
  type Sized = { position: bigint; stream: string; type: string; data: string };
  const KIB = 1024;
  const events: Sized[] = [
    ...Array.from({ length: 300 }, () => 'x'.repeat(100)),
    ...Array.from({ length: 40 }, () => 'y'.repeat(300 * KIB)),
    ...Array.from({ length: 200 }, () => 'z'.repeat(2 * KIB)),
  ].map((data, i) => ({ position: BigInt(i + 1), stream: `preset-w-s${i % 7}`, type: 'T', data }));

  it('start small, grow at most twice a page, hold what pageBytes holds of the last page, and miss nothing', async () => {
    const reads: Array<{ limit: number; bytes: number; length: number }> = [];
    const source: TailSource<Sized> = {
      readAll: async ({ after = 0n, limit }) => {
        const page = events.filter((e) => e.position > after).slice(0, limit);
        reads.push({ limit, length: page.length, bytes: page.reduce((n, e) => n + e.data.length, 0) });
        return page;
      },
      subscribe: () => ({ stop: async () => undefined }),
      headPosition: async () => BigInt(events.length),
    };
    const pageBytes = 1024 * KIB;
    const tail = sharedTail(source, { pageSize: 128, pageBytes, sharedPages: 0 }, (e) => e.data.length);
    const seen: bigint[] = [];
    const sub = tail.subscribe('start', async (e) => void seen.push(e.position), { streamPrefix: 'preset-w-' });
    while (seen.length < events.length) await new Promise((r) => setTimeout(r, 5));
    await sub.stop();
    await tail.close();

    expect(seen).toEqual(events.map((e) => e.position));
    expect(reads[0]!.limit).toBe(16);
    for (let i = 1; i < reads.length; i++) {
      const last = reads[i - 1]!;
      expect(reads[i]!.limit).toBeLessThanOrEqual(Math.min(128, 2 * last.limit));
      expect(reads[i]!.limit).toBeLessThanOrEqual(Math.max(1, Math.floor(pageBytes / (last.bytes / last.length))));
    }
    // Small events still go in full pages; the large ones three at a time (1 MiB of 300 KiB events)
    // after the one page that ran into them at the small events' length: a page's size is only
    // known once it is read.
    expect(reads.some((r) => r.limit === 128)).toBe(true);
    expect(reads.filter((r) => r.bytes > 2 * pageBytes)).toHaveLength(1);
    expect(reads.filter((r) => r.bytes > 0 && r.bytes / r.length > 100 * KIB).every((r, i) => i === 0 || r.length <= 3)).toBe(true);
  });

  it('a subscriber that starts (or starts again, after a restart) in a range of large events reads FIRST_PAGE of them, then what pageBytes holds', async () => {
    const reads: Array<{ limit: number; bytes: number }> = [];
    const source: TailSource<Sized> = {
      readAll: async ({ after = 0n, limit }) => {
        const page = events.filter((e) => e.position > after).slice(0, limit);
        reads.push({ limit, bytes: page.reduce((n, e) => n + e.data.length, 0) });
        return page;
      },
      subscribe: () => ({ stop: async () => undefined }),
      headPosition: async () => BigInt(events.length),
    };
    const tail = sharedTail(source, { pageSize: 128, pageBytes: 1024 * KIB, sharedPages: 0 }, (e) => e.data.length);
    const seen: bigint[] = [];
    const sub = tail.subscribe({ after: 300n }, async (e) => void seen.push(e.position), { streamPrefix: 'preset-w-' });
    while (seen.length < events.length - 300) await new Promise((r) => setTimeout(r, 5));
    await sub.stop();
    await tail.close();
    expect(seen).toEqual(events.slice(300).map((e) => e.position));
    expect(reads.slice(0, 3).map((r) => r.limit)).toEqual([16, 3, 3]);
    expect(Math.max(...reads.map((r) => r.bytes))).toBe(16 * 300 * KIB);
  });

  it('a buffer past pageBytes is dropped and its range read again: every event once, in order', async () => {
    let onEvent: ((e: Sized) => Promise<void>) | undefined;
    const stored: Sized[] = [];
    let readsOfItsRange = 0;
    const source: TailSource<Sized> = {
      readAll: async ({ after = 0n, limit }) => {
        readsOfItsRange++;
        return stored.filter((e) => e.position > after).slice(0, limit);
      },
      subscribe: (_from, handler) => {
        onEvent = handler;
        return { stop: async () => undefined };
      },
      headPosition: async () => 0n,
    };
    const tail = sharedTail(source, { pageBytes: 100 * KIB, sharedPages: 0 }, (e) => e.data.length);
    const seen: bigint[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const sub = tail.subscribe(
      'start',
      async (e) => {
        await gate; // a slow consumer: the tail's events pile up in its buffer
        seen.push(e.position);
      },
      { streamPrefix: 'preset-w-' },
    );
    while (!onEvent) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 20));
    for (let i = 1; i <= 20; i++) {
      const e = { position: BigInt(i), stream: 'preset-w-s', type: 'T', data: 'q'.repeat(30 * KIB) };
      stored.push(e);
      await onEvent(e);
    }
    release();
    while (seen.length < 20) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toEqual(stored.map((e) => e.position));
    // Read at the start (nothing yet), then again after its buffer (of 20 × 30 KiB) was dropped.
    expect(readsOfItsRange).toBeGreaterThan(1);
    await sub.stop();
    await tail.close();
  });

  it('nextPageLength: what pageBytes holds of the last page, at least one, at most twice the last and pageSize', () => {
    expect(nextPageLength(16, 1000, 16 * 10, 128)).toBe(32);
    expect(nextPageLength(128, 1000, 128 * 10, 128)).toBe(100);
    expect(nextPageLength(64, 1000, 64 * 400, 128)).toBe(2);
    expect(nextPageLength(16, 1000, 16 * 5000, 128)).toBe(1);
  });
});
