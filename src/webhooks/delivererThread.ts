import type { Logger } from 'pino';
import type { Config } from '../config';
import type { LiveFeed } from '../eventstore/eventFeed';
import { serveThread, THREAD_HEAPS } from '../threads/thread';
import { startSupervisedThread } from '../threads/supervisor';
import { startDeliverer, type Deliverer } from './deliverer';
import type { DeliverySettings } from './deliveryLoop';
import type { NewDeliveryAttempt, WebhookStore } from './webhookStore';

/**
 * The webhook deliverer (deliverer.ts) in a thread of its own: reading events, signing, sending and
 * recording attempts take none of the time of the thread that serves HTTP. The thread opens its
 * own connections to the event store and the webhook store (src/workers/deliverer.ts); every
 * commit is announced to it by the store, as to the projector's thread. The parent keeps the
 * deliverer's face: a route's change reaches the thread before `changed` resolves, and every
 * attempt comes back (in batches, one message per ATTEMPTS_EVERY_MS at most) to `onAttempt`, so
 * the operators' metrics are counted where /metrics is served. A thread that dies is started
 * again; the new one resumes every webhook from its saved checkpoint.
 */
const ATTEMPTS_EVERY_MS = 50;
type Attempt = [attempt: NewDeliveryAttempt, recordedAt: number];
type DelivererEvents = { attempts: [attempts: Attempt[]] };
type DelivererApi = { changed(workspaceId: string, id: string): Promise<number>; resync(): Promise<number> };

const MIB = 1024 * 1024;
/** Bytes of events a catch-up page of the delivery thread holds (SharedTailOptions.pageBytes). */
export const DELIVERY_PAGE_BYTES = 4 * MIB;

/**
 * The delivery thread's first catch-up page and heap for events as large as BODY_LIMIT_BYTES lets
 * a preset be: the first page holds as many of the largest events as DELIVERY_PAGE_BYTES does (at
 * least one, at most 16; its size is known only once it is read), and the old generation has room
 * for it beside one such event's delivery body (an event's text takes up to twice its bytes, in
 * UTF-16, and its body as much again): 128 MB up to a body limit of 10 MiB, more past it.
 */
export const deliveryLimits = (bodyLimitBytes: number) => ({
  firstPage: Math.min(16, Math.max(1, Math.floor(DELIVERY_PAGE_BYTES / bodyLimitBytes))),
  heap: {
    ...THREAD_HEAPS.deliverer,
    maxOldGenerationSizeMb: Math.max(THREAD_HEAPS.deliverer.maxOldGenerationSizeMb, 64 + Math.ceil((6 * bodyLimitBytes) / MIB)),
  },
});

/** The delivery settings the configuration names, the same on either thread. */
export const deliverySettingsOf = (config: Config): Omit<DeliverySettings, 'onAttempt'> => ({
  timeoutMs: config.webhookTimeoutMs,
  retryMaxMs: config.webhookRetryMaxMs,
  disableAfterMs: config.webhookDisableAfterMs,
  policy: { allowPrivateNetworks: config.webhookAllowPrivateNetworks },
});

/** What the thread's entry point gives it: plain data, copied to the thread. */
export interface DelivererThreadData {
  config: Config;
  pollIntervalMs?: number;
  resyncMs?: number;
}

export interface DelivererThreadOptions {
  /** The compiled entry point that calls `serveDeliverer`. */
  entry: string;
  data: DelivererThreadData;
  logger: Logger;
  onAttempt?: DeliverySettings['onAttempt'];
  restartDelayMs?: number;
}

export const startDelivererThread = async ({
  entry,
  data,
  logger,
  onAttempt,
  restartDelayMs,
}: DelivererThreadOptions): Promise<Deliverer> => {
  let running = 0;
  const supervised = await startSupervisedThread<DelivererApi, DelivererEvents>({
    entry,
    kind: 'deliverer',
    data,
    logger,
    restartDelayMs,
    resourceLimits: deliveryLimits(data.config.bodyLimitBytes).heap,
    attach: (thread) =>
      thread.on('attempts', (attempts) => {
        for (const [attempt, recordedAt] of attempts) onAttempt?.(attempt, new Date(recordedAt));
      }),
  });
  /** A thread between a death and the next start has nothing to be told: it reads the store when it starts. */
  const call = async (method: 'resync' | 'changed', ...args: string[]) => {
    const thread = supervised.current();
    if (!thread) return;
    running = await (thread.call as (m: string, ...a: string[]) => Promise<number>)(method, ...args);
  };
  return {
    changed: (workspaceId, id) => call('changed', workspaceId, id),
    resync: () => call('resync'),
    get running() {
      return running;
    },
    stop: () => supervised.stop(),
  };
};

export interface DelivererStores {
  feed: LiveFeed;
  store: WebhookStore;
  settings: Omit<DeliverySettings, 'onAttempt'>;
  logger: Logger;
  resyncMs?: number;
  close(): Promise<void>;
}

/** The thread's side: the same deliverer as on the API's thread, telling the parent of every attempt. */
export const serveDeliverer = <Data>(open: (data: Data) => Promise<DelivererStores>): void =>
  serveThread<DelivererApi & { stop(): Promise<void> }, DelivererEvents>(async (data: Data, parent) => {
    const { feed, store, settings, logger, resyncMs, close } = await open(data);
    let batch: Attempt[] = [];
    let timer: NodeJS.Timeout | undefined;
    const flush = () => {
      clearTimeout(timer);
      if (batch.length > 0) parent.emit('attempts', batch);
      batch = [];
    };
    const deliverer = await startDeliverer({
      store,
      feed,
      logger,
      resyncMs,
      settings: {
        ...settings,
        onAttempt: (attempt, recordedAt) => {
          if (batch.length === 0) timer = setTimeout(flush, ATTEMPTS_EVERY_MS).unref();
          batch.push([attempt, recordedAt.getTime()]);
        },
      },
    });
    return {
      changed: async (workspaceId, id) => {
        await deliverer.changed(workspaceId, id);
        return deliverer.running;
      },
      resync: async () => {
        await deliverer.resync();
        return deliverer.running;
      },
      stop: async () => {
        await deliverer.stop();
        flush();
        await close();
      },
    };
  });
