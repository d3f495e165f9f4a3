import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from './config';
import type { EventStore } from './eventstore/eventStore';
import { openSqliteEventStore, type SqliteEventStore } from './eventstore/sqlite';
import type { ReadModel } from '../projections/readmodel/readModel';
import { openSqliteReadModel } from '../projections/readmodel/sqlite';

/** Chooses each store by configuration: a URL selects the server, none the embedded file. */
export const EVENTS_FILE = 'events.db';
// The server clients take over half a second to load: a process on the embedded default never loads them.
const eventStoreDb = (): typeof import('./eventstore/eventstoredb') => require('./eventstore/eventstoredb');
const mongo = (): typeof import('../projections/readmodel/mongodb') => require('../projections/readmodel/mongodb');
export const READ_MODEL_FILE = 'readmodel.db';

export const describeBackends = (config: Pick<Config, 'eventstoreUrl' | 'mongodbUrl' | 'dataDir'>) => ({
  eventStore: config.eventstoreUrl ? 'eventstoredb' : `sqlite (${join(config.dataDir, EVENTS_FILE)})`,
  readModel: config.mongodbUrl ? 'mongodb' : `sqlite (${join(config.dataDir, READ_MODEL_FILE)})`,
});

/** `readOnly`: the caller never appends (rebuild, verify), so the embedded store starts no writer thread. */
/**
 * `readOnly`: this process does not append (no writer thread). `pollIntervalMs`: how often the
 * embedded store's subscriptions look for events without `lookNow` (which only it has: a server
 * pushes new events).
 */
export const openEventStore = (
  config: Pick<Config, 'eventstoreUrl' | 'dataDir'>, logger: Logger, { readOnly = false, pollIntervalMs }: { readOnly?: boolean; pollIntervalMs?: number } = {},
): EventStore & Partial<Pick<SqliteEventStore, 'lookNow' | 'announcesAppends'>> =>
  config.eventstoreUrl
    ? eventStoreDb().openEventStoreDbEventStore({ url: config.eventstoreUrl, logger })
    : openSqliteEventStore({ file: join(config.dataDir, EVENTS_FILE), writer: readOnly ? 'inline' : 'auto', pollIntervalMs });

/** The SQLite files the service writes, for its WAL checkpointer: none when both stores are servers. */
export const sqliteFiles = (config: Pick<Config, 'eventstoreUrl' | 'mongodbUrl' | 'dataDir'>): string[] => [
  ...(config.eventstoreUrl ? [] : [join(config.dataDir, EVENTS_FILE)]),
  ...(config.mongodbUrl ? [] : [join(config.dataDir, READ_MODEL_FILE)]),
];

export const openReadModel = async (config: Pick<Config, 'mongodbUrl' | 'dataDir'>, file = READ_MODEL_FILE): Promise<ReadModel> =>
  config.mongodbUrl
    ? mongo().openMongoReadModel({ url: config.mongodbUrl })
    : openSqliteReadModel({ file: join(config.dataDir, file) });
