import { parentPort, workerData } from 'node:worker_threads';
import { createBatchWriter, openEventsDb, type AppendRequest } from './sqliteWriter';

/** The embedded event store's writer thread: batches in, outcomes out, one at a time. */
const db = openEventsDb((workerData as { file: string }).file);
const write = createBatchWriter(db);

parentPort!.on('message', (message: { id: number; batch: AppendRequest[] } | { close: true }) => {
  if ('close' in message) {
    db.close();
    parentPort!.close();
    return;
  }
  parentPort!.postMessage({ id: message.id, outcome: write(message.batch) });
});
