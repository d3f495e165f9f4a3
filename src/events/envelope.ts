import * as t from 'io-ts';
import type { NewEvent } from '../eventstore/eventStore';

/**
 * The envelope every event of a workspace's log shares, whatever its stream type: its metadata
 * (who, which request, which schema version), and the shape an event has once read back. The
 * events themselves are each stream type's (src/presets/events.ts, src/keys/events.ts), registered
 * into one table (registry.ts).
 *
 * Schema versioning rule: adding an optional field keeps the version; anything else bumps
 * `CURRENT_SCHEMA_VERSION`, and an upcaster of the stream type whose events changed brings old
 * versions to the current shape (src/presets/upcasters.ts). The version is the log's, one for
 * every stream type, so a reader needs one number to know what it can read.
 */

/** The format of the inference request body an event was made from. */
export const SOURCE_FORMATS = ['chat_completions', 'messages', 'responses'] as const;
export const SourceFormat = t.keyof({ chat_completions: null, messages: null, responses: null });
export type SourceFormat = t.TypeOf<typeof SourceFormat>;

/**
 * v2 added `version.creatorId` (v1 events take it from `metadata.actorUserId`); v3 added a version's
 * template fields, `templateFormat`, `variables` and `messages` (v2 events read as "none", null and
 * []). See src/presets/upcasters.ts.
 */
export const CURRENT_SCHEMA_VERSION = 3;

export const metadataOf = <V extends number>(schemaVersion: V) =>
  t.intersection([
    t.type({ requestId: t.string, actorUserId: t.string, schemaVersion: t.literal(schemaVersion) }),
    // sourceFormat: on events made from an inference request body. keyId: the id of the API key
    // that made the change (since the hash chain). hash: the event's hash chain link, and hashed:
    // what the link covers ("as_stored": the event's text as stored), both set by the store.
    t.partial({ sourceFormat: SourceFormat, keyId: t.string, hash: t.string, hashed: t.literal('as_stored') }),
  ]);
/** Metadata as decoded: always at the current schema version, since decoding upcasts first. */
export const EventMetadata = metadataOf(CURRENT_SCHEMA_VERSION);
export type EventMetadata = t.TypeOf<typeof EventMetadata>;

/** Who asks for a change and in which request: what every command's metadata carries. */
export interface CommandMetadata {
  requestId: string;
  actorUserId: string;
  /** The id of the API key the request came with; absent for the service's own changes. */
  keyId?: string;
  /** The format of the inference body the change was made from, when it was made from one. */
  sourceFormat?: SourceFormat;
  /** When the change is asked for: the events' `occurredAt`. */
  now: Date;
}

/** The one metadata builder: what an event stores of the command that made it. */
export const eventMetadata = ({ requestId, actorUserId, keyId, sourceFormat }: CommandMetadata): EventMetadata => ({
  requestId,
  actorUserId,
  schemaVersion: CURRENT_SCHEMA_VERSION,
  ...(sourceFormat !== undefined ? { sourceFormat } : {}),
  ...(keyId !== undefined ? { keyId } : {}),
});

/** A domain event: its type and its data. */
export interface DomainEvent {
  type: string;
  data: unknown;
}

/** An event as read back from a stream: the domain event plus where and when it was stored. */
export interface StoredEvent<E extends DomainEvent> {
  event: E;
  metadata: EventMetadata;
  id: string;
  stream: string;
  revision: bigint;
  position: bigint;
  recordedAt: Date;
}

/** A stored event that does not match the schema of its type and version, or whose type nothing registered. */
export class MalformedEvent extends Error {
  override readonly name = 'MalformedEvent';
}

export const toNewEvent = (id: string, event: DomainEvent, metadata: EventMetadata): NewEvent => ({
  id,
  type: event.type,
  data: event.data,
  metadata,
});
