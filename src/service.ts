import { constants } from 'node:fs';
import { access, chmod, mkdir, open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { ensureKeysFile } from './auth/devKey';
import { loadKeyRing } from './auth/apiKeys';
import {
  describeBackends,
  openConsumerGroupStore,
  openEventStore,
  openReadModel,
  openUsageStore,
  openWebhookStore,
  sqliteFiles,
} from './backends';
import type { Config } from './config';
import { threadEntry } from './threads/thread';
import type { EventStoreAdapter } from './eventstore/eventStore';
import type { Deliverer } from './webhooks/deliverer';
import { startDelivererThread } from './webhooks/delivererThread';
import type { DeliverySettings } from './webhooks/deliveryLoop';
import type { EventFeed } from './eventstore/eventFeed';
import type { WebhookStore } from './webhooks/webhookStore';
import type { Projector } from '../projections/projector';
import { chainState, UNSEALED_MESSAGE } from './audit/seal';
import { loadSigningKey } from './audit/signing';
import { startProjectorThread } from '../projections/projectorThread';
import type { ReadModel } from '../projections/readmodel/readModel';
import { composeService, inlineDeliverer, inlineProjector, type ServiceParts, type ServiceStores } from './composition';

/** The composition root: stores, projector and HTTP server, started and stopped together. */
export interface Service extends ServiceParts {
  url: string;
  port: number;
  /** Where GET /metrics answers: the API's own URL, or METRICS_PORT's. */
  metricsUrl: string;
  /** Ends open event streams, stops accepting, lets requests in flight finish, stops the projector, closes the stores. */
  close(): Promise<void>;
}

export const startService = async (config: Config, logger: Logger, print: (line: string) => void = console.log): Promise<Service> => {
  await ensureWritableDataDir(config.dataDir, logger);
  await keepPrivate(sqliteFiles(config));
  const fileKeys = await loadKeyRing(await ensureKeysFile({ apiKeysFile: config.apiKeysFile, dataDir: config.dataDir, print }));
  logger.info({ ...describeBackends(config), keys: fileKeys.size }, 'opening stores');
  const eventStore = openEventStore(config, logger);
  // A log written before the hash chain is sealed once, by a command, before the service takes writes on it.
  if ((await chainState(eventStore)) === 'unsealed') {
    await eventStore.close();
    throw new Error(UNSEALED_MESSAGE);
  }
  const signingKey = await loadSigningKey(config.dataDir);
  const stores: ServiceStores = {
    eventStore,
    readModel: await openReadModel(config),
    webhooks: await openWebhookStore(config),
    consumerGroups: await openConsumerGroupStore(config),
    usage: await openUsageStore(config),
  };
  const service = await composeService(config, stores, logger, {
    fileKeys,
    signingKey,
    sqliteFiles: sqliteFiles(config),
    startProjector: (store, readModel, log) => startServiceProjector(config, store, readModel, log),
    startDeliverer: (webhooks, feed, onAttempt, log) => startServiceDeliverer(config, webhooks, feed, onAttempt, log),
  });
  let inFlight = 0;
  const handle = service.app.callback();
  const server = createServer((req, res) => {
    inFlight++;
    res.once('close', () => inFlight--);
    void handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = hostUrl(config.host, port);
  const metricsUrl = `${service.metricsServer ? hostUrl(config.host, service.metricsServer.port) : url}/metrics`;
  logger.info({ url, metrics: metricsUrl }, 'presets is listening');

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= service
      .endStreams()
      .then(() => shutdown(server, () => inFlight, config.shutdownTimeoutMs, logger))
      .then(() => service.close()));
  const { app: _app, metricsServer: _metricsServer, endStreams: _endStreams, ...parts } = service;
  return { ...parts, url, port, metricsUrl, close };
};

const hostUrl = (host: string, port: number) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

/** In a thread of its own where the service uses threads (projecting then runs beside HTTP, not between requests), else on this one. */
const startServiceProjector = async (
  config: Config,
  eventStore: EventStoreAdapter,
  readModel: ReadModel,
  logger: Logger,
): Promise<Projector> => {
  const entry = threadEntry(join(__dirname, 'workers'), 'projector');
  if (!entry) return inlineProjector(eventStore, readModel, logger);
  const projector = await startProjectorThread({ entry, data: { config }, logger });
  logger.info('projector runs in a thread of its own');
  return projector;
};

/**
 * Webhook delivery in a thread of its own where the service uses threads (reading, signing, sending
 * and recording take nothing from the thread that serves HTTP), else on this one: the same
 * deliverer either way (src/webhooks/deliverer.ts), its attempts counted here.
 */
const startServiceDeliverer = async (
  config: Config,
  store: WebhookStore,
  feed: EventFeed,
  onAttempt: DeliverySettings['onAttempt'],
  logger: Logger,
): Promise<Deliverer> => {
  const entry = threadEntry(join(__dirname, 'workers'), 'deliverer');
  if (entry) {
    const deliverer = await startDelivererThread({ entry, data: { config }, logger, onAttempt });
    logger.info('webhook delivery runs in a thread of its own');
    return deliverer;
  }
  return inlineDeliverer(config)(store, feed, onAttempt, logger);
};

const shutdown = async (server: Server, inFlight: () => number, timeoutMs: number, logger: Logger) => {
  logger.info({ inFlight: inFlight() }, 'shutting down: no new connections, finishing requests in flight');
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const deadline = Date.now() + timeoutMs;
  while (inFlight() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  if (inFlight() > 0) logger.warn({ inFlight: inFlight() }, 'shutdown timeout: closing connections with requests still in flight');
  server.closeAllConnections();
  await closed;
};

/**
 * A clear start error for the most common operator mistake, before SQLite's "unable to open
 * database file". The directory is made readable by the service's user alone (the files hold
 * webhook signing secrets and every preset); one that already exists with wider modes is left as
 * the operator made it, with a warning.
 */
const ensureWritableDataDir = async (dir: string, logger: Logger) => {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await access(dir, constants.W_OK);
    const mode = (await stat(dir)).mode & 0o777;
    if (mode & 0o077)
      logger.warn(
        { dataDir: dir, mode: mode.toString(8) },
        'DATA_DIR can be read by other users of this machine; its files hold webhook secrets: chmod 700 it',
      );
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'error';
    throw new Error(`DATA_DIR ${dir} is not a writable directory (${code}); set DATA_DIR to one the service can write`, { cause: error });
  }
};

/**
 * The database files readable and writable by the service's user alone (0600), made so before
 * SQLite opens them: SQLite gives its -wal and -shm files the modes of the database file. A file
 * made before this rule is narrowed too.
 */
const keepPrivate = async (files: string[]) => {
  for (const file of files) {
    await (await open(file, 'a', 0o600)).close();
    for (const f of [file, `${file}-wal`, `${file}-shm`]) await chmod(f, 0o600).catch(() => undefined);
  }
};
