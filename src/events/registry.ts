import * as t from 'io-ts';
import { pipe } from 'fp-ts/function';
import * as E from 'fp-ts/Either';
import type { RecordedEvent } from '../eventstore/eventStore';
import { formatErrors } from '../validation';
import { CURRENT_SCHEMA_VERSION, EventMetadata, MalformedEvent, metadataOf, type DomainEvent, type StoredEvent } from './envelope';

/**
 * The table of a log's event types. Each stream type (a preset's stream, a workspace's keys
 * stream) defines its events once, with `defineStreamType`: their data codecs at the current
 * schema version, their codecs at older versions (for the published schemas), and the upcaster
 * that brings its older events up. A reader of the whole log registers the stream types it reads
 * (`eventRegistry`), and decodes through that one table; a reader of one stream type decodes
 * through a registry of that type alone. Readers select events by type (`registry.handles`):
 * an event of a type a registry does not hold is no event of theirs, never a reason to stop.
 */

/** A stored event as plain JSON, before it is checked: what upcasters read and write. */
export interface RawEvent {
  type: string;
  data: unknown;
  metadata: unknown;
}
/** Brings a stored event from schema version `from` to `to`, the metadata's `schemaVersion` included. */
export type Upcast = (raw: RawEvent, from: number, to: number) => RawEvent;

export interface StreamType<E extends DomainEvent> {
  /** What the stream type is called in docs and errors ("presets", "keys"). */
  name: string;
  /** Each event type's data codec at the current schema version, in the order the types were introduced. */
  codecs: { readonly [K in E['type']]: t.Mixed };
  /** Older schema versions' data codecs, only for the published schemas (`npm run schemas:generate`). */
  olderCodecs?: Readonly<Record<number, Partial<Record<E['type'], t.Mixed>>>>;
  /** The first schema version the stream type's events were stored at (1 when absent). */
  since?: number;
  /** Brings the stream type's older events up; absent: only the metadata's schema version changes. */
  upcast?: Upcast;
}

export const defineStreamType = <E extends DomainEvent>(streamType: StreamType<E>): StreamType<E> => streamType;

type JsonObject = Record<string, unknown>;
const isObject = (u: unknown): u is JsonObject => typeof u === 'object' && u !== null && !Array.isArray(u);

/** The upcast of a stream type whose events kept their shape: the metadata moves to the version asked for. */
export const upcastMetadataOnly: Upcast = ({ type, data, metadata }, _from, to) => ({
  type,
  data,
  metadata: isObject(metadata) ? { ...metadata, schemaVersion: to } : metadata,
});

export interface EventRegistry<E extends DomainEvent> {
  /** Every event type registered, stream type by stream type, each in the order it was introduced. */
  readonly types: readonly E['type'][];
  /** Whether an event of this type is one of the registry's. */
  handles(type: string): type is E['type'];
  /** Upcasts a stored event to the current schema version and checks it with the current codecs. */
  decode(recorded: RecordedEvent): StoredEvent<E>;
  /** Every schema version's metadata and data codecs: `npm run schemas:generate` writes `schemas/events/` from these. */
  readonly codecsBySchemaVersion: Readonly<Record<number, { metadata: t.Mixed; data: Partial<Record<E['type'], t.Mixed>> }>>;
}

/** `E`: the union of the stream types' events (the registry's reader names it: `eventRegistry<PresetEvent | KeyEvent>(…)`). */
export const eventRegistry = <E extends DomainEvent>(...streamTypes: StreamType<DomainEvent>[]): EventRegistry<E> => {
  const byType = new Map<string, { codec: t.Mixed; upcast: Upcast }>();
  for (const streamType of streamTypes) {
    for (const [type, codec] of Object.entries(streamType.codecs)) {
      if (byType.has(type)) throw new Error(`event type ${type} is registered twice (stream type ${streamType.name})`);
      byType.set(type, { codec, upcast: streamType.upcast ?? upcastMetadataOnly });
    }
  }
  const types = [...byType.keys()] as E['type'][];

  const codecsBySchemaVersion: Record<number, { metadata: t.Mixed; data: Partial<Record<E['type'], t.Mixed>> }> = {};
  for (let version = 1; version <= CURRENT_SCHEMA_VERSION; version++) {
    const data: Partial<Record<E['type'], t.Mixed>> = {};
    for (const streamType of streamTypes) {
      if (version < (streamType.since ?? 1)) continue;
      Object.assign(
        data,
        version === CURRENT_SCHEMA_VERSION ? streamType.codecs : (streamType.olderCodecs?.[version] ?? streamType.codecs),
      );
    }
    codecsBySchemaVersion[version] = { metadata: version === CURRENT_SCHEMA_VERSION ? EventMetadata : metadataOf(version), data };
  }

  const decode = (recorded: RecordedEvent): StoredEvent<E> => {
    const entry = byType.get(recorded.type);
    if (!entry) throw new MalformedEvent(`unknown event type ${recorded.type} at ${recorded.stream}@${recorded.revision}`);
    const from = (recorded.metadata as { schemaVersion?: unknown } | null)?.schemaVersion;
    if (typeof from !== 'number' || !Number.isInteger(from) || from < 1 || from > CURRENT_SCHEMA_VERSION) {
      throw new MalformedEvent(
        `event ${recorded.id} (${recorded.type}) has schema version ${String(from)}; this service reads 1 to ${CURRENT_SCHEMA_VERSION}`,
      );
    }
    const raw =
      from === CURRENT_SCHEMA_VERSION
        ? recorded
        : entry.upcast({ type: recorded.type, data: recorded.data, metadata: recorded.metadata }, from, CURRENT_SCHEMA_VERSION);
    // `is` checks what `decode` checks, several times faster (no Either, no context per field), and
    // these codecs' `decode` hands back the very input when it is valid: decode only to say what is wrong.
    if (entry.codec.is(raw.data) && EventMetadata.is(raw.metadata)) return stored(recorded, raw.data, raw.metadata);
    const decoded = pipe(
      E.Do,
      E.bind('data', () => entry.codec.decode(raw.data)),
      E.bind('metadata', () => EventMetadata.decode(raw.metadata)),
    );
    if (E.isLeft(decoded)) {
      const problems = formatErrors(decoded.left)
        .map((p) => `${p.path}: ${p.message}`)
        .join('; ');
      throw new MalformedEvent(`event ${recorded.id} (${recorded.type}) does not match its schema: ${problems}`);
    }
    return stored(recorded, decoded.right.data, decoded.right.metadata);
  };

  const stored = (recorded: RecordedEvent, data: unknown, metadata: EventMetadata): StoredEvent<E> => ({
    event: { type: recorded.type, data } as E,
    metadata,
    id: recorded.id,
    stream: recorded.stream,
    revision: recorded.revision,
    position: recorded.position,
    recordedAt: recorded.recordedAt,
  });

  return { types, handles: (type): type is E['type'] => byType.has(type), decode, codecsBySchemaVersion };
};
