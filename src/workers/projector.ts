import { serveProjector } from '../../projections/projectorThread';
import { openEventStore, openReadModel } from '../backends';
import type { Config } from '../config';
import { createLogger } from '../logger';

/**
 * The service's projector thread (projections/projectorThread.ts), with its own connections to
 * both stores. It only reads events: every commit of the process is announced to its store by
 * the store itself (src/eventstore/sqlite/writer.ts).
 */
serveProjector(async ({ config, pollIntervalMs }: { config: Config; pollIntervalMs?: number }) => {
  const logger = createLogger(config.logLevel).child({ component: 'projector', thread: true });
  const eventStore = openEventStore(config, logger, { readOnly: true, pollIntervalMs });
  const readModel = await openReadModel(config);
  return {
    feed: eventStore,
    readModel,
    logger,
    close: async () => {
      await eventStore.close();
      await readModel.close();
    },
  };
});
