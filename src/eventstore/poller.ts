import { EventEmitter } from 'node:events';
import type { RecordedEvent } from './eventStore';
import type { SubscribeFrom, SubscribeOptions, Subscription } from './eventFeed';

/**
 * A catch-up subscription for stores without push: read pages after the last delivered position,
 * and when caught up wait for `notify()` (an append in this process) or the poll interval
 * (an append by another process), whichever comes first.
 */
export interface Poller<E extends PolledEvent = RecordedEvent> {
  subscribe(
    from: SubscribeFrom,
    onEvent: (event: E) => Promise<void>,
    options: SubscribeOptions & { pollIntervalMs: number },
  ): Subscription;
  notify(): void;
  stopAll(): Promise<void>;
}

/** What a poller needs of an event: parsed (RecordedEvent) or as stored text (StoredFeedEvent). */
export type PolledEvent = Pick<RecordedEvent, 'position' | 'type'>;

const PAGE = 512;

export const createPoller = <E extends PolledEvent = RecordedEvent>(
  readAfter: (after: bigint, limit: number, prefix?: string) => Promise<E[]> | E[],
): Poller<E> => {
  const wake = new EventEmitter();
  wake.setMaxListeners(0);
  const running = new Set<Subscription>();
  // Counts notifications, so one that comes while a subscription is reading or delivering is not
  // lost: it looks again at once instead of waiting for the next notification or the poll.
  let notifications = 0;

  // Resolves at the first of a notification, the poll interval or the stop. An idle subscription
  // passes here every poll interval, so it allocates no AbortController and throws no AbortError:
  // an idle thread's cost is its timer.
  const waitForMore = (ms: number, signal: AbortSignal): Promise<void> =>
    new Promise<void>((resolve) => {
      // Stopped while delivering: the abort has fired already, and waiting would last the whole poll.
      if (signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        wake.off('wake', done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wake.on('wake', done);
      signal.addEventListener('abort', done);
    });

  return {
    subscribe(from, onEvent, { streamPrefix, types, onError, pollIntervalMs }) {
      const stop = new AbortController();
      let after = from === 'start' ? 0n : from.after;
      const loop = (async () => {
        try {
          while (!stop.signal.aborted) {
            const seen = notifications;
            const page = await readAfter(after, PAGE, streamPrefix);
            for (const event of page) {
              if (stop.signal.aborted) return;
              if (!types || types.includes(event.type)) await onEvent(event);
              after = event.position;
            }
            if (page.length < PAGE && notifications === seen) await waitForMore(pollIntervalMs, stop.signal);
          }
        } catch (error) {
          if (!stop.signal.aborted) onError?.(error);
        }
      })();
      const subscription: Subscription = {
        async stop() {
          stop.abort();
          await loop;
          running.delete(subscription);
        },
      };
      running.add(subscription);
      return subscription;
    },
    notify: () => {
      notifications++;
      wake.emit('wake');
    },
    async stopAll() {
      await Promise.all([...running].map((s) => s.stop()));
    },
  };
};
