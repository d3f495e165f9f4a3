import type { RecordedEvent, StreamName } from './types';

/** How a rebuild reads the store: stream by stream, split between readers, no cross-stream order. */
export interface ReadStreamsOptions {
  until: bigint;
  streamPrefix?: string;
  pageSize?: number;
  share?: { index: number; count: number };
}

export interface StreamReader {
  /**
   * Every event at or before `until` of the streams with this prefix, stream by stream: in pages
   * of about `pageSize` events, a stream's events consecutive and in revision order, the streams in
   * no particular order. `share`: only the streams with `streamShare(stream, count) === index`, so
   * `count` readers can split the store.
   */
  readStreams(options: ReadStreamsOptions): AsyncIterable<RecordedEvent[]>;
  /** The same, each event as its stored text (the embedded store): what a rebuild and verify fold without parsing each config. */
  readStreamsStored?(options: ReadStreamsOptions): AsyncIterable<StoredFeedEvent[]>;
}

/** A reader's streams as stored text where it has them, parsed otherwise: what the folds of a rebuild and verify read. */
export const readStreamsToFold = (
  reader: StreamReader,
  options: ReadStreamsOptions,
): AsyncIterable<Array<RecordedEvent | StoredFeedEvent>> =>
  reader.readStreamsStored ? reader.readStreamsStored(options) : reader.readStreams(options);

/** An event as the store keeps it: data and metadata as their stored JSON text, not parsed. */
export interface StoredEvent {
  stream: StreamName;
  revision: bigint;
  position: bigint;
  type: string;
  data: string;
  metadata: string;
}

/** An event of the log as the store keeps it, with its id and time: what the stored-text reads of a feed hand out. */
export interface StoredFeedEvent extends StoredEvent {
  stored: true;
  id: string;
  recordedAt: Date;
}

/**
 * A store that can hand out its events' stored text, in the order and pages of `readAll`: what a
 * verify of the hash chain hashes without parsing (the embedded store keeps the text the link covers).
 */
export interface StoredTextReader {
  /** The same options as `readAll` (src/eventstore/eventFeed.ts, which imports this file's types). */
  readLogStored(options: { after?: bigint; limit: number; streamPrefix?: string; types?: readonly string[] }): Promise<StoredEvent[]>;
  /** One event's stored text (undefined: the stream has no such revision). */
  readStored(stream: StreamName, revision: bigint): Promise<StoredEvent | undefined>;
  /** Those of these events that are stored, in no particular order: many `readStored` at once. */
  readStoredMany(keys: readonly { stream: StreamName; revision: bigint }[]): Promise<StoredEvent[]>;
}

/** Which of `count` shares a stream belongs to: FNV-1a of its name, the same in every implementation. */
export const streamShare = (stream: StreamName, count: number): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < stream.length; i++) hash = Math.imul(hash ^ stream.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % count;
};
