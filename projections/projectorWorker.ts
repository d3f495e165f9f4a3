import { parentPort, workerData } from 'node:worker_threads';
import { openEventStore, openReadModel } from '../src/backends';
import type { Config } from '../src/config';
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
  // Only reads here. The embedded store's writer thread tells this store of each commit itself; a
  // main thread that appends without one (tests from source) says 'wake' instead.
  const eventStore = openEventStore(config, logger, { readOnly: true, pollIntervalMs });
  const readModel = await openReadModel(config);
  const projector = await startProjector({ eventStore, readModel, logger });
  projector.events.on('projected', (position, documents) => send({ kind: 'projected', position, documents }));
  projector.events.on('health', (healthy: boolean) => send({ kind: 'health', healthy }));
  port.on('message', (message: ToProjectorThread) => {
    if (message.kind === 'wake') return eventStore.lookNow?.();
    void (async () => {
      await projector.stop();
      await eventStore.close();
      await readModel.close();
      port.close();
    })();
  });
  send({ kind: 'started', position: projector.position() });
};

// A failure to start is an unhandled rejection, which ends the thread: the Worker's 'error' event.
void main();
