import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { createBatchWriter, type AppendRequest, type BatchOutcome } from './sqliteWriter';

/**
 * Where a batch of appends is written: in a worker thread when the compiled worker is there (the
 * built service), else on this thread (tests running from TypeScript source). Same code either way.
 */
export interface BatchWriterHandle {
  write(batch: AppendRequest[]): Promise<BatchOutcome>;
  close(): Promise<void>;
  readonly threaded: boolean;
}

export const WORKER_FILE = join(__dirname, 'sqliteWriterWorker.js');

export const startBatchWriter = (
  file: string, db: Database.Database, mode: 'auto' | 'thread' | 'inline' = 'auto', workerFile = WORKER_FILE,
): BatchWriterHandle => {
  if (mode === 'inline' || (mode === 'auto' && !existsSync(workerFile))) {
    const write = createBatchWriter(db);
    return { threaded: false, write: async (batch) => write(batch), close: async () => undefined };
  }
  // It makes little garbage: a small young generation keeps the process's memory down.
  const worker = new Worker(workerFile, { workerData: { file }, resourceLimits: { maxYoungGenerationSizeMb: 2 } });
  const waiting = new Map<number, (outcome: BatchOutcome) => void>();
  let next = 0;
  const failAll = (message: string) => {
    for (const resolve of waiting.values()) resolve({ ok: false, fault: { code: 'WORKER', message } });
    waiting.clear();
  };
  worker.on('message', ({ id, outcome }: { id: number; outcome: BatchOutcome }) => {
    waiting.get(id)?.(outcome);
    waiting.delete(id);
  });
  worker.on('error', (error) => failAll(`event store writer failed: ${error.message}`));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => {
    failAll('event store writer stopped');
    resolve();
  }));
  return {
    threaded: true,
    write: (batch) => new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      worker.postMessage({ id, batch });
    }),
    close: async () => {
      worker.postMessage({ close: true });
      await exited;
    },
  };
};
