import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { RecordedEvent } from '#src/eventstore/eventStore';
import { openSqliteEventStore } from '#src/eventstore/sqlite/store';
import { startProcessor, type ProcessorDefinition } from '#src/feed/processor';
import { withSharedTail } from '#src/feed/sharedFeed';
import { openSqliteCheckpoints } from '#src/feed/sqliteCheckpoints';
import { createMetrics } from '#src/observability/metrics';
import { processorWatch, watchProcessors } from '#src/observability/processorGauges';

/**
 * A new consumer of the log, as docs/architecture.md ("Adding a consumer of the log") walks it: a
 * toy processor that counts the events of one type per stream, on the embedded stores on disk. It
 * checkpoints, resumes after a restart (a new instance on the same files) and reports its lag in
 * the processors' metric family, as every processor does.
 */
const silent = pino({ level: 'silent' });

// The toy processor: a name, the types it handles, a batch handler. That is all a processor is.
const countingProcessor = (counts: Map<string, number>, gate: () => Promise<void>): ProcessorDefinition<RecordedEvent> => ({
  name: 'toy-counter',
  streamPrefix: 'toy-',
  eventTypes: ['Counted'],
  async handle(events) {
    await gate();
    for (const e of events) counts.set(e.stream, (counts.get(e.stream) ?? 0) + 1);
  },
});

const scraped = async (metrics: ReturnType<typeof createMetrics>, name: string) => {
  const text = await metrics.scrape();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{processor="toy-counter"} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
};

it('checkpoints, resumes after a restart from its checkpoint, and reports its lag in the shared gauges', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'presets-toy-'));
  const open = () => {
    const events = openSqliteEventStore({ file: join(dir, 'events.db'), writerThread: false, pollIntervalMs: 50 });
    return { events, tail: withSharedTail(events), checkpoints: openSqliteCheckpoints({ file: join(dir, 'checkpoints.db') }) };
  };
  const stream = `toy-${randomUUID()}`;
  let revision = -1n;
  const write = async (events: ReturnType<typeof open>['events'], ...types: string[]) => {
    for (const type of types) {
      await events.append(stream, [{ id: randomUUID(), type, data: {}, metadata: {} }], revision < 0n ? 'no_stream' : revision);
      revision++;
    }
    return (await events.headPosition())!;
  };
  const counts = new Map<string, number>();
  let held: Promise<void> = Promise.resolve();
  let release = () => {};

  try {
    // First life: handles three events, skips one of another type, checkpoints.
    let stores = open();
    let metrics = createMetrics();
    let toy = await startProcessor(
      countingProcessor(counts, () => held),
      { ...stores, logger: silent },
    );
    watchProcessors(metrics, stores.events, [processorWatch(toy)]);
    let head = await write(stores.events, 'Counted', 'Counted', 'Other', 'Counted');
    await toy.reached(head);
    expect(counts.get(stream)).toBe(3);
    expect(await scraped(metrics, 'presets_processor_lag_events')).toBe(0);
    expect(await scraped(metrics, 'presets_processor_position')).toBe(Number(head));
    await toy.stop();
    await stores.tail.close();
    await stores.events.close();
    await stores.checkpoints.close();

    // Written while it is down.
    stores = open();
    head = await write(stores.events, 'Counted', 'Other');
    await stores.events.close();
    await stores.checkpoints.close();

    // Second life, from the files: only what came after its checkpoint.
    stores = open();
    expect(await stores.checkpoints.read('toy-counter')).toBeGreaterThan(0n);
    metrics = createMetrics();
    held = new Promise<void>((r) => (release = r)); // its handler waits: events pile up
    toy = await startProcessor(
      countingProcessor(counts, () => held),
      { ...stores, logger: silent },
    );
    watchProcessors(metrics, stores.events, [processorWatch(toy)]);
    await write(stores.events, 'Counted', 'Counted');
    // Three events of its type not handled yet (one from while it was down, two since); the other type is no lag.
    expect(await scraped(metrics, 'presets_processor_lag_events')).toBe(3);
    expect(await scraped(metrics, 'presets_processor_lag_seconds')).toBeGreaterThanOrEqual(0);
    release();
    head = (await stores.events.headPosition())!;
    await toy.reached(head);
    expect(counts.get(stream)).toBe(6); // each event once over both lives
    expect(await scraped(metrics, 'presets_processor_lag_events')).toBe(0);
    await toy.stop();
    expect(await stores.checkpoints.read('toy-counter')).toBe(head);
    await stores.tail.close();
    await stores.events.close();
    await stores.checkpoints.close();
  } finally {
    release();
    rmSync(dir, { recursive: true, force: true });
  }
});
