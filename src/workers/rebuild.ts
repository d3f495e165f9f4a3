import pino from 'pino';
import { serveLoadShare } from '../../projections/loadStreams';
import { openEventStore, WHOLE_LOG_CACHE_KIB } from '../backends';
import type { Config } from '../config';
import { createLogger } from '../logger';

/** A rebuild's loading thread (projections/loadStreams.ts), on an event-store connection of its own. */
serveLoadShare(async ({ config }: { config: Config }) => {
  const eventStore = openEventStore(config, createLogger(config.logLevel, pino.destination({ fd: 2, sync: true })), {
    readOnly: true,
    cacheKib: WHOLE_LOG_CACHE_KIB,
  });
  return { reader: eventStore, close: () => eventStore.close() };
});
