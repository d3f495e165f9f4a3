import type { RecordedEvent } from '../eventstore/eventStore';
import {
  hasStoredText,
  lazilyParsedEvent,
  type EventFeed,
  type StoredFeedEvent,
  type StoredTextFeed,
  type SubscribeFrom,
  type SubscribeOptions,
} from '../eventstore/eventFeed';
import { sharedTail, type SharedTail, type SharedTailOptions, type TailSubscription } from './sharedTail';

/**
 * The shared tail (sharedTail.ts) over a store: the API's feed, whose subscriptions go through
 * the one reader of the process (`withSharedTail`), and the tail of a feed's stored text
 * (`storedTextTail`), for the threads that pass events on as JSON.
 */
/** The API's feed: the store's reads as they are, its subscriptions through the shared tail. */
export interface SharedFeed extends EventFeed, Partial<Pick<StoredTextFeed, 'readAllStored'>>, SharedTail<RecordedEvent> {
  subscribe(from: SubscribeFrom, onEvent: (event: RecordedEvent) => Promise<void>, options?: SubscribeOptions): TailSubscription;
}

export const withSharedTail = (feed: EventFeed & Partial<StoredTextFeed>, options: SharedTailOptions = {}): SharedFeed => {
  // Where the store has its events' text (the embedded store), the tail reads that and parses an
  // event's data and metadata only when a subscriber reads them (lazilyParsedEvent): the followers
  // that are always there (the key ring, the audit checkpointer) look at types and streams, so
  // neither a write nor a catch-up costs the thread a parse of each event.
  const parsedOnRead = (event: StoredFeedEvent) => lazilyParsedEvent(event, () => event);
  const tail = sharedTail<RecordedEvent>(
    hasStoredText(feed)
      ? {
          reportsScanned: feed.reportsScanned,
          readAll: async (o) => (await feed.readAllStored(o)).map(parsedOnRead),
          subscribe: (from, onEvent, o) => feed.subscribeStored(from, (event) => onEvent(parsedOnRead(event)), o),
          headPosition: () => feed.headPosition(),
        }
      : feed,
    options,
  );
  return {
    maxPosition: feed.maxPosition,
    readAll: (o) => feed.readAll(o),
    ...(feed.readAllStored ? { readAllStored: (o: Parameters<StoredTextFeed['readAllStored']>[0]) => feed.readAllStored!(o) } : {}),
    countAll: (o) => feed.countAll(o),
    readAllBackwards: (o) => feed.readAllBackwards(o),
    headPosition: (o) => feed.headPosition(o),
    subscribe: (from, onEvent, o) => tail.subscribe(from, onEvent, o),
    get subscribers() {
      return tail.subscribers;
    },
    close: () => tail.close(),
  };
};

/**
 * The shared tail over a feed's stored text, where it has it (the embedded store): subscribers are
 * handed each event's data and metadata as the store keeps them, for a consumer that passes events
 * on as JSON (the webhook deliverer) without parsing and serializing each one again.
 */
export const storedTextTail = (feed: EventFeed & StoredTextFeed, options: SharedTailOptions = {}): SharedTail<StoredFeedEvent> =>
  sharedTail<StoredFeedEvent>(
    {
      readAll: (o) => feed.readAllStored(o),
      subscribe: (from, onEvent, o) => feed.subscribeStored(from, onEvent, o),
      headPosition: () => feed.headPosition(),
      reportsScanned: feed.reportsScanned,
    },
    options,
    (event) => event.data.length + event.metadata.length,
  );
