import * as t from 'io-ts';
import { pipe } from 'fp-ts/function';
import * as E from 'fp-ts/Either';
import type { NewEvent, RecordedEvent } from '../eventstore/eventStore';
import { formatErrors } from '../validation';

/**
 * The published event contract. Every read of the store decodes through these codecs, so a
 * malformed event is a loud error, never a silently wrong read model.
 * Schema versioning rule: adding an optional field keeps the version; anything else bumps
 * `schemaVersion` in the metadata, and an upcaster brings old versions to the current shape.
 */
export const SOURCE_FORMATS = ['chat_completions', 'messages', 'responses'] as const;
export const SourceFormat = t.keyof({ chat_completions: null, messages: null, responses: null });
export type SourceFormat = t.TypeOf<typeof SourceFormat>;

export const CURRENT_SCHEMA_VERSION = 1;

export const EventMetadata = t.intersection([
  t.type({ requestId: t.string, actorUserId: t.string, schemaVersion: t.number }),
  // Present on events made from an inference request body.
  t.partial({ sourceFormat: SourceFormat }),
]);
export type EventMetadata = t.TypeOf<typeof EventMetadata>;

const Config = t.record(t.string, t.unknown);

export const VersionData = t.type({
  id: t.string,
  number: t.number,
  config: Config,
  systemPrompt: t.string,
  creatorId: t.string,
});
export type VersionData = t.TypeOf<typeof VersionData>;

export const PresetCreatedData = t.type({
  presetId: t.string,
  workspaceId: t.string,
  slug: t.string,
  name: t.string,
  creatorUserId: t.string,
  version: VersionData,
  occurredAt: t.string,
});
export const PresetVersionAddedData = t.type({
  presetId: t.string,
  version: VersionData,
  occurredAt: t.string,
});

export const PresetVersionDesignatedData = t.type({
  presetId: t.string,
  versionId: t.string,
  versionNumber: t.number,
  previousVersionNumber: t.number,
  occurredAt: t.string,
});

export type PresetCreated = { type: 'PresetCreated'; data: t.TypeOf<typeof PresetCreatedData> };
export type PresetVersionAdded = { type: 'PresetVersionAdded'; data: t.TypeOf<typeof PresetVersionAddedData> };
export type PresetVersionDesignated = { type: 'PresetVersionDesignated'; data: t.TypeOf<typeof PresetVersionDesignatedData> };
export type PresetEvent = PresetCreated | PresetVersionAdded | PresetVersionDesignated;
export type PresetEventType = PresetEvent['type'];

export const eventDataCodecs = {
  PresetCreated: PresetCreatedData,
  PresetVersionAdded: PresetVersionAddedData,
  PresetVersionDesignated: PresetVersionDesignatedData,
} as const;

/** An event as read back from a stream: the domain event plus where and when it was stored. */
export interface StoredPresetEvent {
  event: PresetEvent;
  metadata: EventMetadata;
  id: string;
  stream: string;
  revision: bigint;
  position: bigint;
  recordedAt: Date;
}

export class MalformedEvent extends Error {
  override readonly name = 'MalformedEvent';
}

export const decodeEvent = (recorded: RecordedEvent): StoredPresetEvent => {
  const codec = (eventDataCodecs as Record<string, t.Mixed>)[recorded.type];
  if (!codec) throw new MalformedEvent(`unknown event type ${recorded.type} at ${recorded.stream}@${recorded.revision}`);
  const decoded = pipe(
    E.Do,
    E.bind('data', () => codec.decode(recorded.data)),
    E.bind('metadata', () => EventMetadata.decode(recorded.metadata)),
  );
  if (E.isLeft(decoded)) {
    const problems = formatErrors(decoded.left).map((p) => `${p.path}: ${p.message}`).join('; ');
    throw new MalformedEvent(`event ${recorded.id} (${recorded.type}) does not match its schema: ${problems}`);
  }
  return {
    event: { type: recorded.type, data: decoded.right.data } as PresetEvent,
    metadata: decoded.right.metadata,
    id: recorded.id,
    stream: recorded.stream,
    revision: recorded.revision,
    position: recorded.position,
    recordedAt: recorded.recordedAt,
  };
};

export const toNewEvent = (id: string, event: PresetEvent, metadata: EventMetadata): NewEvent => ({
  id,
  type: event.type,
  data: event.data,
  metadata,
});
