import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Config } from '../src/config';
import type { EventStore } from '../src/eventstore/eventStore';
import { PRESET_STREAM_PREFIX } from '../src/presets/streamName';
import { foldStreams } from './foldStreams';
import type { ProjectionChange } from './readmodel/readModel';
import { sqliteRows } from './readmodel/sqlite';

/**
 * The bulk of a rebuild: every preset stream up to `until`, folded (foldStreams.ts) and written.
 * With `threads`, that many worker threads each read, decode, fold and encode one share of the
 * streams from their own event-store connection, and this thread only writes what they send: the
 * SQLite target takes rows whose JSON the workers already made. Without (or when the compiled
 * worker is absent: tests running from source), the same fold runs here.
 */
export type Encoding = 'sqlite' | 'changes';
export const ENCODERS: Record<Encoding, (changes: ProjectionChange[]) => unknown> = {
  sqlite: sqliteRows,
  changes: (changes) => changes,
};

/** Where the fold's changes go: made with `ENCODERS[encoding]` where the fold runs, written here, in turn. */
export interface BulkWriter {
  encoding: Encoding;
  write(payload: unknown): Promise<void>;
}

export interface LoadOptions {
  until: bigint;
  writer: BulkWriter;
  /** Called after each write with the events it covered. */
  onEvents?: (events: number) => void;
  pageSize?: number;
  threads?: { count: number; config: Config; workerFile?: string };
}

export const WORKER_FILE = join(__dirname, 'loadStreamsWorker.js');
/** Batches a worker may have sent and not yet seen written: keeps it busy, and memory bounded. */
export const IN_FLIGHT = 2;
/**
 * Small pages and small worker heaps: V8 lets an unlimited heap grow far past what is alive, and
 * three of them (two workers and this thread) took a 1M-event rebuild to 280 MB resident; so
 * limited, 190 MB, at the same speed. What a worker holds is a page and one preset with its
 * versions: 64 MB old space fits a preset of some 10,000 versions (a bigger one fails the
 * rebuild, loudly, with the worker's out-of-memory error). The young generation is where a
 * page's parsed events die: at 8 MB they outlived scavenges and were copied and promoted (17% of
 * a worker's time went to the collector, 6% now); 16 MB with pages of 100 events made a rebuild of
 * 200,000 events 11–33% faster (alternated runs), peak RSS 145 → 148–156 MB (32 MB: 195 MB).
 */
export const PAGE_EVENTS = 100;
const WORKER_HEAP = { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 64 };

/** Whether `loadStreams` can start worker threads here (not when running from TypeScript source). */
export const canThread = (workerFile = WORKER_FILE): boolean => existsSync(workerFile);

export const loadStreams = async (eventStore: EventStore, { until, writer, onEvents, pageSize = PAGE_EVENTS, threads }: LoadOptions): Promise<number> => {
  const workerFile = threads?.workerFile ?? WORKER_FILE;
  if (!threads || threads.count < 1 || !canThread(workerFile)) {
    const encode = ENCODERS[writer.encoding];
    const pages = eventStore.readStreams({ until, streamPrefix: PRESET_STREAM_PREFIX, pageSize });
    return foldStreams(pages, async (changes, events) => {
      await writer.write(encode(changes));
      onEvents?.(events);
    });
  }
  const workers: Worker[] = [];
  let writes = Promise.resolve(); // one write at a time, in arrival order
  try {
    const counts = await Promise.all(Array.from({ length: threads.count }, (_, index) => new Promise<number>((resolve, reject) => {
      const worker = new Worker(workerFile, {
        resourceLimits: WORKER_HEAP,
        workerData: { config: threads.config, until, share: { index, count: threads.count }, encoding: writer.encoding, pageSize },
      });
      workers.push(worker);
      worker.on('message', (message: { payload: unknown; events: number } | { done: number } | { failed: string }) => {
        if ('failed' in message) reject(new Error(message.failed));
        else if ('done' in message) resolve(message.done);
        else {
          writes = writes.then(() => writer.write(message.payload)).then(() => {
            onEvents?.(message.events);
            worker.postMessage('written');
          });
          writes.catch(reject);
        }
      });
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`rebuild worker ${index} stopped (exit code ${code})`)));
    })));
    await writes;
    return counts.reduce((a, b) => a + b, 0);
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
};
