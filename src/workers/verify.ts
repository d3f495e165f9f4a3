import pino from 'pino';
import { serveVerifyShare } from '../../projections/verifyThreads';
import { openEventStore, openReadModel, WHOLE_LOG_CACHE_KIB } from '../backends';
import type { Config } from '../config';
import { createLogger } from '../logger';

/** A verify's thread (projections/verifyThreads.ts), on event-store and read-model connections of its own. */
serveVerifyShare(async ({ config }: { config: Config }) => {
  const eventStore = openEventStore(config, createLogger(config.logLevel, pino.destination({ fd: 2, sync: true })), {
    readOnly: true,
    cacheKib: WHOLE_LOG_CACHE_KIB,
  });
  const readModel = await openReadModel(config);
  return {
    eventStore,
    readModel,
    close: async () => {
      await readModel.close();
      await eventStore.close();
    },
  };
});
