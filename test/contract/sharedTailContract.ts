import { randomUUID } from 'node:crypto';
import type { EventFeed, FeedEvent, StoredTextFeed, Subscription } from '#src/eventstore/eventFeed';
import type { NewEvent } from '#src/eventstore/eventStore';
import { storedTextTail, withSharedTail } from '#src/feed/sharedFeed';
import type { SharedTail, SharedTailOptions, TailSubscription } from '#src/feed/sharedTail';
import { until } from '../support/until';
import type { EventStoreFixture } from './eventStoreContract';
import { workspaceStreamPrefix } from '#src/events/workspaceStreams';

/**
 * The shared tail over each store: one subscription to the store per process, however many live
 * subscribers, each of which still gets exactly its events, in order, once. The store is counted
 * from outside (how often it is subscribed to and read), so the fan-out is what is asserted, not
 * how it is built. Workspaces are fresh UUIDs, so a shared server's old data is never matched.
 * The same contract holds for the tail over a store's stored text (`storedTextTail`).
 */
const newEvent = (type: string, n: number): NewEvent => ({ id: randomUUID(), type, data: { n }, metadata: {} });

const within = <T>(p: Promise<T>, ms = 15_000) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms).unref())]);

/** The store's feed, counting what the shared tail asks of it (parsed or as stored text). */
const counted = (feed: EventFeed & Partial<StoredTextFeed>) => {
  const calls = { subscribe: 0, readAll: 0, stopped: 0, types: [] as Array<readonly string[] | undefined> };
  const stopCounted = (subscription: Subscription): Subscription => ({
    stop: async () => {
      calls.stopped++;
      await subscription.stop();
    },
  });
  const wrapped: EventFeed & Partial<StoredTextFeed> = {
    maxPosition: feed.maxPosition,
    readAll: (o) => {
      calls.readAll++;
      return feed.readAll(o);
    },
    countAll: (o) => feed.countAll(o),
    readAllBackwards: (o) => feed.readAllBackwards(o),
    headPosition: (o) => feed.headPosition(o),
    subscribe: (from, onEvent, o) => {
      calls.subscribe++;
      calls.types.push(o?.types);
      return stopCounted(feed.subscribe(from, onEvent, o));
    },
    reportsScanned: feed.reportsScanned,
    ...(feed.readAllStored && feed.subscribeStored
      ? {
          readAllStored: (o: Parameters<StoredTextFeed['readAllStored']>[0]) => {
            calls.readAll++;
            return feed.readAllStored!(o);
          },
          subscribeStored: (...args: Parameters<StoredTextFeed['subscribeStored']>) => {
            calls.subscribe++;
            calls.types.push(args[2]?.types);
            return stopCounted(feed.subscribeStored!(...args));
          },
        }
      : {}),
  };
  return { calls, wrapped };
};

const follower = (
  shared: SharedTail<FeedEvent>,
  prefix: string,
  from: 'start' | { after: bigint } = 'start',
  options: { types?: string[]; slowMs?: number } = {},
) => {
  const seen: FeedEvent[] = [];
  const subscription: TailSubscription = shared.subscribe(
    from,
    async (e) => {
      if (options.slowMs) await new Promise((r) => setTimeout(r, options.slowMs));
      seen.push(e);
    },
    { streamPrefix: prefix, types: options.types },
  );
  return { seen, subscription };
};

const increasing = (events: FeedEvent[]) => events.every((e, i) => i === 0 || e.position > events[i - 1]!.position);

export const sharedTailContract = (open: () => Promise<EventStoreFixture>, kind: 'parsed' | 'stored text' = 'parsed') => {
  let fixture: EventStoreFixture;
  let shared: SharedTail<FeedEvent> | undefined;
  const tailOver = (feed: EventFeed & Partial<StoredTextFeed>, options?: SharedTailOptions): SharedTail<FeedEvent> =>
    kind === 'parsed' ? withSharedTail(feed, options) : storedTextTail(feed as EventFeed & StoredTextFeed, options);
  let a: string;
  let b: string;
  const stream = (workspace: string, name: string) => `${workspace}${name}`;

  beforeEach(async () => {
    fixture = await open();
    a = workspaceStreamPrefix(randomUUID());
    b = workspaceStreamPrefix(randomUUID());
  });
  afterEach(async () => {
    await shared?.close();
    shared = undefined;
    await fixture.cleanup();
  });

  it('subscribes to the store once for any number of live subscribers; each gets its own workspace, in order, once', async () => {
    const { calls, wrapped } = counted(fixture.store);
    shared = tailOver(wrapped);
    const idle = Array.from({ length: 50 }, () => follower(shared!, b));
    const busy = Array.from({ length: 5 }, () => follower(shared!, a));
    const written: string[] = [];
    for (let i = 0; i < 20; i++) {
      const events = Array.from({ length: 10 }, (_, j) => newEvent('A', i * 10 + j));
      await fixture.store.append(stream(a, `s${i}`), events, 'no_stream');
      written.push(...events.map((e) => e.id));
    }
    await within(until(() => busy.every((f) => f.seen.length === written.length)));
    const head = (await fixture.store.headPosition({ streamPrefix: a }))!;
    // Idle subscribers moved past A's events without being handed any.
    await within(until(() => idle.every((f) => f.subscription.scanned() >= head)));
    await new Promise((r) => setTimeout(r, 100)); // room for a wrongly repeated event
    for (const f of busy) {
      expect(f.seen.map((e) => e.id)).toEqual(written);
      expect(increasing(f.seen)).toBe(true);
    }
    for (const f of idle) expect(f.seen).toEqual([]);
    expect(calls.subscribe).toBe(1);
    // One catch-up read each (nothing to catch up on), not a read per event or per poll.
    expect(calls.readAll).toBeLessThanOrEqual(idle.length + busy.length);
    expect(shared.subscribers).toBe(55);
  });

  it('a subscriber from an old position reads its own range in pages, then joins the tail: no gap, no repeat', async () => {
    const { calls, wrapped } = counted(fixture.store);
    shared = tailOver(wrapped, { pageSize: 7 });
    const before = Array.from({ length: 30 }, (_, i) => newEvent('A', i));
    const first = await fixture.store.append(stream(a, 'old'), before.slice(0, 1), 'no_stream');
    await fixture.store.append(stream(a, 'old'), before.slice(1), 0n);
    await fixture.store.append(stream(b, 'other'), [newEvent('B', 0)], 'no_stream');
    const live = follower(shared, a); // the tail is running before the late one comes
    await within(until(() => live.seen.length === 30));
    const late = follower(shared, a, { after: first.position });
    const after: string[] = [];
    for (let i = 0; i < 10; i++) {
      const e = newEvent('A', 100 + i);
      after.push(e.id);
      await fixture.store.append(stream(a, `new${i}`), [e], 'no_stream');
    }
    const expected = [...before.slice(1).map((e) => e.id), ...after];
    await within(until(() => late.seen.length >= expected.length));
    await new Promise((r) => setTimeout(r, 100));
    expect(late.seen.map((e) => e.id)).toEqual(expected);
    expect(calls.subscribe).toBe(1);
    expect(calls.readAll).toBeGreaterThanOrEqual(Math.ceil(29 / 7)); // its range, page by page
  });

  it('subscribers reading the same range read each full page from the store once; a short page is read again by each, so none misses later events', async () => {
    const { calls, wrapped } = counted(fixture.store);
    shared = tailOver(wrapped, { pageSize: 10 });
    const before = Array.from({ length: 95 }, (_, i) => newEvent('A', i));
    for (let i = 0; i < before.length; i += 5) await fixture.store.append(stream(a, `s${i}`), before.slice(i, i + 5), 'no_stream');
    const readers = Array.from({ length: 4 }, () => follower(shared!, a));
    await within(until(() => readers.every((f) => f.seen.length === before.length)));
    // 9 full pages once for the four of them, and the short last page (5 events) by each: 13, not 40.
    expect(calls.readAll).toBeLessThanOrEqual(9 + 4);
    // One that comes later from the same position, after more events, reads the short page's range again and gets them.
    const more = Array.from({ length: 8 }, (_, i) => newEvent('A', 100 + i));
    await fixture.store.append(stream(a, 'more'), more, 'no_stream');
    const late = follower(shared, a);
    const expected = [...before, ...more].map((e) => e.id);
    await within(until(() => late.seen.length >= expected.length && readers.every((f) => f.seen.length >= expected.length)));
    await new Promise((r) => setTimeout(r, 100)); // room for a wrongly repeated event
    for (const f of [...readers, late]) {
      expect(f.seen.map((e) => e.id)).toEqual(expected);
      expect(increasing(f.seen)).toBe(true);
    }
    // The readers that went together were handed the same event objects: decoded once.
    expect(readers.every((f) => f.seen[50] === readers[0]!.seen[50])).toBe(true);
  });

  it('a subscriber too slow for its buffer reads its range again and still gets every event once, in order', async () => {
    shared = tailOver(fixture.store, { queueLimit: 3, pageSize: 4 });
    const slow = follower(shared, a, 'start', { slowMs: 10 });
    const fast = follower(shared, a);
    const ids: string[] = [];
    for (let round = 0; round < 10; round++) {
      // Four streams at once: the tail hands them out together, more than the slow one's buffer holds.
      const events = [0, 1, 2, 3].map((i) => newEvent('A', round * 4 + i));
      const results = await Promise.all(
        events.map((e, i) => fixture.store.append(stream(a, `s${i}`), [e], round === 0 ? 'no_stream' : BigInt(round - 1))),
      );
      const order = events.map((e, i) => ({ id: e.id, position: results[i]!.position })).sort((x, y) => (x.position < y.position ? -1 : 1));
      ids.push(...order.map((o) => o.id));
    }
    await within(until(() => slow.seen.length >= ids.length && fast.seen.length >= ids.length));
    await new Promise((r) => setTimeout(r, 100));
    expect(slow.seen.map((e) => e.id)).toEqual(ids);
    expect(fast.seen.map((e) => e.id)).toEqual(ids);
  });

  it('hands a subscriber only the types it asked for, and its position still moves past the others', async () => {
    shared = tailOver(fixture.store);
    const typed = follower(shared, a, 'start', { types: ['B'] });
    await fixture.store.append(stream(a, 't'), [newEvent('A', 1), newEvent('B', 2), newEvent('A', 3)], 'no_stream');
    const last = await fixture.store.append(stream(a, 'u'), [newEvent('A', 4)], 'no_stream');
    await within(until(() => typed.subscription.scanned() >= last.position));
    expect(typed.seen.map((e) => e.type)).toEqual(['B']);
  });

  it('while every subscriber names its types, a store that reports how far it has read is read for those types only; one of every type widens the reader, and narrows it going, with no gap and no repeat', async () => {
    const { calls, wrapped } = counted(fixture.store);
    shared = tailOver(wrapped, { idleStopMs: 60_000 });
    const narrows = fixture.store.reportsScanned === true; // the stores that poll; EventStoreDB's reader takes every type
    const typed = follower(shared, a, 'start', { types: ['B'] });
    const first = await fixture.store.append(stream(a, 't'), [newEvent('A', 1), newEvent('B', 2)], 'no_stream');
    await within(until(() => typed.seen.length === 1 && typed.subscription.scanned() >= first.position));
    expect(calls.types).toEqual([narrows ? ['B'] : undefined]);

    const every = follower(shared, a, { after: first.position });
    await within(until(() => calls.types.length === (narrows ? 2 : 1) && every.subscription.scanned() >= first.position));
    const both = [newEvent('A', 3), newEvent('B', 4), newEvent('A', 5)];
    const second = await fixture.store.append(stream(a, 't'), both, 1n);
    await within(until(() => every.seen.length === 3 && typed.seen.length === 2));
    expect(calls.types).toEqual(narrows ? [['B'], undefined] : [undefined]);

    await every.subscription.stop();
    await within(until(() => calls.types.length === (narrows ? 3 : 1)));
    const last = await fixture.store.append(stream(a, 't'), [newEvent('A', 6), newEvent('B', 7)], second.revision);
    await within(until(() => typed.seen.length === 3 && typed.subscription.scanned() >= last.position));
    await new Promise((r) => setTimeout(r, 100)); // room for a wrongly repeated event
    expect(calls.types).toEqual(narrows ? [['B'], undefined, ['B']] : [undefined]);
    const n = (e: FeedEvent) => (typeof e.data === 'string' ? JSON.parse(e.data) : e.data) as { n: number };
    expect(typed.seen.map((e) => n(e).n)).toEqual([2, 4, 7]);
    expect(every.seen.map((e) => e.position)).toEqual(
      (await fixture.store.readAll({ after: first.position, limit: 3, streamPrefix: a })).map((e) => e.position),
    );
    expect(increasing(typed.seen)).toBe(true);
  });

  it('a stopped subscriber is handed nothing more, and the others go on', async () => {
    shared = tailOver(fixture.store);
    const stopped = follower(shared, a);
    const going = follower(shared, a);
    await fixture.store.append(stream(a, 'x'), [newEvent('A', 1)], 'no_stream');
    await within(until(() => stopped.seen.length === 1 && going.seen.length === 1));
    await stopped.subscription.stop();
    expect(shared.subscribers).toBe(1);
    await fixture.store.append(stream(a, 'x'), [newEvent('A', 2)], 0n);
    await within(until(() => going.seen.length === 2));
    expect(stopped.seen).toHaveLength(1);
  });

  it('with no subscriber for idleStopMs it stops following the store; the next subscriber starts again and misses nothing written meanwhile', async () => {
    const { calls, wrapped } = counted(fixture.store);
    shared = tailOver(wrapped, { idleStopMs: 50 });
    const first = follower(shared, a);
    await fixture.store.append(stream(a, 'x'), [newEvent('A', 1)], 'no_stream');
    await within(until(() => first.seen.length === 1));
    await first.subscription.stop();
    await within(until(() => calls.stopped === 1));
    expect(calls.subscribe).toBe(1);
    // Written while nobody follows: the next subscriber from before them is handed them, then the tail's.
    const meanwhile = [newEvent('A', 2), newEvent('A', 3)];
    await fixture.store.append(stream(a, 'x'), meanwhile, 0n);
    const next = follower(shared, a, { after: first.seen[0]!.position });
    await within(until(() => next.seen.length === 2));
    expect(calls.subscribe).toBe(2);
    const later = newEvent('A', 4);
    await fixture.store.append(stream(a, 'x'), [later], 2n);
    await within(until(() => next.seen.length === 3));
    await new Promise((r) => setTimeout(r, 100)); // room for a wrongly repeated event
    expect(next.seen.map((e) => e.id)).toEqual([...meanwhile, later].map((e) => e.id));
    expect(increasing(next.seen)).toBe(true);
  });

  if (kind === 'parsed')
    it("hands each event, caught up or live, as the store's readAll gives it: the same fields, data and metadata in their key order, through a spread and a structured clone too", async () => {
      shared = tailOver(fixture.store);
      const event = (n: number): NewEvent => ({
        id: randomUUID(),
        type: 'A',
        data: { z: n, a: { y: [1, { c: 2, b: 3 }], x: null }, '10': 'ten', '2': 'two' },
        metadata: { requestId: `r${n}`, actor: { userId: 'u', keyId: 'k' } },
      });
      await fixture.store.append(stream(a, 'old'), [event(1), event(2)], 'no_stream');
      const caughtUp = follower(shared, a);
      await within(until(() => caughtUp.seen.length === 2));
      await fixture.store.append(stream(a, 'new'), [event(3)], 'no_stream');
      await within(until(() => caughtUp.seen.length === 3));
      const asRead = await fixture.store.readAll({ limit: 10, streamPrefix: a });
      // Each field's text, in the object's key order: what a subscriber that serializes an event writes.
      const text = (e: FeedEvent) =>
        Object.entries(e).map(([key, value]) => [key, typeof value === 'bigint' ? `${value}n` : JSON.stringify(value)]);
      expect(caughtUp.seen.map(text)).toEqual(asRead.map(text));
      expect(caughtUp.seen.map((e) => text({ ...e }))).toEqual(asRead.map(text));
      expect(caughtUp.seen.map((e) => text(structuredClone(e)))).toEqual(asRead.map(text));
      // A subscriber may set what it was handed, as on any parsed event.
      const first = caughtUp.seen[0] as FeedEvent & { data: unknown };
      first.data = { replaced: true };
      expect(first.data).toEqual({ replaced: true });
    });

  it('a subscriber that comes back within idleStopMs keeps the one subscription to the store', async () => {
    const { calls, wrapped } = counted(fixture.store);
    shared = tailOver(wrapped, { idleStopMs: 60_000 });
    const first = follower(shared, a);
    await first.subscription.stop();
    const again = follower(shared, a);
    await fixture.store.append(stream(a, 'y'), [newEvent('A', 1)], 'no_stream');
    await within(until(() => again.seen.length === 1));
    expect(calls).toMatchObject({ subscribe: 1, stopped: 0 });
  });
};
