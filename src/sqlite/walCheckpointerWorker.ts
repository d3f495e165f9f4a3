import { parentPort, workerData } from 'node:worker_threads';
import { checkpointRound, openForCheckpoints } from './walCheckpoints';
import type { CheckpointerOptions, FromCheckpointer, ToCheckpointer } from './walCheckpointer';

/** The WAL checkpointer's thread (walCheckpointer.ts): a round over every file every interval, reported to the main thread. */
const port = parentPort!;
const { files, intervalMs, restartAbovePages } = workerData as Required<CheckpointerOptions>;
const dbs = files.map((file) => ({ file, db: openForCheckpoints(file) }));
const round = (id?: number) => port.postMessage({ kind: 'round', id, ...checkpointRound(dbs, restartAbovePages) } satisfies FromCheckpointer);

const timer = setInterval(round, intervalMs);
port.on('message', (message: ToCheckpointer) => {
  if (message.kind === 'now') return round(message.id);
  clearInterval(timer);
  for (const { db } of dbs) db.close();
  port.close();
});
port.postMessage({ kind: 'started' } satisfies FromCheckpointer);
