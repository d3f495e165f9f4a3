import { openEventStore, openWebhookStore } from '../backends';
import { withSharedTail } from '../feed/sharedTail';
import { createLogger } from '../logger';
import { deliverySettingsOf, serveDeliverer, type DelivererThreadData } from '../webhooks/delivererThread';

/**
 * The service's webhook delivery thread (src/webhooks/delivererThread.ts), with its own
 * connections to the event store (reading only: every commit of the process is announced to it by
 * the store itself) and the webhook store, and one shared tail for all its delivery loops.
 */
serveDeliverer(async ({ config, pollIntervalMs, resyncMs }: DelivererThreadData) => {
  const logger = createLogger(config.logLevel).child({ component: 'webhooks', thread: true });
  const eventStore = openEventStore(config, logger, { readOnly: true, pollIntervalMs });
  const feed = withSharedTail(eventStore);
  const store = await openWebhookStore(config);
  return {
    feed,
    store,
    logger,
    resyncMs,
    settings: deliverySettingsOf(config),
    close: async () => {
      await feed.close();
      await eventStore.close();
      await store.close();
    },
  };
});
