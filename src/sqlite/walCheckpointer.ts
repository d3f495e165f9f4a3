import type { Logger } from 'pino';
import { startThread, threadEntry } from '../threads/thread';
import { checkpointRound, openForCheckpoints, type CheckpointRound, type FileCheckpoint } from './walCheckpoints';

/**
 * Runs the WAL checkpoints of the service's SQLite files (walCheckpoints.ts) every `intervalMs`,
 * in a thread of its own where the service uses threads (src/threads/thread.ts), else on this
 * thread. The stores keep SQLite's automatic checkpoint at 10,000 pages as a safety
 * net: with this running it is never reached; if this thread dies, SQLite takes over.
 */
export interface CheckpointerOptions {
  files: string[];
  intervalMs?: number;
  /** A WAL longer than this many pages (4 KiB each) is restarted. */
  restartAbovePages?: number;
}
export interface WalCheckpointer {
  readonly threaded: boolean;
  /** One round now, with what it did per file (null: that file's checkpoint failed). */
  checkpointNow(): Promise<(FileCheckpoint | null)[]>;
  stop(): Promise<void>;
}

const DEFAULTS = { intervalMs: 100, restartAbovePages: 4000 };

/** What the checkpointer's thread (walCheckpointerWorker.ts) answers and tells. */
export type CheckpointerApi = { now(): CheckpointRound };
export type CheckpointerEvents = { round: [CheckpointRound] };

export const startWalCheckpointer = async (
  options: CheckpointerOptions,
  logger: Logger,
  { entry = threadEntry(__dirname, 'walCheckpointerWorker') }: { entry?: string | false } = {},
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

  if (!entry) {
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

  const thread = startThread<CheckpointerApi, CheckpointerEvents>(entry, 'walCheckpointer', settings);
  thread.on('round', report);
  let stopping = false;
  void thread.exited.then((code) => {
    if (!stopping) logger.error({ code }, 'WAL checkpointer stopped; SQLite checkpoints by itself from now on');
  });
  try {
    await thread.ready;
  } catch (error) {
    logger.error({ err: error }, 'WAL checkpointer failed');
    throw error;
  }
  return {
    threaded: true,
    // A thread that is gone has checkpointed nothing.
    checkpointNow: () => thread.call('now').then(report, () => settings.files.map(() => null)),
    async stop() {
      stopping = true;
      await thread.stop();
    },
  };
};
