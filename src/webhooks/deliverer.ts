import type { Logger } from 'pino';
import type { LiveFeed } from '../eventstore/eventFeed';
import { startDeliveryLoop, type DeliveryLoop, type DeliverySettings } from './deliveryLoop';
import type { StoredWebhook } from './webhook';
import type { WebhookStore } from './webhookStore';

/**
 * Runs one delivery loop (deliveryLoop.ts) per active webhook of every workspace, and keeps the
 * set in step with the store: at once for a change made through this process (`changed`), and
 * every `resyncMs` for changes made through another (a replica with WEBHOOKS=off) and for a loop
 * that ended on an error. Paused and disabled webhooks have no loop.
 */
export interface Deliverer {
  /** The webhook was created, changed, rotated, replayed or deleted: its loop follows before this resolves. */
  changed(workspaceId: string, id: string): Promise<void>;
  /** Looks at every webhook now, as the periodic resync does. */
  resync(): Promise<void>;
  /** How many loops run now. */
  readonly running: number;
  stop(): Promise<void>;
}

export interface DelivererOptions {
  store: WebhookStore;
  feed: LiveFeed;
  settings: DeliverySettings;
  logger: Logger;
  resyncMs?: number;
  now?: () => Date;
  random?: () => number;
}

export const RESYNC_MS = 5000;

export const startDeliverer = async (options: DelivererOptions): Promise<Deliverer> => {
  const { store, logger } = options;
  const loops = new Map<string, DeliveryLoop>();
  let stopped = false;
  // One change at a time: a resync and a route's change of the same webhook must not both start a loop.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task);
    queue = run.catch(() => undefined);
    return run;
  };

  const start = (stored: StoredWebhook) => {
    const loop = startDeliveryLoop(stored, { ...options, logger });
    loops.set(stored.webhook.id, loop);
    void loop.ended.then(() => {
      if (loops.get(stored.webhook.id) === loop) loops.delete(stored.webhook.id);
    });
  };
  const stopLoop = async (id: string) => {
    const loop = loops.get(id);
    if (!loop) return;
    loops.delete(id);
    await loop.stop();
  };
  /** Brings one webhook's loop in line with what the store holds (null: it is gone). */
  const reconcile = async (id: string, stored: StoredWebhook | null) => {
    if (stopped) return;
    const loop = loops.get(id);
    if (!stored || stored.webhook.status !== 'active') return stopLoop(id);
    if (loop && loop.epoch !== stored.progress.epoch)
      await stopLoop(id); // a replay: start again from its checkpoint
    else if (loop) {
      if (loop.revision !== stored.webhook.revision) loop.update(stored.webhook);
      return;
    }
    start(stored);
  };

  const resync = () =>
    serially(async () => {
      const active = await store.listActive();
      const ids = new Set(active.map((s) => s.webhook.id));
      for (const id of [...loops.keys()]) if (!ids.has(id)) await stopLoop(id);
      for (const stored of active) await reconcile(stored.webhook.id, stored);
    });

  await resync();
  logger.info({ webhooks: loops.size }, 'webhook delivery started');
  const timer = setInterval(() => {
    resync().catch((error: unknown) => logger.warn({ err: error }, 'webhook resync failed; trying again at the next'));
  }, options.resyncMs ?? RESYNC_MS);
  timer.unref();

  return {
    changed: (workspaceId, id) => serially(async () => reconcile(id, await store.get(workspaceId, id))),
    resync,
    get running() {
      return loops.size;
    },
    stop: () =>
      serially(async () => {
        stopped = true;
        clearInterval(timer);
        await Promise.all([...loops.keys()].map((id) => stopLoop(id)));
      }),
  };
};
