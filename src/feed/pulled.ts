import type { EventFeed, StoredFeedEvent, StoredTextFeed, SubscribeFrom, Subscription } from '../eventstore/eventFeed';
import type { RecordedEvent } from '../eventstore/eventStore';
import type { ProcessorSelection } from './processor';
import type { TailEvent } from './sharedTail';

/**
 * A processor whose handler runs elsewhere and pulls its batches: a consumer group's consumer,
 * over HTTP (src/consumerGroups/). It selects events as a processor of this process does
 * (processor.ts: a stream prefix and event types), reads them through the same feed and waits
 * for new ones on the same shared tail; only two things are its own, because its handler is not
 * here:
 *
 * - who drives it: the consumer asks for the next batch (`read`), and waits when there is none
 *   (`waitForMore`), instead of the tail handing batches over;
 * - where its checkpoint is: kept by what serves the consumer, with what makes the batch its
 *   alone (a consumer group's lease, in one conditional write), not in a CheckpointStore, since a
 *   checkpoint that moved apart from the lease could hand a batch to two consumers.
 *
 * Retry is the lease's expiry: an unacknowledged batch is read again from the checkpoint, as a
 * processor of this process reads again from its checkpoint after a failure. Position and lag
 * are reported with every other processor's (src/observability/processorGauges.ts), from the same
 * selection (`lag`).
 */
export interface PulledProcessor {
  /** The first `max` selected events after `after` (from the start when null), as stored text where the feed has it. */
  read(after: bigint | null, max: number): Promise<PulledEvent[]>;
  /** Resolves when a selected event is stored after `after`, after `ms`, or when `signal` aborts. */
  waitForMore(after: bigint | null, ms: number, signal: AbortSignal): Promise<void>;
  /** Selected events after `after`, counted up to `cap`, and the head of its streams. */
  lag(after: bigint | null, cap: number): Promise<{ events: number; head: bigint | null }>;
}

/** An event handed out: parsed, or as the store keeps it when the feed can read its text (the embedded store). */
export type PulledEvent = RecordedEvent | StoredFeedEvent;

export interface PulledProcessorDeps {
  /** With `readAllStored`, batches are read as stored text: what serves them passes them on without parsing them. */
  feed: Pick<EventFeed, 'readAll' | 'countAll' | 'headPosition'> & Partial<Pick<StoredTextFeed, 'readAllStored'>>;
  /** The process's shared tail (sharedTail.ts): a waiting consumer costs no read of the log of its own. */
  tail: {
    subscribe(
      from: SubscribeFrom,
      onEvent: (event: TailEvent) => Promise<void>,
      options?: { streamPrefix?: string; types?: readonly string[]; onError?: (error: unknown) => void },
    ): Subscription;
  };
}

export const pulledProcessor = ({ feed, tail }: PulledProcessorDeps, { streamPrefix, eventTypes }: ProcessorSelection): PulledProcessor => {
  const after = (position: bigint | null, limit: number) => ({ after: position ?? undefined, limit, streamPrefix, types: eventTypes });
  return {
    read: (position, max) => (feed.readAllStored ? feed.readAllStored(after(position, max)) : feed.readAll(after(position, max))),

    waitForMore: (position, ms, signal) =>
      new Promise<void>((resolve) => {
        if (signal.aborted) return resolve();
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          void subscription.stop();
          resolve();
        };
        const timer = setTimeout(done, ms);
        signal.addEventListener('abort', done);
        const subscription = tail.subscribe(position === null ? 'start' : { after: position }, async () => done(), {
          streamPrefix,
          types: eventTypes,
          onError: done,
        });
      }),

    async lag(position, cap) {
      const [events, head] = await Promise.all([feed.countAll(after(position, cap)), feed.headPosition({ streamPrefix })]);
      return { events, head };
    },
  };
};
