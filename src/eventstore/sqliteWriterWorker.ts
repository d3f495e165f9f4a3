import { BroadcastChannel, parentPort, workerData } from 'node:worker_threads';
import { appendedChannelName, createBatchWriter, openEventsDb, type AppendRequest } from './sqliteWriter';

/** The embedded event store's writer thread: batches in, outcomes out, one at a time. */
const { file } = workerData as { file: string };
const db = openEventsDb(file);
const write = createBatchWriter(db);
const appended = new BroadcastChannel(appendedChannelName(file));

parentPort!.on('message', (message: { id: number; batch: AppendRequest[] } | { close: true }) => {
  if ('close' in message) {
    appended.close();
    db.close();
    parentPort!.close();
    return;
  }
  const outcome = write(message.batch);
  if (outcome.ok && outcome.outcomes.some((o) => o.ok)) appended.postMessage(null);
  parentPort!.postMessage({ id: message.id, outcome });
});
