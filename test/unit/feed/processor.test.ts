import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { RecordedEvent } from '#src/eventstore/eventStore';
import { openMemoryEventStore } from '#src/eventstore/memory';
import { memoryCheckpoints, type CheckpointStore } from '#src/feed/checkpoints';
import { backOff, startProcessor, type ProcessorDefinition } from '#src/feed/processor';
import { withSharedTail } from '#src/feed/sharedFeed';
import { until } from '#support/until';

/**
 * The processor base (src/feed/processor.ts) over the memory store's shared tail and the memory
 * checkpoint store: which events reach the handler, when the checkpoint is stored, and how a
 * failing handler is retried. Retries wait on a clock the test holds: no test waits for a delay.
 */
const silent = pino({ level: 'silent' });

const setup = () => {
  const store = openMemoryEventStore();
  const tail = withSharedTail(store);
  const prefix = `preset-${randomUUID()}-`;
  let n = 0;
  const write = async (...types: string[]) => {
    for (const type of types)
      await store.append(`${prefix}s${n}`, [{ id: randomUUID(), type, data: { n: n++ }, metadata: {} }], 'no_stream');
    return (await store.headPosition())!;
  };
  return {
    store,
    tail,
    prefix,
    write,
    close: async () => {
      await tail.close();
      await store.close();
    },
  };
};

/** A checkpoint store that tells what was stored, in order. */
const watched = (inner: CheckpointStore = memoryCheckpoints()) => {
  const stores: bigint[] = [];
  return {
    stores,
    read: (name: string) => inner.read(name),
    store: async (name: string, position: bigint) => {
      stores.push(position);
      await inner.store(name, position);
    },
  };
};

/** A clock for retries: each wait is held until the test lets it go. */
const heldWaits = () => {
  const waits: { ms: number; release: () => void }[] = [];
  return {
    waits,
    wait: (ms: number) => new Promise<void>((release) => void waits.push({ ms, release })),
  };
};

it('hands over only the types it handles, in log order, and passes the others: the checkpoint ends at the head', async () => {
  const s = setup();
  const checkpoints = watched();
  const seen: string[] = [];
  const toy: ProcessorDefinition<RecordedEvent> = {
    name: 'toy',
    streamPrefix: s.prefix,
    eventTypes: ['Counted'],
    handle: async (events) => void seen.push(...events.map((e) => `${e.type}:${(e.data as { n: number }).n}`)),
  };
  const processor = await startProcessor(toy, { tail: s.tail, checkpoints, logger: silent });
  await s.write('Counted', 'Other', 'Counted');
  const head = await s.write('Other', 'Other'); // the last events are of a type it does not handle
  await processor.reached(head);
  expect(seen).toEqual(['Counted:0', 'Counted:2']);
  await processor.stop();
  expect(await checkpoints.read('toy')).toBe(head);
  expect([...checkpoints.stores].sort((a, b) => (a < b ? -1 : 1))).toEqual(checkpoints.stores); // only forward
  await s.close();
});

it('resumes from its checkpoint: a new instance on the same store handles only what came after', async () => {
  const s = setup();
  const checkpoints = memoryCheckpoints();
  const handled: number[][] = [];
  const start = (i: number) =>
    startProcessor<RecordedEvent>(
      {
        name: 'resumer',
        streamPrefix: s.prefix,
        handle: async (events) => void (handled[i] ??= []).push(...events.map((e) => (e.data as { n: number }).n)),
      },
      { tail: s.tail, checkpoints, logger: silent },
    );
  const first = await start(0);
  await first.reached(await s.write('A', 'A'));
  await first.stop();
  await s.write('A');
  const second = await start(1);
  await second.reached(await s.write('A'));
  await second.stop();
  expect(handled).toEqual([
    [0, 1],
    [2, 3],
  ]);
  await s.close();
});

it('a handler that stores its checkpoint itself (one transaction) is not stored again', async () => {
  const s = setup();
  const checkpoints = watched();
  const own: bigint[] = [];
  const processor = await startProcessor<RecordedEvent>(
    {
      name: 'transactional',
      streamPrefix: s.prefix,
      handle: async (_, { checkpoint }) => {
        own.push(checkpoint);
        await checkpoints.store('transactional', checkpoint); // as a read model does with its documents
        return 'checkpointed';
      },
    },
    { tail: s.tail, checkpoints, logger: silent },
  );
  const head = await s.write('A', 'A', 'A');
  await processor.reached(head);
  await processor.stop();
  expect(checkpoints.stores).toEqual(own);
  expect(own[own.length - 1]).toBe(head);
  await s.close();
});

it('retries a failing handler with back-off, from its checkpoint, unhealthy while it waits', async () => {
  const s = setup();
  const checkpoints = memoryCheckpoints();
  const clock = heldWaits();
  let calls = 0;
  const handled: number[] = [];
  const processor = await startProcessor<RecordedEvent>(
    {
      name: 'flaky',
      streamPrefix: s.prefix,
      retry: { initialMs: 100, maxMs: 350 },
      handle: async (events) => {
        if (++calls <= 4) throw new Error(`failure ${calls}`);
        handled.push(...events.map((e) => (e.data as { n: number }).n));
      },
    },
    { tail: s.tail, checkpoints, logger: silent, wait: clock.wait },
  );
  const health: boolean[] = [];
  processor.events.on('health', (ok) => health.push(ok));
  const head = await s.write('A', 'A');
  for (let failed = 1; failed <= 4; failed++) {
    await until(() => clock.waits.length === failed);
    expect(processor.healthy()).toBe(false);
    expect(await checkpoints.read('flaky')).toBeNull(); // nothing handled, nothing stored
    clock.waits[failed - 1]!.release();
  }
  await processor.reached(head);
  expect(clock.waits.map((w) => w.ms)).toEqual([100, 200, 350, 350]); // doubled, up to maxMs
  expect(health).toEqual([false, true, false, true, false, true, false, true]);
  expect(processor.healthy()).toBe(true);
  expect(handled).toEqual([0, 1]); // each once: a failed batch moves nothing
  expect(await checkpoints.read('flaky')).toBe(head);
  await processor.stop();
  await s.close();
});

it('an event of a type it does not handle never reaches a failing handler, and never stops it', async () => {
  const s = setup();
  const checkpoints = memoryCheckpoints();
  const processor = await startProcessor<RecordedEvent>(
    {
      name: 'picky',
      streamPrefix: s.prefix,
      eventTypes: ['Wanted'],
      handle: async (events) => {
        if (events.some((e) => e.type !== 'Wanted')) throw new Error('handed an event of another type');
      },
    },
    { tail: s.tail, checkpoints, logger: silent },
  );
  const head = await s.write('Unknown', 'Wanted', 'Unknown');
  await processor.reached(head);
  expect(processor.healthy()).toBe(true);
  await processor.stop();
  expect(await checkpoints.read('picky')).toBe(head);
  await s.close();
});

it("with onFailure 'end', it stops at the first failure and says why", async () => {
  const s = setup();
  const checkpoints = memoryCheckpoints();
  const boom = new Error('receiver gone');
  const processor = await startProcessor<RecordedEvent>(
    {
      name: 'ender',
      streamPrefix: s.prefix,
      maxBatch: 1,
      onFailure: 'end',
      handle: async ([event]) => {
        if ((event!.data as { n: number }).n === 1) throw boom;
      },
    },
    { tail: s.tail, checkpoints, logger: silent },
  );
  const first = await s.write('A');
  await s.write('A', 'A');
  expect(await processor.ended).toBe(boom);
  expect(await checkpoints.read('ender')).toBe(first); // the one before the failure
  await processor.stop();
  await s.close();
});

it('backs off by doubling from the first wait, up to the longest', () => {
  expect([1, 2, 3, 4, 5, 6].map((n) => backOff(n, { initialMs: 100, maxMs: 1000 }))).toEqual([100, 200, 400, 800, 1000, 1000]);
  expect(backOff(200, { initialMs: 100, maxMs: 30_000 })).toBe(30_000);
});

it('a log that cannot be read at first: it retries until the tail starts, then handles everything', async () => {
  const store = openMemoryEventStore();
  let unreachable = 2; // the first two attempts to start the tail cannot read the log's head
  const tail = withSharedTail({
    ...store,
    headPosition: async (o) => {
      if (unreachable-- > 0) throw new Error('unreachable');
      return store.headPosition(o);
    },
  });
  const clock = heldWaits();
  const seen: string[] = [];
  const processor = await startProcessor<RecordedEvent>(
    { name: 'patient', streamPrefix: 'preset-', handle: async (events) => void seen.push(...events.map((e) => e.id)) },
    { tail, checkpoints: memoryCheckpoints(), logger: silent, wait: clock.wait },
  );
  await store.append(`preset-${randomUUID()}-a`, [{ id: 'e1', type: 'T', data: {}, metadata: {} }], 'no_stream');
  for (let failed = 1; failed <= 2; failed++) {
    await until(() => clock.waits.length === failed);
    clock.waits[failed - 1]!.release();
  }
  await processor.reached((await store.headPosition())!);
  expect(seen).toEqual(['e1']);
  await processor.stop();
  await tail.close();
  await store.close();
});
