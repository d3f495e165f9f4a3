import { constants } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { ensureKeysFile } from './auth/devKey';
import { loadKeyRing } from './auth/apiKeys';
import { describeBackends, openEventStore, openReadModel, openWebhookStore, sqliteFiles } from './backends';
import type { Config } from './config';
import { createApp } from './http/app';
import { withPresetCache } from './http/presetCache';
import { createProjectionWaiter } from './http/readYourWrites';
import { createSseRegistry } from './http/sse';
import { startWalCheckpointer } from './sqlite/walCheckpointer';
import { withStateCache } from './eventstore/states';
import { createPresetCommandHandler, presetStates } from './presets/handler';
import { PRESET_STREAM_PREFIX } from './presets/streamName';
import { RUNNING_COMPILED, threadEntry } from './threads/thread';
import type { EventStoreAdapter } from './eventstore/eventStore';
import { startDeliverer, type Deliverer } from './webhooks/deliverer';
import type { WebhookStore } from './webhooks/webhookStore';
import { PROJECTOR_NAME, startProjector, type Projector } from '../projections/projector';
import { presetAsOf, presetAt } from '../projections/presetAt';
import { startCheckpointer, type Checkpointer } from './audit/checkpoint';
import { chainState, UNSEALED_MESSAGE } from './audit/seal';
import { loadSigningKey } from './audit/signing';
import { startProjectorThread } from '../projections/projectorThread';
import type { ReadModel } from '../projections/readmodel/readModel';

/** The composition root: stores, projector and HTTP server, started and stopped together. */
export interface Service {
  url: string;
  port: number;
  eventStore: EventStoreAdapter;
  readModel: ReadModel;
  webhooks: WebhookStore;
  /** Delivers webhooks; absent with WEBHOOKS=off. */
  deliverer?: Deliverer;
  projector?: Projector;
  /** Records the audit checkpoints every AUDIT_CHECKPOINT_INTERVAL_MS. */
  checkpointer: Checkpointer;
  /** Ends open event streams, stops accepting, lets requests in flight finish, stops the projector, closes the stores. */
  close(): Promise<void>;
}

export const startService = async (config: Config, logger: Logger, print: (line: string) => void = console.log): Promise<Service> => {
  await ensureWritableDataDir(config.dataDir);
  const keyRing = await loadKeyRing(await ensureKeysFile({ apiKeysFile: config.apiKeysFile, dataDir: config.dataDir, print }));
  logger.info({ ...describeBackends(config), keys: keyRing.size }, 'opening stores');
  const eventStore = openEventStore(config, logger);
  // A log written before the hash chain is sealed once, by a command, before the service takes writes on it.
  if ((await chainState(eventStore)) === 'unsealed') {
    await eventStore.close();
    throw new Error(UNSEALED_MESSAGE);
  }
  const signingKey = await loadSigningKey(config.dataDir);
  const readModel = await openReadModel(config);
  const webhooks = await openWebhookStore(config);
  const files = sqliteFiles(config);
  const walCheckpointer =
    files.length > 0 ? await startWalCheckpointer({ files }, logger.child({ component: 'wal-checkpointer' })) : undefined;
  const projector = config.projector
    ? await startServiceProjector(config, eventStore, readModel, logger.child({ component: 'projector' }))
    : undefined;
  const destinationPolicy = { allowPrivateNetworks: config.webhookAllowPrivateNetworks };
  // Its loops are async I/O on this thread: nothing in them blocks a request, the projector or another loop.
  const deliverer = config.webhooks
    ? await startDeliverer({
        store: webhooks,
        feed: eventStore,
        logger: logger.child({ component: 'webhooks' }),
        settings: {
          timeoutMs: config.webhookTimeoutMs,
          retryMaxMs: config.webhookRetryMaxMs,
          disableAfterMs: config.webhookDisableAfterMs,
          policy: destinationPolicy,
        },
      })
    : undefined;
  const checkpointer = await startCheckpointer({
    store: eventStore,
    intervalMs: config.auditCheckpointIntervalMs,
    logger: logger.child({ component: 'audit' }),
  });
  // Announced documents keep a cache current; without a projector here nothing would.
  const reads = projector ? withPresetCache(readModel, projector.events) : readModel;

  let caughtUpOnce = false;
  const readiness = async () => {
    // Ready once the read model has caught up with the events stored before; after that, lag
    // under load is not a reason to be taken out of a load balancer, a stuck projector is.
    if (!caughtUpOnce) {
      const [head, checkpoint] = await Promise.all([
        eventStore.headPosition({ streamPrefix: PRESET_STREAM_PREFIX }),
        readModel.checkpoint(PROJECTOR_NAME),
      ]);
      caughtUpOnce = head === null || (checkpoint !== null && checkpoint >= head);
    }
    const projectorHealthy = projector ? projector.healthy() : true;
    return {
      ready: caughtUpOnce && projectorHealthy,
      checks: { stores: 'open', caught_up: caughtUpOnce, projector: projector ? (projectorHealthy ? 'running' : 'failing') : 'external' },
    };
  };

  // Event streams never finish by themselves: a shutdown ends them first (below).
  const sse = createSseRegistry();
  const app = createApp({
    logger,
    keyRing,
    readModel: reads,
    readiness,
    projectedPosition: () => readModel.checkpoint(PROJECTOR_NAME),
    eventStore,
    feed: eventStore,
    sse,
    sseHeartbeatMs: config.sseHeartbeatMs,
    handle: createPresetCommandHandler({ eventStore, states: withStateCache(presetStates(eventStore), STATE_CACHE_SIZE) }),
    waitForPreset: createProjectionWaiter({ readModel: reads, projected: projector?.events }),
    presetAt: (workspaceId, slug, revision) => presetAt(eventStore, workspaceId, slug, revision),
    presetAsOf: (workspaceId, slug, at) => presetAsOf(eventStore, workspaceId, slug, at),
    audit: { store: eventStore, signingKey },
    bodyLimitBytes: config.bodyLimitBytes,
    readYourWritesTimeoutMs: config.readYourWritesTimeoutMs,
    rateLimitPerMinute: config.rateLimitPerMinute,
    webhooks,
    destinationPolicy,
    webhookChanged: deliverer?.changed,
    consoleDir: CONSOLE_DIR,
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
  const close = () =>
    (closing ??= sse
      .closeAll()
      .then(() => shutdown(server, () => inFlight, config.shutdownTimeoutMs, logger))
      .then(async () => {
        await deliverer?.stop();
        await checkpointer.stop();
        await walCheckpointer?.stop();
        await projector?.stop();
        await eventStore.close();
        await readModel.close();
        await webhooks.close();
        logger.info('stopped');
      }));
  return { url, port, eventStore, readModel, webhooks, deliverer, projector, checkpointer, close };
};

/** The web console as `npm run build` writes it: dist/console/, beside the compiled dist/src/. */
const CONSOLE_DIR = RUNNING_COMPILED ? join(__dirname, '..', 'console') : join(__dirname, '..', 'dist', 'console');

/** How many presets' folded states the command handler keeps (version ids only: small). */
const STATE_CACHE_SIZE = 10_000;

/** In a thread of its own where the service uses threads (projecting then runs beside HTTP, not between requests), else on this one. */
const startServiceProjector = async (
  config: Config,
  eventStore: EventStoreAdapter,
  readModel: ReadModel,
  logger: Logger,
): Promise<Projector> => {
  const entry = threadEntry(join(__dirname, 'workers'), 'projector');
  if (!entry) return startProjector({ feed: eventStore, readModel, logger });
  const projector = await startProjectorThread({ entry, data: { config }, logger });
  logger.info('projector runs in a thread of its own');
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
    throw new Error(`DATA_DIR ${dir} is not a writable directory (${code}); set DATA_DIR to one the service can write`, { cause: error });
  }
};
