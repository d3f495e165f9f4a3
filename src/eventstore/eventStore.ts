import type { SealedLinks } from '../audit/links';
import type { EventFeed } from './eventFeed';
import type { StreamReader } from './streamReader';

/**
 * The event store, as the command side sees it: append to a stream with an expected revision,
 * read one stream. Consumers of the whole log use its feed (eventFeed.ts), a rebuild its stream
 * reader (streamReader.ts); each adapter (sqlite/, eventstoredb/, memory.ts) is all three.
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
  /** A JSON object: the store adds the event's chain link to it as `hash` (src/audit/chain.ts). */
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

export interface EventStore {
  /**
   * Throws ConcurrencyConflict when the stream is not at the expected revision. Each event is
   * stored with its hash chain link in its metadata (`hash`), computed in the append's transaction.
   */
  append(stream: StreamName, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /** Events of one stream in revision order, from a revision (inclusive); [] for a missing stream. */
  read(stream: StreamName, options?: { fromRevision?: bigint; limit?: number }): Promise<RecordedEvent[]>;
}

/** What an adapter opens: every port over one connection, closed together. */
export interface EventStoreAdapter extends EventStore, EventFeed, StreamReader, SealedLinks {
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
