import type { SealedLinks } from './sealedLinks';
import type { EventFeed, StoredTextFeed } from './eventFeed';
import type { StoredTextReader, StreamReader } from './streamReader';
import type { AppendResult, ExpectedRevision, NewEvent, RecordedEvent, StreamName } from './types';

export type { AppendResult, ExpectedRevision, NewEvent, RecordedEvent, StreamName } from './types';

/**
 * The event store, as the command side sees it: append to a stream with an expected revision,
 * read one stream. Consumers of the whole log use its feed (eventFeed.ts), a rebuild its stream
 * reader (streamReader.ts); each adapter (sqlite/, eventstoredb/, memory.ts) is all three. The
 * types they share are in types.ts (re-exported here).
 */
export interface EventStore {
  /**
   * Throws ConcurrencyConflict when the stream is not at the expected revision. Each event is
   * stored with its hash chain link in its metadata (`hash`), computed in the append's transaction.
   */
  append(stream: StreamName, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /** Events of one stream in revision order, from a revision (inclusive); [] for a missing stream. */
  read(stream: StreamName, options?: { fromRevision?: bigint; limit?: number }): Promise<RecordedEvent[]>;
}

/** What an adapter opens: every port over one connection, closed together (stored text where the store keeps it). */
export interface EventStoreAdapter
  extends EventStore, EventFeed, StreamReader, SealedLinks, Partial<StoredTextReader>, Partial<StoredTextFeed> {
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

/** The store cannot take writes now (disk full, read-only, unreachable): a 503, not a 500 (src/storage/faults.ts). */
export { StoreUnavailable } from '../storage/faults';
