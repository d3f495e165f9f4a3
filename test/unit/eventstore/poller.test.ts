import { createPoller } from '#src/eventstore/poller';
import type { RecordedEvent } from '#src/eventstore/eventStore';
import { until } from '#support/until';

/**
 * The embedded store's subscriptions: an append in this process is delivered at once, also when
 * it comes while the subscription is busy delivering the one before (a projector under load).
 */
const event = (position: number): RecordedEvent => ({
  id: `e${position}`,
  type: 'T',
  stream: 'preset-w-s',
  revision: BigInt(position - 1),
  position: BigInt(position),
  data: {},
  metadata: {},
  recordedAt: new Date(0),
});

it('delivers an event appended while the one before is being delivered, without waiting for the poll', async () => {
  const stored: RecordedEvent[] = [event(1)];
  const poller = createPoller(
    (after, limit) => stored.filter((e) => e.position > after).slice(0, limit),
    () => stored.at(-1)?.position ?? null,
  );
  const delivered: bigint[] = [];
  const second = new Promise<void>((resolve) => {
    poller.subscribe(
      'start',
      async (e) => {
        delivered.push(e.position);
        if (e.position === 1n) {
          // Appended and notified while this delivery is still running.
          stored.push(event(2));
          poller.notify();
        } else resolve();
      },
      { pollIntervalMs: 600_000 },
    );
  });
  await second; // with the notification lost, this would wait for the 10-minute poll (the test times out)
  expect(delivered).toEqual([1n, 2n]);
  await poller.stopAll();
});

it('waits for a notification when there is nothing new, then delivers what came', async () => {
  const stored: RecordedEvent[] = [];
  const poller = createPoller(
    (after, limit) => stored.filter((e) => e.position > after).slice(0, limit),
    () => stored.at(-1)?.position ?? null,
  );
  const got = new Promise<bigint>((resolve) => {
    poller.subscribe('start', async (e) => resolve(e.position), { pollIntervalMs: 600_000 });
  });
  await new Promise((r) => setTimeout(r, 20)); // the subscription is waiting
  stored.push(event(1));
  poller.notify();
  expect(await got).toBe(1n);
  await poller.stopAll();
});

it('stops at once when stopped while delivering, not after the poll interval', async () => {
  const stored: RecordedEvent[] = [event(1)];
  const poller = createPoller(
    (after, limit) => stored.filter((e) => e.position > after).slice(0, limit),
    () => stored.at(-1)?.position ?? null,
  );
  let stopping: Promise<void> | undefined;
  const subscription = poller.subscribe(
    'start',
    async () => {
      stopping = subscription.stop(); // e.g. a shutdown that comes while the projector is busy
    },
    { pollIntervalMs: 600_000 },
  );
  await new Promise((r) => setTimeout(r, 20));
  await stopping; // with the abort missed, this would last the 10-minute poll (the test times out)
});

describe('readEveryMs: a follower that can take events a little later reads a busy moment in one read', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const follow = (readEveryMs: number | undefined) => {
    const stored: RecordedEvent[] = [];
    let reads = 0;
    const poller = createPoller(
      (after, limit) => {
        reads++;
        return stored.filter((e) => e.position > after).slice(0, limit);
      },
      () => stored.at(-1)?.position ?? null,
    );
    const delivered: bigint[] = [];
    poller.subscribe('start', async (e) => void delivered.push(e.position), { pollIntervalMs: 600_000, readEveryMs });
    const commit = () => {
      stored.push(event(stored.length + 1));
      poller.notify();
    };
    return { poller, delivered, commit, reads: () => reads };
  };

  it('five commits 10 ms apart: one read each without it, one read for all of them with 100 ms, every event delivered once in order', async () => {
    for (const [readEveryMs, readsAfterFirst] of [
      [undefined, 5],
      [100, 1],
    ] as const) {
      const f = follow(readEveryMs);
      await jest.advanceTimersByTimeAsync(0); // the first read: nothing yet
      expect(f.reads()).toBe(1);
      for (let i = 0; i < 5; i++) {
        f.commit();
        await jest.advanceTimersByTimeAsync(10);
      }
      await jest.advanceTimersByTimeAsync(100);
      expect(f.delivered).toEqual([1n, 2n, 3n, 4n, 5n]);
      expect(f.reads() - 1).toBe(readsAfterFirst);
      await f.poller.stopAll();
    }
  });

  it('a commit after a quiet moment is read at once, not readEveryMs later', async () => {
    const f = follow(100);
    await jest.advanceTimersByTimeAsync(1000);
    f.commit();
    await jest.advanceTimersByTimeAsync(0);
    expect(f.delivered).toEqual([1n]);
    await f.poller.stopAll();
  });

  it('stops at once while it waits to read', async () => {
    const f = follow(60_000);
    await jest.advanceTimersByTimeAsync(0);
    f.commit(); // the last read was just now: it waits to read this one
    await jest.advanceTimersByTimeAsync(0);
    let stopped = false;
    void f.poller.stopAll().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(true);
  });
});

it('tells a subscription of some types how far it has read the log, events of other types included, and reads only its types', async () => {
  const stored: RecordedEvent[] = [event(1), { ...event(2), type: 'B' }, event(3)];
  const asked: Array<readonly string[] | undefined> = [];
  const poller = createPoller(
    (after, limit, _prefix, types) => {
      asked.push(types);
      return stored.filter((e) => e.position > after && (!types || types.includes(e.type))).slice(0, limit);
    },
    () => stored.at(-1)?.position ?? null,
  );
  const delivered: bigint[] = [];
  const scanned: bigint[] = [];
  poller.subscribe('start', async (e) => void delivered.push(e.position), {
    types: ['B'],
    pollIntervalMs: 600_000,
    onScanned: (p) => scanned.push(p),
  });
  await until(() => scanned.length === 1);
  expect(delivered).toEqual([2n]);
  expect(scanned).toEqual([3n]); // past the T at 3, which it was not handed
  stored.push(event(4));
  poller.notify();
  await until(() => scanned.length === 2);
  expect(delivered).toEqual([2n]);
  expect(scanned).toEqual([3n, 4n]);
  expect(asked.every((types) => types?.join() === 'B')).toBe(true);
  await poller.stopAll();
});

it('a subscription of some types is not woken by a commit of other types; one of its types, or of types not told, wakes it', async () => {
  const stored: RecordedEvent[] = [];
  let reads = 0;
  const poller = createPoller(
    (after, limit, _prefix, types) => {
      reads++;
      return stored.filter((e) => e.position > after && (!types || types.includes(e.type))).slice(0, limit);
    },
    () => stored.at(-1)?.position ?? null,
  );
  const delivered: bigint[] = [];
  poller.subscribe('start', async (e) => void delivered.push(e.position), { types: ['B'], pollIntervalMs: 600_000 });
  await until(() => reads === 1);
  stored.push(event(1));
  poller.notify(['T']);
  await new Promise((r) => setImmediate(r));
  expect(reads).toBe(1); // nothing of its types: no read
  stored.push({ ...event(2), type: 'B' });
  poller.notify(['T', 'B']);
  await until(() => delivered.length === 1);
  expect(delivered).toEqual([2n]);
  stored.push({ ...event(3), type: 'B' });
  poller.notify(); // a commit whose types were not told
  await until(() => delivered.length === 2);
  expect(reads).toBe(3);
  await poller.stopAll();
});
