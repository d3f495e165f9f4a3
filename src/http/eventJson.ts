import type { RecordedEvent } from '../eventstore/eventStore';
import { decodeEvent } from '../presets/events';

/**
 * An event as the API shows it, in one shape for /presets/{slug}/events, /events and the
 * event stream. A revision counts one preset's events, so it fits a JSON number; a position can
 * exceed 2^64 (EventStoreDB's packed commit/prepare), so it is a decimal string.
 */
export interface EventJson {
  id: string;
  type: string;
  stream: string;
  revision: number;
  position: string;
  recorded_at: string;
  data: unknown;
  metadata: unknown;
}

/** A revision as a JSON number; throws rather than round a revision past 2^53. */
export const revisionNumber = (revision: bigint): number => {
  const n = Number(revision);
  if (!Number.isSafeInteger(n)) throw new RangeError(`stream revision ${revision} is not a safe integer`);
  return n;
};

/**
 * Decodes first (validation, and upcasting to the current schema), so consumers see the event as
 * the service itself reads it; a malformed event throws instead of leaving the service.
 */
export const eventJson = (recorded: RecordedEvent): EventJson => {
  const stored = decodeEvent(recorded);
  return {
    id: stored.id,
    type: stored.event.type,
    stream: stored.stream,
    revision: revisionNumber(stored.revision),
    position: stored.position.toString(),
    recorded_at: stored.recordedAt.toISOString(),
    data: stored.event.data,
    metadata: stored.metadata,
  };
};
