/**
 * What the event-store ports share (eventStore.ts, eventFeed.ts, streamReader.ts import it from
 * here, so none of them imports another for it): stream names, the events appended and recorded,
 * and what an append expects and returns.
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
  /** A JSON object: the store adds the event's chain link to it as `hash` (src/eventstore/hashChain.ts). */
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
