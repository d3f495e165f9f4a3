import { serveThread } from '../threads/thread';
import type { CheckpointerEvents, CheckpointerOptions } from './walCheckpointer';
import { checkpointRound, openForCheckpoints } from './walCheckpoints';

/** The WAL checkpointer's thread (walCheckpointer.ts): a round over every file every interval, reported to the parent. */
serveThread<{ now(): ReturnType<typeof checkpointRound>; stop(): Promise<void> }, CheckpointerEvents>(
  async ({ files, intervalMs, restartAbovePages }: Required<CheckpointerOptions>, parent) => {
    const dbs = files.map((file) => ({ file, db: openForCheckpoints(file) }));
    const round = () => checkpointRound(dbs, restartAbovePages);
    const timer = setInterval(() => parent.emit('round', round()), intervalMs);
    return {
      now: round,
      stop: async () => {
        clearInterval(timer);
        for (const { db } of dbs) db.close();
      },
    };
  },
);
