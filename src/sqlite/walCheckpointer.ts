import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { checkpointRound, openForCheckpoints, type CheckpointRound, type FileCheckpoint } from './walCheckpoints';

/**
 * Runs the WAL checkpoints of the service's SQLite files (walCheckpoints.ts) every `intervalMs`,
 * in a worker thread when the compiled worker exists (the built service), else on this thread
 * (tests from source). The stores keep SQLite's automatic checkpoint at 10,000 pages as a safety
 * net: with this running it is never reached; if this thread dies, SQLite takes over.
 */
export interface CheckpointerOptions {
  files: string[];
  intervalMs?: number;
  /** A WAL longer than this many pages (4 KiB each) is restarted. */
  restartAbovePages?: number;
}
export type ToCheckpointer = { kind: 'now'; id: number } | { kind: 'stop' };
export type FromCheckpointer = { kind: 'started' } | ({ kind: 'round'; id?: number } & CheckpointRound);

export interface WalCheckpointer {
  readonly threaded: boolean;
  /** One round now, with what it did per file (null: that file's checkpoint failed). */
  checkpointNow(): Promise<(FileCheckpoint | null)[]>;
  stop(): Promise<void>;
}

export const WAL_CHECKPOINTER_WORKER = join(__dirname, 'walCheckpointerWorker.js');
const DEFAULTS = { intervalMs: 100, restartAbovePages: 4000 };

export const startWalCheckpointer = async (
  options: CheckpointerOptions, logger: Logger,
  { mode = 'auto', workerFile = WAL_CHECKPOINTER_WORKER }: { mode?: 'auto' | 'thread' | 'inline'; workerFile?: string } = {},
): Promise<WalCheckpointer> => {
  const settings = { ...DEFAULTS, ...options };
  // Logged when a file starts failing and when it recovers, not every round.
  const failing = new Set<string>();
  const report = ({ results, failures }: CheckpointRound) => {
    for (const { file, message } of failures) {
      if (!failing.has(file)) logger.warn({ file, err: message }, 'WAL checkpoint failed; retrying every round');
      failing.add(file);
    }
    for (const r of results) if (r && failing.delete(r.file)) logger.info({ file: r.file }, 'WAL checkpoints work again');
    return results;
  };

  if (mode === 'inline' || (mode === 'auto' && !existsSync(workerFile))) {
    const dbs = settings.files.map((file) => ({ file, db: openForCheckpoints(file) }));
    const round = () => report(checkpointRound(dbs, settings.restartAbovePages));
    const timer = setInterval(round, settings.intervalMs).unref();
    return {
      threaded: false,
      checkpointNow: async () => round(),
      async stop() {
        clearInterval(timer);
        for (const { db } of dbs) db.close();
      },
    };
  }

  // It makes almost no garbage.
  const worker = new Worker(workerFile, { workerData: settings, resourceLimits: { maxYoungGenerationSizeMb: 1 } });
  const waiting = new Map<number, (results: (FileCheckpoint | null)[]) => void>();
  let next = 0;
  let stopping = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.once('exit', (code) => {
    for (const resolve of waiting.values()) resolve(settings.files.map(() => null));
    waiting.clear();
    if (!stopping) logger.error({ code }, 'WAL checkpointer stopped; SQLite checkpoints by itself from now on');
  });
  await new Promise<void>((resolve, reject) => {
    worker.on('error', (thrown: unknown) => {
      // An error of better-sqlite3's own class crosses the thread boundary as a plain { code }.
      const { message, code } = (thrown ?? {}) as { message?: string; code?: string };
      const error = thrown instanceof Error ? thrown : new Error(message ?? `the WAL checkpointer thread failed${code ? ` (${code})` : ''}`);
      logger.error({ err: error }, 'WAL checkpointer failed');
      reject(error);
    });
    worker.on('message', (message: FromCheckpointer) => {
      if (message.kind === 'started') return resolve();
      const results = report(message);
      if (message.id === undefined) return;
      waiting.get(message.id)?.(results);
      waiting.delete(message.id);
    });
  });
  return {
    threaded: true,
    checkpointNow: () => new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      worker.postMessage({ kind: 'now', id } satisfies ToCheckpointer);
    }),
    async stop() {
      stopping = true;
      worker.postMessage({ kind: 'stop' } satisfies ToCheckpointer);
      await exited;
    },
  };
};
