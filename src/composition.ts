import { join } from 'node:path';
import type { Logger } from 'pino';
import type { KeyRing } from './auth/apiKeys';
import { createConsumerGroups } from './consumerGroups/consumerGroups';
import type { ConsumerGroupStore } from './consumerGroups/store';
import { fetchAnswerHead } from './http/fetchAnswer';
import { startUsageCounters } from './usage/counters';
import type { UsageStore } from './usage/usageStore';
import type { Config } from './config';
import type Koa from 'koa';
import { createApp } from './http/app';
import type { AppContext, AppState } from './http/types';
import { withPresetCache } from './http/presetCache';
import { createProjectionWaiter } from './http/readYourWrites';
import { createSseRegistry } from './http/sse';
import { createMcpSessions } from './mcp/sessions';
import { mcpMount } from './mcp/route';
import { startWalCheckpointer } from './sqlite/walCheckpointer';
import { withStateCache } from './eventstore/states';
import { createPresetCommandHandler, presetStates } from './presets/handler';
import { createKeyCommandHandler } from './keys/handler';
import { createLiveKeyRing, followKeys } from './keys/keyRing';
import { RUNNING_COMPILED } from './threads/thread';
import type { EventStoreAdapter } from './eventstore/eventStore';
import { startDeliverer, type Deliverer } from './webhooks/deliverer';
import { deliverySettingsOf } from './webhooks/delivererThread';
import { delivererOnDemand } from './webhooks/onDemand';
import type { DeliverySettings } from './webhooks/deliveryLoop';
import type { EventFeed } from './eventstore/eventFeed';
import { consumerGroupsWatch, projectorWatch, watchConsumerGroups, watchSse, watchWebhooks, webhooksWatch } from './observability/gauges';
import { processorWatch, watchProcessors } from './observability/processorGauges';
import { countDeliveryAttempts, instrumentCommands, instrumentEventStore, instrumentWaiter } from './observability/instrument';
import { createMetrics, type Metrics } from './observability/metrics';
import { startMetricsServer } from './http/metricsServer';
import type { WebhookStore } from './webhooks/webhookStore';
import { PROJECTOR_NAME, startProjector, type Projector } from '../projections/projector';
import { presetAsOf, presetAt } from '../projections/presetAt';
import { AUDIT_PROCESSOR, startCheckpointer, type Checkpointer } from './audit/checkpoint';
import type { SigningKey } from './audit/signing';
import type { ReadModel } from '../projections/readmodel/readModel';
import { WORKSPACE_STREAM_PREFIX } from './events/workspaceStreams';
import { withSharedTail } from './feed/sharedFeed';

/** What every service is made of, whatever it listens on: the parts startService hands out with its URL. */
export interface ServiceParts {
  eventStore: EventStoreAdapter;
  readModel: ReadModel;
  webhooks: WebhookStore;
  usage: UsageStore;
  /** Delivers webhooks; absent with WEBHOOKS=off. */
  deliverer?: Deliverer;
  projector?: Projector;
  metrics: Metrics;
  /** Records the audit checkpoints every AUDIT_CHECKPOINT_INTERVAL_MS. */
  checkpointer: Checkpointer;
}

/** The stores a service runs on: opened from the configuration (startService), or in memory (tests' specifications). */
export interface ServiceStores {
  eventStore: EventStoreAdapter;
  readModel: ReadModel;
  webhooks: WebhookStore;
  consumerGroups: ConsumerGroupStore;
  usage: UsageStore;
}

/** What a composed service is before it listens: its Koa app and its parts, stopped together by `close`. */
export interface ComposedService extends ServiceParts {
  app: Koa<AppState, AppContext>;
  /** An HTTP server of its own for /metrics (METRICS_PORT), when configured. */
  metricsServer?: { port: number; close(): Promise<void> };
  /** Ends open event streams, MCP sessions and consumer groups' long polls: the first step of a shutdown. */
  endStreams(): Promise<void>;
  /** Stops every part and closes the stores, once requests in flight are done. */
  close(): Promise<void>;
}

export interface CompositionOptions {
  /** The keys file's keys (the API's are followed from the log). */
  fileKeys: KeyRing;
  signingKey: SigningKey;
  /** Where the projector and the webhook deliverer run: threads of their own where the service uses threads, else here. */
  startProjector?: (eventStore: EventStoreAdapter, readModel: ReadModel, logger: Logger) => Promise<Projector>;
  startDeliverer?: (
    webhooks: WebhookStore,
    feed: EventFeed,
    onAttempt: DeliverySettings['onAttempt'],
    logger: Logger,
  ) => Promise<Deliverer>;
  /** SQLite files to checkpoint on a thread of their own (none in memory). */
  sqliteFiles?: string[];
}

/**
 * The service's parts on given stores, wired as they run in production: the live key ring, the
 * projector, the shared tail, consumer groups, webhook delivery, audit checkpoints, usage counts,
 * metrics and the Koa app. startService gives it the stores the configuration names and a port;
 * the tests' specifications give it memory stores and drive `app.callback()` in process.
 */
export const composeService = async (
  config: Config,
  stores: ServiceStores,
  logger: Logger,
  options: CompositionOptions,
): Promise<ComposedService> => {
  const { eventStore, readModel, webhooks, consumerGroups: consumerGroupStore, usage } = stores;
  const { fileKeys, signingKey } = options;
  const metrics = createMetrics();
  // The keys file's keys and the API's, which this process follows through the feed from here on.
  const keyRing = createLiveKeyRing(fileKeys);
  // One reader of the log for every live subscriber of this process (the key ring, event streams,
  // webhook loops): the cost of a new event does not grow with them, and an idle one costs nothing.
  // Its followers can take an event a few milliseconds late (the projector a write waits for has
  // its own): under load it reads the log at most every 10 ms, not at each commit.
  const feed = withSharedTail(eventStore, { readEveryMs: LIVE_READ_EVERY_MS });
  const keysFollower = await followKeys(feed, keyRing, logger.child({ component: 'keys' }));
  const usageLog = logger.child({ component: 'usage' });
  const usageCounters = startUsageCounters({
    store: usage,
    flushEveryMs: config.usageFlushMs,
    onError: (err) => usageLog.warn({ err }, 'usage flush failed; the counts are kept for the next one'),
  });
  const files = options.sqliteFiles ?? [];
  const walCheckpointer =
    files.length > 0 ? await startWalCheckpointer({ files }, logger.child({ component: 'wal-checkpointer' })) : undefined;
  const projectorLogger = logger.child({ component: 'projector' });
  const projector = config.projector
    ? await (options.startProjector ?? inlineProjector)(eventStore, readModel, projectorLogger)
    : undefined;
  // Long polls wait on the shared tail: a waiting consumer costs no read of its own.
  const consumerGroups = createConsumerGroups({ store: consumerGroupStore, feed, tail: feed, prepare: fetchAnswerHead });
  const destinationPolicy = { allowPrivateNetworks: config.webhookAllowPrivateNetworks };
  const webhookLogger = logger.child({ component: 'webhooks' });
  const startDelivering = options.startDeliverer ?? inlineDeliverer(config);
  // No delivery thread until some webhook is active (src/webhooks/onDemand.ts).
  const deliverer = config.webhooks
    ? await delivererOnDemand({
        store: webhooks,
        start: () => startDelivering(webhooks, feed, countDeliveryAttempts(metrics), webhookLogger),
        logger: webhookLogger,
      })
    : undefined;
  const checkpointer = await startCheckpointer({
    store: eventStore,
    tail: feed,
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
        eventStore.headPosition({ streamPrefix: WORKSPACE_STREAM_PREFIX }),
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
  const sse = createSseRegistry({ perKey: config.sseMaxPerKey, perProcess: config.sseMaxConnections });
  watchSse(metrics, sse);
  // MCP sessions hold a notification stream open too: bounded, ended when idle, and ended by a shutdown.
  const mcpSessions = createMcpSessions({
    perKey: config.mcpMaxSessionsPerKey,
    perProcess: config.mcpMaxSessions,
    idleMs: config.mcpSessionIdleMs,
  });
  watchWebhooks(metrics, { store: webhooks });
  watchConsumerGroups(metrics, { groups: consumerGroups });
  // Every processor's position and lag, in one metric family (src/observability/processorGauges.ts).
  watchProcessors(metrics, eventStore, [
    projectorWatch(metrics, { streamPrefix: WORKSPACE_STREAM_PREFIX, checkpoint: () => readModel.checkpoint(PROJECTOR_NAME) }),
    webhooksWatch(metrics, { store: webhooks }),
    consumerGroupsWatch(metrics, { groups: consumerGroups }),
    processorWatch(keysFollower.processor),
    { processor: AUDIT_PROCESSOR, instances: async () => [{ position: await checkpointer.position(), streamPrefix: 'preset-' }] },
  ]);
  const metricsServer =
    config.metricsPort === undefined
      ? undefined
      : await startMetricsServer({
          metrics,
          token: config.metricsToken,
          host: config.host,
          port: config.metricsPort,
          logger: logger.child({ component: 'metrics' }),
        });
  // Every command handler appends through this one: appends counted and timed by event type.
  const countedAppends = instrumentEventStore(eventStore, metrics);
  const app = createApp({
    metrics,
    serveMetrics: metricsServer ? undefined : { token: config.metricsToken },
    logger,
    keyRing,
    readModel: reads,
    readiness,
    projectedPosition: () => readModel.checkpoint(PROJECTOR_NAME),
    eventStore,
    feed,
    sse,
    sseHeartbeatMs: config.sseHeartbeatMs,
    handle: instrumentCommands(
      createPresetCommandHandler({
        eventStore: countedAppends,
        states: withStateCache(presetStates(eventStore), STATE_CACHE_SIZE),
      }),
      metrics,
    ),
    waitForPreset: instrumentWaiter(createProjectionWaiter({ readModel: reads, projected: projector?.events }), metrics),
    presetAt: (workspaceId, slug, revision) => presetAt(eventStore, workspaceId, slug, revision),
    presetAsOf: (workspaceId, slug, at) => presetAsOf(eventStore, workspaceId, slug, at),
    audit: { store: eventStore, signingKey },
    bodyLimitBytes: config.bodyLimitBytes,
    readYourWritesTimeoutMs: config.readYourWritesTimeoutMs,
    rateLimitPerMinute: config.rateLimitPerMinute,
    webhooks,
    destinationPolicy,
    webhookChanged: deliverer?.changed,
    consumerGroups,
    // Appends to the keys streams are counted like the presets' (metrics by event type).
    keys: { handler: createKeyCommandHandler({ eventStore: countedAppends, ring: keyRing }), ring: keyRing },
    consoleDir: CONSOLE_DIR,
    usage,
    usageCounters,
    // The MCP server at /mcp, its sessions this service's (a shutdown ends them).
    mounts: [mcpMount(mcpSessions)],
  });

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await metricsServer?.close();
      await deliverer?.stop();
      await usageCounters.stop().catch((err: unknown) => usageLog.error({ err }, 'usage counts could not be flushed at shutdown'));
      await keysFollower.stop();
      await checkpointer.stop();
      await feed.close();
      await walCheckpointer?.stop();
      await projector?.stop();
      await eventStore.close();
      await readModel.close();
      await webhooks.close();
      await consumerGroupStore.close();
      await usage.close();
      logger.info('stopped');
    })());
  return {
    app,
    metricsServer,
    eventStore,
    readModel,
    webhooks,
    usage,
    deliverer,
    projector,
    metrics,
    checkpointer,
    endStreams: () => Promise.all([sse.closeAll(), mcpSessions.closeAll()]).then(() => consumerGroups.close()),
    close,
  };
};

export const inlineProjector = async (eventStore: EventStoreAdapter, readModel: ReadModel, logger: Logger) =>
  startProjector({ feed: eventStore, readModel, logger });
export const inlineDeliverer =
  (config: Config) => async (store: WebhookStore, feed: EventFeed, onAttempt: DeliverySettings['onAttempt'], logger: Logger) =>
    startDeliverer({ store, feed, logger, settings: { ...deliverySettingsOf(config), onAttempt } });

/** The web console as `npm run build` writes it: dist/console/, beside the compiled dist/src/. */
const CONSOLE_DIR = RUNNING_COMPILED ? join(__dirname, '..', 'console') : join(__dirname, '..', 'dist', 'console');

/** How many presets' folded states the command handler keeps (version ids only: small). */
const STATE_CACHE_SIZE = 10_000;
/** How often, at most, the process's shared tail reads new events (SharedTailOptions.readEveryMs). */
const LIVE_READ_EVERY_MS = 10;
