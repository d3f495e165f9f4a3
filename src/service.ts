import { constants } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { ensureKeysFile } from './auth/devKey';
import { loadKeyRing } from './auth/apiKeys';
import { describeBackends, openEventStore, openReadModel, sqliteFiles } from './backends';
import type { Config } from './config';
import { createApp } from './http/app';
import { createSseRegistry } from './http/sse';
import { startWalCheckpointer } from './sqlite/walCheckpointer';
import { createPresetCommandHandler } from './presets/handler';
import { PRESET_STREAM_PREFIX } from './presets/streamName';
import { PROJECTOR_NAME, startProjector, type Projector } from '../projections/projector';
import { projectorThreadAvailable, startProjectorThread } from '../projections/projectorThread';
import { withPresetCache } from '../projections/readmodel/presetCache';
import { createProjectionWaiter } from '../projections/readYourWrites';
import type { EventStore } from './eventstore/eventStore';
import type { ReadModel } from '../projections/readmodel/readModel';

/** The composition root: stores, projector and HTTP server, started and stopped together. */
export interface Service {
  url: string;
  port: number;
  eventStore: EventStore;
  readModel: ReadModel;
  projector?: Projector & { wake?: () => void };
  /** Ends open event streams, stops accepting, lets requests in flight finish, stops the projector, closes the stores. */
  close(): Promise<void>;
}

export const startService = async (config: Config, logger: Logger, print: (line: string) => void = console.log): Promise<Service> => {
  await ensureWritableDataDir(config.dataDir);
  const keyRing = await loadKeyRing(await ensureKeysFile({ apiKeysFile: config.apiKeysFile, dataDir: config.dataDir, print }));
  logger.info({ ...describeBackends(config), keys: keyRing.size }, 'opening stores');
  const eventStore = openEventStore(config, logger);
  const readModel = await openReadModel(config);
  const files = sqliteFiles(config);
  const walCheckpointer = files.length > 0 ? await startWalCheckpointer({ files }, logger.child({ component: 'wal-checkpointer' })) : undefined;
  const projector = config.projector ? await startServiceProjector(config, eventStore, readModel, logger.child({ component: 'projector' })) : undefined;
  // Announced documents keep a cache current; without a projector here nothing would.
  const reads = projector ? withPresetCache(readModel, projector.events) : readModel;

  let caughtUpOnce = false;
  const readiness = async () => {
    // Ready once the read model has caught up with the events stored before; after that, lag
    // under load is not a reason to be taken out of a load balancer, a stuck projector is.
    if (!caughtUpOnce) {
      const [head, checkpoint] = await Promise.all([eventStore.headPosition({ streamPrefix: PRESET_STREAM_PREFIX }), readModel.checkpoint(PROJECTOR_NAME)]);
      caughtUpOnce = head === null || (checkpoint !== null && checkpoint >= head);
    }
    const projectorHealthy = projector ? projector.healthy() : true;
    return { ready: caughtUpOnce && projectorHealthy, checks: { stores: 'open', caught_up: caughtUpOnce, projector: projector ? (projectorHealthy ? 'running' : 'failing') : 'external' } };
  };

  // Event streams never finish by themselves: a shutdown ends them first (below).
  const sse = createSseRegistry();
  const app = createApp({
    logger, keyRing, readModel: reads, readiness,
    eventStore, sse, sseHeartbeatMs: config.sseHeartbeatMs,
    // A writer thread tells the projector thread itself; else this thread wakes it after each append.
    handle: createPresetCommandHandler({ eventStore, onAppended: eventStore.announcesAppends ? undefined : projector?.wake }),
    waitForPreset: createProjectionWaiter({ readModel: reads, projected: projector?.events }),
    bodyLimitBytes: config.bodyLimitBytes,
    readYourWritesTimeoutMs: config.readYourWritesTimeoutMs,
    rateLimitPerMinute: config.rateLimitPerMinute,
  });
  let inFlight = 0;
  const handle = app.callback();
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
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url }, 'presets is listening');

  let closing: Promise<void> | undefined;
  const close = () => (closing ??= sse.closeAll().then(() => shutdown(server, () => inFlight, config.shutdownTimeoutMs, logger)).then(async () => {
    await walCheckpointer?.stop();
    await projector?.stop();
    await eventStore.close();
    await readModel.close();
    logger.info('stopped');
  }));
  return { url, port, eventStore, readModel, projector, close };
};

/** In a worker thread when the service is built (projecting then runs beside HTTP, not between requests), else on this thread. */
const startServiceProjector = async (config: Config, eventStore: EventStore, readModel: ReadModel, logger: Logger): Promise<Projector & { wake?: () => void }> => {
  if (!projectorThreadAvailable()) return startProjector({ eventStore, readModel, logger });
  const projector = await startProjectorThread({ config, logger });
  logger.info('projector runs in a worker thread');
  return projector;
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

/** A clear start error for the most common operator mistake, before SQLite's "unable to open database file". */
const ensureWritableDataDir = async (dir: string) => {
  try {
    await mkdir(dir, { recursive: true });
    await access(dir, constants.W_OK);
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'error';
    throw new Error(`DATA_DIR ${dir} is not a writable directory (${code}); set DATA_DIR to one the service can write`);
  }
};
