import type { Logger } from 'pino';
import { RESYNC_MS, type Deliverer } from './deliverer';
import type { WebhookStore } from './webhookStore';

export interface OnDemandOptions {
  store: Pick<WebhookStore, 'countByStatus' | 'get'>;
  /** Starts the deliverer itself (its thread, where the service uses threads). */
  start: () => Promise<Deliverer>;
  logger: Logger;
  /** How often to look for an active webhook made elsewhere (another replica, a script) until one is found. */
  resyncMs?: number;
}

/**
 * A deliverer that is started only once some webhook is active: a service whose workspaces have no
 * webhook runs no delivery thread (its isolate is ~13 MB of resident memory, and it polls the store).
 * Until then it looks for an active webhook at start, whenever this process changes one, and every
 * `resyncMs` (so one made through another replica starts delivery within that time, as the
 * deliverer's own resync would); once started, it hands everything to the deliverer and no longer
 * looks itself. A start that fails is logged and tried again at the next look: the webhook that
 * asked for it is stored either way, and its events wait in the log.
 */
export const delivererOnDemand = async ({ store, start, logger, resyncMs = RESYNC_MS }: OnDemandOptions): Promise<Deliverer> => {
  let deliverer: Deliverer | undefined;
  let starting: Promise<Deliverer> | undefined;
  let stopped = false;

  const ensureStarted = (): Promise<Deliverer> =>
    (starting ??= start().then(
      (started) => {
        deliverer = started;
        clearInterval(timer);
        return started;
      },
      (error: unknown) => {
        starting = undefined; // the next look tries again
        throw error;
      },
    ));
  /** Starts the deliverer if it runs already or `isActive` says a webhook needs it; the deliverer once it runs. */
  const startIfActive = async (isActive: () => Promise<boolean>): Promise<Deliverer | undefined> => {
    if (stopped) return undefined;
    if (starting) return starting;
    if (!(await isActive())) return undefined;
    try {
      return await ensureStarted();
    } catch (error) {
      logger.error({ err: error }, 'webhook delivery could not start; trying again at the next look');
      return undefined;
    }
  };
  const anyActive = async () => (await store.countByStatus()).active > 0;

  const timer = setInterval(() => {
    startIfActive(anyActive).catch((error: unknown) => logger.warn({ err: error }, 'looking for active webhooks failed; trying again'));
  }, resyncMs);
  timer.unref();
  try {
    if (await startIfActive(anyActive)) logger.info('webhook delivery started: some webhook is active');
    else if (!stopped) logger.info('webhook delivery starts with the first active webhook');
  } catch (error) {
    clearInterval(timer);
    throw error;
  }

  return {
    async changed(workspaceId, id) {
      const running = await startIfActive(async () => (await store.get(workspaceId, id))?.webhook.status === 'active');
      await running?.changed(workspaceId, id);
    },
    async resync() {
      await (await startIfActive(anyActive))?.resync();
    },
    get running() {
      return deliverer?.running ?? 0;
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      const started = await starting?.catch(() => undefined);
      await started?.stop();
    },
  };
};
