/**
 * The event store as the rest of the service sees it: append with an expected revision,
 * read one stream, follow every stream from a position. Two implementations:
 * `sqlite.ts` (embedded default) and `eventstoredb.ts` (EventStoreDB).
 *
 * Numbers: a stream revision counts from 0n (the first event of a stream), as EventStoreDB does;
 * a position is an event's place in the whole store, strictly increasing in commit order.
 * Both are bigints here and leave the process only as decimal strings.
 */
export type StreamName = string;

/** What the writer believes about the stream: it must not exist yet, or must end at this revision. */
export type ExpectedRevision = 'no_stream' | bigint;

export interface NewEvent {
  id: string; // a UUID chosen by the writer, so a retried append can be recognised
  type: string;
  data: unknown;
  metadata: unknown;
}

export interface RecordedEvent {
  id: string;
  type: string;
  stream: StreamName;
  revision: bigint;
  position: bigint;
  data: unknown;
  metadata: unknown;
  recordedAt: Date;
}

export interface AppendResult {
  /** Revision of the last event written. */
  revision: bigint;
  /** Position of the last event written. */
  position: bigint;
}

/** Where a subscription starts: 'start' for everything, or after this (exclusive) position. */
export type SubscribeFrom = 'start' | { after: bigint };

export interface Subscription {
  /** Stops delivering; resolves once no handler call is running. */
  stop(): Promise<void>;
}

export interface SubscribeOptions {
  /** Only streams whose name starts with this prefix. */
  streamPrefix?: string;
  /** Called when the subscription fails and will not deliver any more (after retries). */
  onError?: (error: unknown) => void;
}

export interface ReadStreamsOptions {
  until: bigint;
  streamPrefix?: string;
  pageSize?: number;
  share?: { index: number; count: number };
}

/** Which of `count` shares a stream belongs to: FNV-1a of its name, the same in every implementation. */
export const streamShare = (stream: StreamName, count: number): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < stream.length; i++) hash = Math.imul(hash ^ stream.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % count;
};

export interface EventStore {
  /** Throws ConcurrencyConflict when the stream is not at the expected revision. */
  append(stream: StreamName, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /** Events of one stream in revision order, from a revision (inclusive); [] for a missing stream. */
  read(stream: StreamName, options?: { fromRevision?: bigint; limit?: number }): Promise<RecordedEvent[]>;
  /** Events of every stream in position order, after a position (exclusive); for paging. */
  readAll(options: { after?: bigint; limit: number; streamPrefix?: string }): Promise<RecordedEvent[]>;
  /**
   * Every event at or before `until` of the streams with this prefix, stream by stream: in pages
   * of about `pageSize` events, a stream's events consecutive and in revision order, the streams in
   * no particular order. `share`: only the streams with `streamShare(stream, count) === index`, so
   * `count` readers can split the store. For a rebuild, which needs no cross-stream order.
   */
  readStreams(options: ReadStreamsOptions): AsyncIterable<RecordedEvent[]>;
  /**
   * Catch-up subscription: every event after `from`, in position order, then live ones.
   * `onEvent` is awaited before the next event is delivered.
   */
  subscribe(from: SubscribeFrom, onEvent: (event: RecordedEvent) => Promise<void>, options?: SubscribeOptions): Subscription;
  /** Position of the last event (of streams with this prefix), or null when there is none. */
  headPosition(options?: { streamPrefix?: string }): Promise<bigint | null>;
  close(): Promise<void>;
}

export class ConcurrencyConflict extends Error {
  override readonly name = 'ConcurrencyConflict';
  constructor(
    readonly stream: StreamName,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'no_stream',
  ) {
    super(`stream ${stream} expected at ${String(expected)} but is at ${String(actual)}`);
  }
}

/** The store cannot take writes now (disk full, read-only, unreachable): a 503, not a 500. */
export class StoreUnavailable extends Error {
  override readonly name = 'StoreUnavailable';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
