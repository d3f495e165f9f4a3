import { DELIVERY_CACHE_KIB, openEventStore, openWebhookStore } from '../backends';
import { hasStoredText } from '../eventstore/eventFeed';
import { createLogger } from '../logger';
import {
  DELIVERY_PAGE_BYTES,
  deliveryLimits,
  deliverySettingsOf,
  serveDeliverer,
  type DelivererThreadData,
} from '../webhooks/delivererThread';
import { storedTextTail, withSharedTail } from '../feed/sharedFeed';

/**
 * The service's webhook delivery thread (src/webhooks/delivererThread.ts), with its own
 * connections to the event store (reading only: every commit of the process is announced to it by
 * the store itself) and the webhook store, and one shared tail for all its delivery loops.
 *
 * Since every commit of this process wakes the thread at once, its poll only finds appends made by
 * another process on the same file (`npm run keys:create`, a second service), and it polls once a
 * second: an idle thread woken ten times a second cost 4-7 ms of CPU a second (docs/performance.md).
 */
const FOREIGN_APPENDS_POLL_MS = 1000;
/**
 * Catch-up pages of 64 events, not the shared tail's 512: a replay's pages and the deliveries made
 * from them live in this thread's heap. The service's peak RSS through a replay of 5,000 events to
 * 4 webhooks was 207-209 MB with 512, 196-200 MB with 128, and 64 took a median ~5 MB more off
 * it, at the same deliveries a second (docs/performance.md, Webhooks).
 */
const CATCH_UP_PAGE = 64;
serveDeliverer(async ({ config, pollIntervalMs = FOREIGN_APPENDS_POLL_MS, resyncMs }: DelivererThreadData) => {
  const logger = createLogger(config.logLevel).child({ component: 'webhooks', thread: true });
  const eventStore = openEventStore(config, logger, { readOnly: true, pollIntervalMs, cacheKib: DELIVERY_CACHE_KIB });
  // Events as stored text where the store has it: each event's body is made without parsing it.
  const feed = hasStoredText(eventStore)
    ? storedTextTail(eventStore, {
        pageSize: CATCH_UP_PAGE,
        pageBytes: DELIVERY_PAGE_BYTES,
        firstPage: deliveryLimits(config.bodyLimitBytes).firstPage,
      })
    : withSharedTail(eventStore, { pageSize: CATCH_UP_PAGE });
  const store = await openWebhookStore(config, { cacheKib: DELIVERY_CACHE_KIB });
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
