import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { EVENTS_FILE, openEventStore, openReadModel } from '../src/backends';
import type { Config } from '../src/config';
import { openSqliteEventStore } from '../src/eventstore/sqlite';
import { createLogger } from '../src/logger';
import { startProjector } from './projector';
import type { FromProjectorThread, ToProjectorThread } from './projectorThread';

/**
 * The projector thread of the service (projectorThread.ts): the same projector as `npm run
 * projector`, with its own connections to both stores, relaying what it projects to the main thread.
 */
const port = parentPort!;
const { config, pollIntervalMs } = workerData as { config: Config; pollIntervalMs?: number };
const send = (message: FromProjectorThread) => port.postMessage(message);

const main = async () => {
  const logger = createLogger(config.logLevel).child({ component: 'projector', thread: true });
  // Only reads here: appends are the main thread's, which says 'wake' after each.
  const embedded = config.eventstoreUrl ? undefined : openSqliteEventStore({ file: join(config.dataDir, EVENTS_FILE), writer: 'inline', pollIntervalMs });
  const eventStore = embedded ?? openEventStore(config, logger);
  const readModel = await openReadModel(config);
  const projector = await startProjector({ eventStore, readModel, logger });
  projector.events.on('projected', (position, documents) => send({ kind: 'projected', position, documents }));
  projector.events.on('health', (healthy: boolean) => send({ kind: 'health', healthy }));
  port.on('message', (message: ToProjectorThread) => {
    if (message.kind === 'wake') return embedded?.lookNow();
    void (async () => {
      await projector.stop();
      await eventStore.close();
      await readModel.close();
      port.close();
    })();
  });
  send({ kind: 'started', position: projector.position() });
};

// A failure to start becomes the Worker's 'error' event in the main thread.
main().catch((error: unknown) => {
  throw error;
});
