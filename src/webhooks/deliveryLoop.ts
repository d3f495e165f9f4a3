import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { FeedEvent, LiveFeed } from '../eventstore/eventFeed';
import { startProcessor } from '../feed/processor';
import { StoreUnavailable } from '../eventstore/eventStore';
import type { DestinationPolicy } from './destination';
import { afterAttempt, describeResult, succeeded, type RetrySettings } from './retryPolicy';
import { newConnections, send } from './send';
import { signer } from './signing';
import { disableWebhook, NO_FAILURE, wants, type DeliveryProgress, type StoredWebhook, type Webhook } from './webhook';
import type { NewDeliveryAttempt, WebhookStore } from './webhookStore';
import { workspaceStreamPrefix } from '../events/workspaceStreams';
import { feedEventJsonText } from '../workspaceLog/eventJson';

/**
 * One webhook's delivery: a subscription to its workspace's events from its checkpoint, each
 * matching event sent until a 2xx, one at a time, in feed order. The checkpoint (with the attempt)
 * is saved only after the 2xx, so whatever happens before that, the event is sent again after a
 * restart: at least once, never skipped. Nothing here waits on another webhook: each loop has its
 * own subscription, its own connections and its own timers.
 *
 * Saving does not hold up the next delivery: after a 2xx the next event is sent while the save
 * commits, and the attempts made meanwhile go with the next save (one save in flight a loop, and
 * one begun at most every SAVE_EVERY_MS while deliveries keep coming). Saves still go in order,
 * and the checkpoint still moves only past events that got their 2xx; what a crash can lose is
 * the last few milliseconds of progress, whose events are sent again. A failed attempt is saved
 * (and waited for) before its retry is scheduled.
 */
export interface DeliverySettings extends RetrySettings {
  /** WEBHOOK_TIMEOUT_MS: the most one attempt may take, connecting included. */
  timeoutMs: number;
  policy: DestinationPolicy;
  /** Told of every attempt made, with when its event was stored (the operators' metrics). */
  onAttempt?: (attempt: NewDeliveryAttempt, recordedAt: Date) => void;
}

export interface DeliveryLoopDeps {
  feed: LiveFeed;
  store: WebhookStore;
  settings: DeliverySettings;
  logger: Logger;
  now?: () => Date;
  random?: () => number;
}

export interface DeliveryLoop {
  readonly webhookId: string;
  /** The configuration it sends with (url, events, secrets) and the epoch it started in. */
  readonly revision: number;
  readonly epoch: number;
  /** New configuration for the next attempt; a retry that is waiting is made at once. */
  update(webhook: Webhook): void;
  /** Aborts the attempt in flight and any wait, and resolves once nothing runs any more. */
  stop(): Promise<void>;
  /** Resolves when the loop ended by itself: the webhook was disabled, replayed or deleted, or its feed failed. */
  readonly ended: Promise<void>;
}

/** Tries to save progress through a store that cannot write for a moment (100 ms, 200 ms… between them). */
const SAVE_TRIES = 5;

/** Skipped events (not of the webhook's types) move the saved checkpoint at most this often. */
const SKIP_SAVE_INTERVAL_MS = 1000;

/**
 * While deliveries keep coming, a loop begins a save at most this often, so one commit carries
 * the attempts of several deliveries (a transaction per delivery was most of a delivery's CPU
 * after the HTTP request: docs/performance.md, Webhooks). A save after a quiet spell begins at once.
 */
export const SAVE_EVERY_MS = 5;

/**
 * The body of each event, made once for every webhook it goes to: the shared tail hands every
 * subscriber of a workspace the same event object (src/feed/sharedTail.ts), and the entry goes
 * with the event once no loop holds it. An event read as stored text (the delivery thread's feed
 * on the embedded store) keeps its data and metadata text as the store has it (`storedEventJsonText`).
 */
const bodies = new WeakMap<FeedEvent, string>();
const bodyOf = (event: FeedEvent): string => {
  let body = bodies.get(event);
  if (body === undefined) bodies.set(event, (body = feedEventJsonText(event)));
  return body;
};

/** Thrown from the event handler to end the subscription; it is not a failure. */
class LoopEnded extends Error {
  override readonly name = 'LoopEnded';
}

export const startDeliveryLoop = (stored: StoredWebhook, deps: DeliveryLoopDeps): DeliveryLoop => {
  const { store, settings } = deps;
  const now = deps.now ?? (() => new Date());
  const random = deps.random ?? Math.random;
  let webhook = stored.webhook;
  let sign = signer(webhook.secrets);
  const epoch = stored.progress.epoch;
  let progress: DeliveryProgress = { ...stored.progress };
  const log = deps.logger.child({ webhookId: webhook.id });
  const stopping = new AbortController();
  const connections = newConnections(settings.policy);
  let wake: (() => void) | undefined;
  let endLoop!: () => void;
  const ended = new Promise<void>((resolve) => {
    endLoop = resolve;
  });

  /** Attempts made since the last save began, and whether the progress moved since then. */
  let owed: NewDeliveryAttempt[] = [];
  let moved = false;
  /** The saves running now (one at a time), and why they stopped if they could not go on. */
  let saving: Promise<void> | undefined;
  let saveFailure: unknown;
  let lastSaveBegan = -Infinity;

  /** One save of the progress as it is now with the attempts owed, through a store that cannot write for a moment. */
  const saveOnce = async () => {
    const attempts = owed;
    const next: Omit<DeliveryProgress, 'epoch'> = { ...progress };
    owed = [];
    moved = false;
    lastSaveBegan = performance.now();
    let saved: boolean;
    // A store that cannot write for a moment is waited for a little; for longer, the loop ends and
    // the next resync starts it again from the last saved checkpoint (so the event is sent again).
    for (let tries = 1; ; tries++) {
      try {
        saved = await store.saveProgress(webhook.id, epoch, next, attempts);
        break;
      } catch (error) {
        if (!(error instanceof StoreUnavailable) || tries >= SAVE_TRIES) throw error;
        log.warn({ err: error }, 'could not save delivery progress; trying again');
        await sleep(100 * 2 ** tries, undefined, { signal: stopping.signal });
      }
    }
    // A replay moved the epoch (its loop starts from its own checkpoint), or the webhook is gone.
    if (!saved) throw new LoopEnded('superseded');
  };
  /** Saves until nothing is owed, each begun SAVE_EVERY_MS after the one before at the soonest. */
  const saveOwed = async () => {
    while (owed.length > 0 || moved) {
      const wait = lastSaveBegan + SAVE_EVERY_MS - performance.now();
      if (wait > 0) await sleep(wait);
      await saveOnce();
    }
  };
  /** The progress moved (with an attempt, or past skipped events): saved soon, without waiting for it. */
  const record = (next: Omit<DeliveryProgress, 'epoch'>, attempt?: NewDeliveryAttempt) => {
    progress = { ...next, epoch };
    moved = true;
    if (attempt) owed.push(attempt);
    saving ??= saveOwed()
      .catch((error: unknown) => {
        saveFailure = error;
      })
      .finally(() => {
        saving = undefined;
      });
  };
  /** Waits until everything recorded is saved; throws why it could not be. */
  const saved = async () => {
    while (saving) await saving;
    if (saveFailure !== undefined) throw saveFailure;
  };

  /** Waits `ms`, or less if the configuration changes; throws once the loop is stopping. */
  const pause = (ms: number) =>
    new Promise<void>((resolve, reject) => {
      if (stopping.signal.aborted) return reject(new LoopEnded('stopped'));
      const done = () => {
        clearTimeout(timer);
        stopping.signal.removeEventListener('abort', onStop);
        wake = undefined;
      };
      const timer = setTimeout(() => {
        done();
        resolve();
      }, ms);
      const onStop = () => {
        done();
        reject(new LoopEnded('stopped'));
      };
      stopping.signal.addEventListener('abort', onStop);
      wake = () => {
        done();
        resolve();
      };
    });

  const disable = async (reason: string) => {
    // The configuration may have changed meanwhile: disable what is there, unless it is no longer active.
    for (let tries = 0; tries < 5; tries++) {
      const current = await store.get(webhook.workspaceId, webhook.id);
      if (!current || current.webhook.status !== 'active') return;
      if (await store.update(disableWebhook(current.webhook, reason, now()), current.webhook.revision)) {
        log.warn({ reason }, 'webhook disabled');
        return;
      }
    }
  };

  /** Delivers one event: 'checkpointed' once its 2xx is recorded with the attempt, 'skipped' for a type it does not take. */
  const deliver = async (recorded: FeedEvent): Promise<'checkpointed' | 'skipped'> => {
    if (stopping.signal.aborted) throw new LoopEnded('stopped');
    if (saveFailure !== undefined) throw saveFailure;
    // Its types can change while it runs (update), so it filters here rather than at the tail.
    if (!wants(webhook.events, recorded.type)) return 'skipped';
    const body = bodyOf(recorded);
    // After a restart the attempts at this event go on where they stopped, and wait as they would have.
    const resumed = progress.failingEventId === recorded.id;
    let failed = resumed ? progress.failingAttempts : 0;
    if (resumed && progress.nextAttemptAt) {
      const wait = Date.parse(progress.nextAttemptAt) - now().getTime();
      if (wait > 0) await pause(Math.min(wait, settings.retryMaxMs));
    }
    for (;;) {
      const at = now();
      const { result, latencyMs } = await send(
        webhook.url,
        body,
        { ...sign(recorded.id, at, body) },
        {
          timeoutMs: settings.timeoutMs,
          policy: settings.policy,
          connections,
          signal: stopping.signal,
        },
      );
      // Stopped in flight: the outcome is unknown, so nothing is recorded and the event is sent again later.
      if (stopping.signal.aborted) throw new LoopEnded('stopped');
      const attempt: NewDeliveryAttempt = {
        webhookId: webhook.id,
        eventId: recorded.id,
        eventType: recorded.type,
        eventPosition: recorded.position,
        attempt: failed + 1,
        attemptedAt: at.toISOString(),
        outcome: succeeded(result) ? 'succeeded' : 'failed',
        httpStatus: result.status ?? null,
        error: result.error ?? null,
        latencyMs,
        nextRetryAt: null,
      };
      settings.onAttempt?.(attempt, recorded.recordedAt);
      failed++;
      const next = afterAttempt(
        result,
        { failingSince: progress.failingSince ? new Date(progress.failingSince) : null, failedAttempts: failed },
        settings,
        now(),
        random,
      );
      if (next.action === 'advance') {
        record({ checkpoint: recorded.position, ...NO_FAILURE }, attempt);
        return 'checkpointed';
      }
      if (next.action === 'disable') {
        record({ ...progress }, attempt);
        await saved();
        log.warn(
          { eventId: recorded.id, attempt: attempt.attempt, outcome: describeResult(result) },
          'delivery failed; disabling the webhook',
        );
        await disable(next.reason);
        throw new LoopEnded('disabled');
      }
      const retryAt = new Date(now().getTime() + next.delayMs);
      record(
        {
          checkpoint: progress.checkpoint,
          failingSince: next.failingSince.toISOString(),
          failingEventId: recorded.id,
          failingAttempts: failed,
          nextAttemptAt: retryAt.toISOString(),
        },
        { ...attempt, nextRetryAt: retryAt.toISOString() },
      );
      await saved();
      log.warn(
        { eventId: recorded.id, attempt: attempt.attempt, outcome: describeResult(result), retryInMs: next.delayMs },
        'delivery failed; retrying',
      );
      await pause(next.delayMs);
    }
  };

  let finished = false;
  const finish = (reason: unknown) => {
    if (finished) return;
    finished = true;
    if (!(reason instanceof LoopEnded)) log.error({ err: reason }, 'webhook delivery stopped by an error; it restarts at the next resync');
    endLoop();
  };
  /**
   * The loop as a processor (src/feed/processor.ts): one event at a time, in feed order, from the
   * webhook's checkpoint; it records its progress itself, with its attempts (`record`). Skipped
   * events and the other workspaces' events the tail passes move the checkpoint at most every
   * SKIP_SAVE_INTERVAL_MS and at stop. An error ends the loop (the deliverer's next resync starts it again).
   */
  const processor = startProcessor<FeedEvent>(
    {
      name: `webhook-${webhook.id}`,
      streamPrefix: workspaceStreamPrefix(webhook.workspaceId),
      maxBatch: 1,
      onFailure: 'end',
      checkpointEveryMs: SKIP_SAVE_INTERVAL_MS,
      passScanned: true,
      handle: ([recorded]) => deliver(recorded!),
    },
    {
      tail: deps.feed,
      checkpoints: {
        read: async () => progress.checkpoint,
        async store(_, position) {
          record({ ...progress, checkpoint: position });
          // At stop, what it has seen is saved before the loop is done.
          if (stopping.signal.aborted) await saved();
        },
      },
    },
  );
  void processor.then((p) =>
    p.ended.then((reason) => {
      // Stopped from outside: stop() is waiting for it; anything else ends the loop by itself.
      if (reason !== undefined && !stopping.signal.aborted) finish(reason);
    }),
  );

  return {
    webhookId: webhook.id,
    get revision() {
      return webhook.revision;
    },
    epoch,
    update(next) {
      webhook = next;
      sign = signer(next.secrets);
      wake?.();
    },
    async stop() {
      // The processor stops first (its stop aborts at once), then the attempt in flight is aborted.
      // The processor saves where the loop has seen the log up to: past events it skipped, and past
      // other workspaces' (the shared tail's scanned position), so the next start reads nothing twice.
      const stopped = (await processor).stop();
      stopping.abort();
      await stopped.catch(() => undefined);
      await saved().catch(() => undefined);
      await connections.destroy();
    },
    ended,
  };
};
