import { serveThread } from '../../threads/thread';
import { announceAppends, createBatchWriter, openEventsDb, type AppendRequest } from './writer';

/** The embedded event store's writer thread (store.ts): batches in, outcomes out, one at a time. */
serveThread(async ({ file }: { file: string }) => {
  const db = openEventsDb(file);
  const write = createBatchWriter(db);
  const announce = announceAppends(file);
  return {
    write: (batch: AppendRequest[]) => {
      const outcome = write(batch);
      announce.post(batch, outcome);
      return outcome;
    },
    stop: async () => {
      announce.close();
      db.close();
    },
  };
});
