import type { StoredFeedEvent } from './streamReader';
import type { RecordedEvent } from './types';

/**
 * The log as its consumers read it, every stream in position order: the projector, the event
 * endpoints and their live stream, verify, a rebuild's catch-up.
 */

/** Where a subscription starts: 'start' for everything, or after this (exclusive) position. */
export type SubscribeFrom = 'start' | { after: bigint };

export interface Subscription {
  /** Stops delivering; resolves once no handler call is running. */
  stop(): Promise<void>;
}

export interface SubscribeOptions {
  /** Only streams whose name starts with this prefix. */
  streamPrefix?: string;
  /** Only events of these types (all types when absent). */
  types?: readonly string[];
  /** Called when the subscription fails and will not deliver any more (after retries). */
  onError?: (error: unknown) => void;
  /**
   * For a store that polls (the embedded one): once caught up, read new events at most once each
   * this many milliseconds, so the commits of a busy moment come in one read instead of one read
   * each (default 0: a read at each commit). For a follower that can take events that much later
   * under load (the HTTP thread's shared tail), never the projector a write waits for. Stores that
   * push (EventStoreDB) ignore it.
   */
  readEveryMs?: number;
  /**
   * Told, each time a read of new events has handed out all it found, the position the log has
   * been read through, events of other streams and types included: where a subscription of a few
   * types is, though it was handed none of them lately. Only stores whose feed says
   * `reportsScanned` tell it.
   */
  onScanned?: (position: bigint) => void;
}

export interface ReadAllOptions {
  limit: number;
  /** Only streams whose name starts with this prefix. */
  streamPrefix?: string;
  /** Only events of these types (all types when absent). */
  types?: readonly string[];
}

/** The largest position the embedded and in-memory stores can hold (SQLite's integer). */
export const MAX_INT64_POSITION = (1n << 63n) - 1n;

export interface EventFeed {
  /** The largest position this store can hold: a request naming a larger one is a 400, not a fault. */
  readonly maxPosition: bigint;
  /** Events of every stream in position order, after a position (exclusive); for paging. */
  readAll(options: ReadAllOptions & { after?: bigint }): Promise<RecordedEvent[]>;
  /**
   * How many events `readAll` with the same options would return (so at most `limit`): a lag or a
   * backlog, counted where the store can count without handing each event out.
   */
  countAll(options: ReadAllOptions & { after?: bigint }): Promise<number>;
  /**
   * Events of every stream newest first, before a position (exclusive; from the newest when
   * absent): for people who read the latest first, such as an auditor's feed.
   */
  readAllBackwards(options: ReadAllOptions & { before?: bigint }): Promise<RecordedEvent[]>;
  /**
   * Catch-up subscription: every event after `from`, in position order, then new ones as they are
   * stored. `onEvent` is awaited before the next event is delivered.
   */
  subscribe(from: SubscribeFrom, onEvent: (event: RecordedEvent) => Promise<void>, options?: SubscribeOptions): Subscription;
  /** Position of the last event (of streams with this prefix), or null when there is none. */
  headPosition(options?: { streamPrefix?: string }): Promise<bigint | null>;
  /** Its subscriptions tell `onScanned` (SubscribeOptions): the stores that poll. */
  readonly reportsScanned?: boolean;
}

/** An event of the log as the store keeps it: its data and metadata as their stored JSON text (defined beside StoredEvent). */
export type { StoredFeedEvent } from './streamReader';

/**
 * A feed that can page through and follow its events' stored text, as `readAll` and `subscribe`
 * do parsed: what passes events on (a consumer group's fetch, a webhook's delivery) sends without
 * parsing and serializing each one again. Only the embedded store has it; callers fall back on
 * `readAll` and `subscribe`.
 */
export interface StoredTextFeed {
  readAllStored(options: ReadAllOptions & { after?: bigint }): Promise<StoredFeedEvent[]>;
  subscribeStored(from: SubscribeFrom, onEvent: (event: StoredFeedEvent) => Promise<void>, options?: SubscribeOptions): Subscription;
}

/** Whether a feed has its stored text to hand out (the embedded store). */
export const hasStoredText = <F extends Partial<StoredTextFeed>>(feed: F): feed is F & StoredTextFeed =>
  feed.readAllStored !== undefined && feed.subscribeStored !== undefined;

/** An event as a feed hands it out: parsed, or as its stored text. */
export type FeedEvent = RecordedEvent | StoredFeedEvent;

/** Following the log, for a consumer that only subscribes and takes events of either kind (a webhook's delivery loop). */
export interface LiveFeed<E = FeedEvent> {
  subscribe(from: SubscribeFrom, onEvent: (event: E) => Promise<void>, options?: SubscribeOptions): Subscription;
}

/**
 * A parsed event whose data and metadata are parsed, from their stored text, when first read (then
 * kept): what follows the log live for subscribers that mostly look at an event's position, stream
 * and type (the audit checkpointer, the key ring passing other types, a long poll waiting for one
 * of its types) parses nothing, and one that reads the data parses it once for all who share the
 * object. `text` is asked at most once, at the first read of either.
 * `data` and `metadata` are the object's own enumerable properties, in their place among its keys,
 * so a spread, `JSON.stringify` or a structured clone sees them as on any parsed event.
 */
export const lazilyParsedEvent = (
  header: Pick<RecordedEvent, 'id' | 'type' | 'stream' | 'revision' | 'position' | 'recordedAt'>,
  text: () => { data: string; metadata: string },
): RecordedEvent => {
  const event = {
    id: header.id,
    type: header.type,
    stream: header.stream,
    revision: header.revision,
    position: header.position,
    data: undefined, // in its place among the keys, as every store's parsed event has it
    metadata: undefined,
    recordedAt: header.recordedAt,
  } as RecordedEvent;
  let stored: { data: string; metadata: string } | undefined;
  const parsedOnRead = (key: 'data' | 'metadata'): PropertyDescriptor => ({
    enumerable: true,
    configurable: true,
    get() {
      const value: unknown = JSON.parse((stored ??= text())[key]);
      Object.defineProperty(event, key, { value, enumerable: true, configurable: true, writable: true });
      return value;
    },
    set(value: unknown) {
      Object.defineProperty(event, key, { value, enumerable: true, configurable: true, writable: true });
    },
  });
  return Object.defineProperties(event, { data: parsedOnRead('data'), metadata: parsedOnRead('metadata') });
};

/** The parsed event of a stored one; `data`, when given, in place of its stored data's parse. */
export const parsedEvent = (e: StoredFeedEvent, data: unknown = JSON.parse(e.data)): RecordedEvent => ({
  id: e.id,
  type: e.type,
  stream: e.stream,
  revision: e.revision,
  position: e.position,
  data,
  metadata: JSON.parse(e.metadata),
  recordedAt: e.recordedAt,
});
