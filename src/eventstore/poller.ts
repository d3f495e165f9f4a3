import type { RecordedEvent } from './eventStore';
import type { SubscribeFrom, SubscribeOptions, Subscription } from './eventFeed';

/**
 * A catch-up subscription for stores without push: read pages after the last delivered position,
 * and when caught up wait for `notify()` (an append in this process) or the poll interval
 * (an append by another process), whichever comes first.
 *
 * A notification may say which event types the commit holds: a subscription of other types is
 * not woken by it (its read would find nothing), so a follower of a few types costs a commit of
 * another type nothing. A notification that does not say wakes every subscription.
 */
export interface Poller<E extends PolledEvent = RecordedEvent> {
  subscribe(
    from: SubscribeFrom,
    onEvent: (event: E) => Promise<void>,
    options: SubscribeOptions & { pollIntervalMs: number },
  ): Subscription;
  /** Something was appended in this process: of these types, when told. */
  notify(types?: readonly string[]): void;
  stopAll(): Promise<void>;
}

/** What a poller needs of an event: parsed (RecordedEvent) or as stored text (StoredFeedEvent). */
export type PolledEvent = Pick<RecordedEvent, 'position' | 'type'>;

const PAGE = 512;

/** Resolves after `ms`, when `wake` is called, or at the stop; allocates no AbortController and throws no AbortError (an idle subscription passes here every poll interval). */
const waitFor = (ms: number, signal: AbortSignal, onWake?: (wake: () => void) => void): Promise<void> =>
  new Promise<void>((resolve) => {
    // Stopped while delivering: the abort has fired already, and waiting would last the whole poll.
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      onWake?.(() => undefined);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
    onWake?.(done);
  });

export const createPoller = <E extends PolledEvent = RecordedEvent>(
  /** The first `limit` events after `after`, of the prefix's streams and the types when given (a store with a type index reads only those). */
  readAfter: (after: bigint, limit: number, prefix?: string, types?: readonly string[]) => Promise<E[]> | E[],
  /** The position of the log's last event (null: none): what a subscription told `onScanned` has read through. */
  head: () => bigint | null | Promise<bigint | null>,
): Poller<E> => {
  const running = new Set<Subscription>();
  /** Each subscription's notification listener. */
  const listeners = new Set<(types: readonly string[] | undefined) => void>();

  return {
    subscribe(from, onEvent, { streamPrefix, types, onError, onScanned, pollIntervalMs, readEveryMs = 0 }) {
      const stop = new AbortController();
      let after = from === 'start' ? 0n : from.after;
      // Set by a notification for it, so one that comes while the subscription is reading or
      // delivering is not lost: it looks again at once instead of waiting for the next one or the poll.
      let notified = false;
      let wake = () => {};
      const listener = (committed: readonly string[] | undefined) => {
        if (types && committed && !committed.some((type) => types.includes(type))) return; // nothing of its types
        notified = true;
        wake();
      };
      listeners.add(listener);
      const loop = (async () => {
        try {
          let readAt = 0;
          while (!stop.signal.aborted) {
            notified = false;
            readAt = Date.now();
            // Read before the page: every event up to it is in the page, or in the pages before.
            const through = onScanned ? await head() : null;
            const page = await readAfter(after, PAGE, streamPrefix, types);
            for (const event of page) {
              if (stop.signal.aborted) return;
              if (!types || types.includes(event.type)) await onEvent(event);
              after = event.position;
            }
            if (page.length === PAGE) continue; // catching up: the next page at once
            if (through !== null && !stop.signal.aborted) onScanned?.(through > after ? through : after);
            if (!notified) await waitFor(pollIntervalMs, stop.signal, (w) => (wake = w));
            // Following, at most one read each readEveryMs: the commits of a busy moment come in one read.
            const early = readAt + readEveryMs - Date.now();
            if (early > 0) await waitFor(early, stop.signal);
          }
        } catch (error) {
          if (!stop.signal.aborted) onError?.(error);
        } finally {
          listeners.delete(listener);
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
    notify: (types) => {
      for (const listener of [...listeners]) listener(types);
    },
    async stopAll() {
      await Promise.all([...running].map((s) => s.stop()));
    },
  };
};
