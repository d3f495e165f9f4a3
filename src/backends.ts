import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from './config';
import type { EventStoreAdapter } from './eventstore/eventStore';
import { EVENTS_FILE, openSqliteEventStore } from './eventstore/sqlite/store';
import type { ReadModel } from '../projections/readmodel/readModel';
import { openSqliteReadModel, READ_MODEL_FILE } from '../projections/readmodel/sqlite';
import { openSqliteWebhookStore, WEBHOOKS_FILE } from './webhooks/sqlite';
import type { WebhookStore } from './webhooks/webhookStore';
import { openSqliteConsumerGroupStore } from './consumerGroups/sqlite';
import type { ConsumerGroupStore } from './consumerGroups/store';
import { openSqliteUsageStore, USAGE_FILE } from './usage/sqlite';
import type { UsageStore } from './usage/usageStore';

/** Chooses each store by configuration: a URL selects the server, none the embedded file. */
export { EVENTS_FILE, READ_MODEL_FILE, USAGE_FILE, WEBHOOKS_FILE };

// The server clients take over half a second to load: a process on the embedded default never loads them.
const eventStoreDb = (): typeof import('./eventstore/eventstoredb/store') => require('./eventstore/eventstoredb/store');
const mongo = (): typeof import('../projections/readmodel/mongodb') => require('../projections/readmodel/mongodb');
const mongoWebhooks = (): typeof import('./webhooks/mongodb') => require('./webhooks/mongodb');
const mongoConsumerGroups = (): typeof import('./consumerGroups/mongodb') => require('./consumerGroups/mongodb');
const mongoUsage = (): typeof import('./usage/mongodb') => require('./usage/mongodb');

export const describeBackends = (config: Pick<Config, 'eventstoreUrl' | 'mongodbUrl' | 'dataDir'>) => ({
  eventStore: config.eventstoreUrl ? 'eventstoredb' : `sqlite (${join(config.dataDir, EVENTS_FILE)})`,
  readModel: config.mongodbUrl ? 'mongodb' : `sqlite (${join(config.dataDir, READ_MODEL_FILE)})`,
  webhooks: config.mongodbUrl ? 'mongodb' : `sqlite (${join(config.dataDir, WEBHOOKS_FILE)})`,
  usage: config.mongodbUrl ? 'mongodb' : `sqlite (${join(config.dataDir, USAGE_FILE)})`,
});

/**
 * `readOnly`: this process does not append (rebuild, verify, the projector's thread), so the
 * embedded store starts no writer thread. `pollIntervalMs`: how often the embedded store's
 * subscriptions look for events appended by other processes (a server pushes them). `cacheKib`:
 * the embedded store's page cache where not the default: WHOLE_LOG_CACHE_KIB for a connection that
 * reads every stream of the log (a rebuild's or verify's thread), DELIVERY_CACHE_KIB for the
 * webhook delivery thread's.
 */
export const openEventStore = (
  config: Pick<Config, 'eventstoreUrl' | 'dataDir'>,
  logger: Logger,
  { readOnly = false, pollIntervalMs, cacheKib }: { readOnly?: boolean; pollIntervalMs?: number; cacheKib?: number } = {},
): EventStoreAdapter =>
  config.eventstoreUrl
    ? eventStoreDb().openEventStoreDbEventStore({ url: config.eventstoreUrl, logger })
    : openSqliteEventStore({
        file: join(config.dataDir, EVENTS_FILE),
        writerThread: readOnly ? false : undefined,
        pollIntervalMs,
        cacheKib,
      });

/**
 * The page cache of a connection that reads the whole log stream by stream: a stream's events are
 * scattered over the file, and with the default 2 MiB each read went down the table's B-tree from
 * pages read again from the file. 32 MiB holds its inner pages at 1,000,000 events (~13 MB): a
 * rebuild went from 43,840 to 49,663 events/s, peak RSS 169 → 235 MB with its two threads
 * (docs/performance.md, "Rebuild and verify").
 */
export const WHOLE_LOG_CACHE_KIB = 32 * 1024;

/**
 * The page cache of each SQLite connection of the webhook delivery thread (the event store's, read
 * in position order, and the webhook store's two, which append attempts and update progress): a
 * replay of 5,000 events to 4 webhooks peaked at 201-206 MB resident with the default 2 MiB, at
 * 197-199 MB with 512 KiB, at the same deliveries a second (docs/performance.md, Webhooks).
 */
export const DELIVERY_CACHE_KIB = 512;

/** The SQLite files the service writes, for its WAL checkpointer: none when both stores are servers. */
export const sqliteFiles = (config: Pick<Config, 'eventstoreUrl' | 'mongodbUrl' | 'dataDir'>): string[] => [
  ...(config.eventstoreUrl ? [] : [join(config.dataDir, EVENTS_FILE)]),
  ...(config.mongodbUrl
    ? []
    : [join(config.dataDir, READ_MODEL_FILE), join(config.dataDir, WEBHOOKS_FILE), join(config.dataDir, USAGE_FILE)]),
];

export const openReadModel = async (config: Pick<Config, 'mongodbUrl' | 'dataDir'>): Promise<ReadModel> =>
  config.mongodbUrl
    ? mongo().openMongoReadModel({ url: config.mongodbUrl })
    : openSqliteReadModel({ file: join(config.dataDir, READ_MODEL_FILE) });

/** Webhooks live beside the read model: in MongoDB when it is there, else in their own SQLite file. */
export const openWebhookStore = async (
  config: Pick<Config, 'mongodbUrl' | 'dataDir'>,
  { cacheKib }: { cacheKib?: number } = {},
): Promise<WebhookStore> =>
  config.mongodbUrl
    ? mongoWebhooks().openMongoWebhookStore({ url: config.mongodbUrl })
    : openSqliteWebhookStore({ file: join(config.dataDir, WEBHOOKS_FILE), cacheKib });

/** Consumer groups live beside the webhooks' delivery progress: in MongoDB when it is there, else in the webhooks' SQLite file. */
export const openConsumerGroupStore = async (config: Pick<Config, 'mongodbUrl' | 'dataDir'>): Promise<ConsumerGroupStore> =>
  config.mongodbUrl
    ? mongoConsumerGroups().openMongoConsumerGroupStore({ url: config.mongodbUrl })
    : openSqliteConsumerGroupStore({ file: join(config.dataDir, WEBHOOKS_FILE) });
/** Usage counts (metrics, never events) live beside the read model too: in MongoDB when it is there, else in usage.db. */
export const openUsageStore = async (config: Pick<Config, 'mongodbUrl' | 'dataDir'>): Promise<UsageStore> =>
  config.mongodbUrl
    ? mongoUsage().openMongoUsageStore({ url: config.mongodbUrl })
    : openSqliteUsageStore({ file: join(config.dataDir, USAGE_FILE) });
