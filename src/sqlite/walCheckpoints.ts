import Database from 'better-sqlite3';

/**
 * WAL checkpoints away from the threads that serve writes. SQLite's automatic checkpoint runs
 * inside the commit that crosses its threshold, on the committing thread, and held the projector
 * (and every write waiting on it) for tens of milliseconds (docs/performance.md). Here one connection per file
 * copies the WAL into the database without taking the write lock (PASSIVE), and once the WAL is
 * past `restartAbovePages` restarts it (RESTART), which holds writers only while the last few
 * frames are copied: under sustained writes a PASSIVE checkpoint never catches up by itself, and
 * the WAL would only grow.
 */
export interface WalCheckpoint {
  /** Frames in the WAL when the checkpoint started. */
  walPages: number;
  /** Frames copied into the database by now. */
  copiedPages: number;
  /** The WAL starts again from its beginning at the next write. */
  restarted: boolean;
}

interface PragmaResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/** The connection the checkpoints are made on: it waits at most `busyTimeoutMs` for a writer to finish. */
export const openForCheckpoints = (file: string, busyTimeoutMs = 1000): Database.Database => {
  const db = new Database(file, { fileMustExist: true });
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  // A checkpoint copies WAL frames to the database file: it needs next to no page cache.
  db.pragma('cache_size = -256');
  // A connection that only checkpoints never checkpoints when it closes either.
  db.pragma('wal_autocheckpoint = 0');
  return db;
};

export const checkpointWal = (db: Database.Database, restartAbovePages: number): WalCheckpoint => {
  const [passive] = db.pragma('wal_checkpoint(PASSIVE)') as PragmaResult[];
  if (passive!.log < restartAbovePages) return { walPages: passive!.log, copiedPages: passive!.checkpointed, restarted: false };
  const [restart] = db.pragma('wal_checkpoint(RESTART)') as PragmaResult[];
  return { walPages: restart!.log, copiedPages: restart!.checkpointed, restarted: restart!.busy === 0 };
};

export type FileCheckpoint = WalCheckpoint & { file: string };
/** What one round over the files did: a file whose checkpoint failed (busy, disk full) is null in `results`. */
export interface CheckpointRound {
  results: (FileCheckpoint | null)[];
  failures: Array<{ file: string; message: string }>;
}

export const checkpointRound = (dbs: Array<{ file: string; db: Database.Database }>, restartAbovePages: number): CheckpointRound => {
  const failures: CheckpointRound['failures'] = [];
  const results = dbs.map(({ file, db }) => {
    try {
      return { file, ...checkpointWal(db, restartAbovePages) };
    } catch (error) {
      failures.push({ file, message: (error as Error).message });
      return null;
    }
  });
  return { results, failures };
};
