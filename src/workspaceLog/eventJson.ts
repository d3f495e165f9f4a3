import type { ApiEvent } from '../apiTypes/event';
import type { RecordedEvent } from '../eventstore/eventStore';
import type { StoredFeedEvent } from '../eventstore/eventFeed';
import * as t from 'io-ts';
import { refine } from '../formats/codecs';
import { CURRENT_SCHEMA_VERSION, EventMetadata } from '../events/envelope';
import { presetEventDataCodecs } from '../presets/events';
import { ApiKeyCreatedPublicData, keyEventDataCodecs } from '../keys/events';
import { decodeWorkspaceEvent, WORKSPACE_EVENT_TYPES, type WorkspaceEvent, type WorkspaceEventType } from './catalog';
import { parsedEvent } from '../eventstore/eventFeed';

/**
 * An event as the API shows it, in one shape for /presets/{slug}/events, /events and the
 * event stream. A revision counts one preset's events, so it fits a JSON number; a position can
 * exceed 2^64 (EventStoreDB's packed commit/prepare), so it is a decimal string.
 */
const Position = refine(t.string, (s) => /^\d+$/.test(s), 'event position (a decimal integer string)', { pattern: '^\\d+$' });
const ofType = <T extends WorkspaceEventType, C extends t.Mixed>(type: T, data: C) => t.type({ type: t.literal(type), data });
export const EventJson = t.intersection(
  [
    t.type({
      id: t.string,
      stream: t.string,
      revision: refine(t.number, (n) => Number.isSafeInteger(n) && n >= 0, 'revision', { type: 'integer', minimum: 0 }),
      position: Position,
      recorded_at: t.string,
      metadata: EventMetadata,
    }),
    t.union([
      ofType('PresetCreated', presetEventDataCodecs.PresetCreated),
      ofType('PresetVersionAdded', presetEventDataCodecs.PresetVersionAdded),
      ofType('PresetVersionDesignated', presetEventDataCodecs.PresetVersionDesignated),
      ofType('PresetDetailsChanged', presetEventDataCodecs.PresetDetailsChanged),
      ofType('PresetStatusChanged', presetEventDataCodecs.PresetStatusChanged),
      ofType('PresetLabelMoved', presetEventDataCodecs.PresetLabelMoved),
      ofType('PresetLabelRemoved', presetEventDataCodecs.PresetLabelRemoved),
      ofType('PresetLabelSplit', presetEventDataCodecs.PresetLabelSplit),
      // Without the key's hash: only the replicas' key rings need it.
      ofType('ApiKeyCreated', ApiKeyCreatedPublicData),
      ofType('ApiKeyRevoked', keyEventDataCodecs.ApiKeyRevoked),
      ofType('PresetLabelProtected', presetEventDataCodecs.PresetLabelProtected),
      ofType('LabelMoveProposed', presetEventDataCodecs.LabelMoveProposed),
      ofType('LabelMoveApproved', presetEventDataCodecs.LabelMoveApproved),
      ofType('LabelMoveRejected', presetEventDataCodecs.LabelMoveRejected),
      ofType('LabelMoveWithdrawn', presetEventDataCodecs.LabelMoveWithdrawn),
      ofType('PresetChangeProposed', presetEventDataCodecs.PresetChangeProposed),
    ]),
  ],
  'Event',
);

/** Every event type has its variant above (checked once, when the module loads: a type left out would be refused by the contract tests anyway). */
const covered = new Set(
  (EventJson.types[1] as t.UnionType<t.Mixed[]>).types.map((v) => (v as t.InterfaceType<{ type: t.LiteralC<string> }>).props.type.value),
);
const missing = WORKSPACE_EVENT_TYPES.filter((type) => !covered.has(type));
if (missing.length > 0) throw new Error(`EventJson has no variant for ${missing.join(', ')}`);
export type EventJson = t.TypeOf<typeof EventJson>;
/** The shape the service's clients import (src/apiTypes/event.ts) is this codec's: if one changes and the other does not, this fails to compile. */
const _clientsShape = (event: EventJson): ApiEvent => event;

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
  const stored = decodeWorkspaceEvent(recorded);
  return {
    id: stored.id,
    type: stored.event.type,
    stream: stored.stream,
    revision: revisionNumber(stored.revision),
    position: stored.position.toString(),
    recorded_at: stored.recordedAt.toISOString(),
    data: publicData(stored.event),
    metadata: stored.metadata,
  } as EventJson; // type and data come from one event, so they match
};

/**
 * An event's JSON as one line of text, made once per event object and kept while the object
 * lives: the shared tail (src/feed/sharedTail.ts) hands one object to every stream that follows
 * it, so a hundred streams of a workspace decode and serialize a new event once.
 */
const texts = new WeakMap<RecordedEvent, { position: string; type: string; text: string }>();
export const eventJsonText = (recorded: RecordedEvent): { position: string; type: string; text: string } => {
  let found = texts.get(recorded);
  if (!found) {
    const json = eventJson(recorded);
    texts.set(recorded, (found = { position: json.position, type: json.type, text: JSON.stringify(json) }));
  }
  return found;
};

/** What an event's data shows through the API: all of it, but for a created key's hash. */
const publicData = (event: WorkspaceEvent): unknown => {
  if (event.type !== 'ApiKeyCreated') return event.data;
  const { keySha256: _hash, ...shown } = event.data;
  return shown;
};

const KNOWN_TYPES: ReadonlySet<string> = new Set(WORKSPACE_EVENT_TYPES);

const VERSION_KEY = '"schemaVersion":';
/**
 * A stored metadata text's `schemaVersion`, as `JSON.parse(metadata).schemaVersion` gives it.
 * Read off the text when that is certain (a third of this endpoint's time went to parsing it):
 * with no `{` after the first, nothing is nested, so the key, preceded by `{` or `,` (a quote
 * that opens a key) and found once, is the object's own; an integer value ends at `,` or `}`.
 * Anything else is parsed.
 */
export const schemaVersionOf = (metadata: string): unknown => {
  const key = metadata.indexOf(VERSION_KEY);
  if (key > 0 && metadata.indexOf('{', 1) === -1 && metadata.indexOf(VERSION_KEY, key + 1) === -1) {
    const before = metadata[key - 1];
    const value = /^(0|[1-9]\d{0,8})[,}]/.exec(metadata.slice(key + VERSION_KEY.length, key + VERSION_KEY.length + 11));
    if ((before === '{' || before === ',') && value && metadata.startsWith('{')) return Number(value[1]);
  }
  const parsed: unknown = JSON.parse(metadata);
  return typeof parsed === 'object' && parsed !== null ? (parsed as { schemaVersion?: unknown }).schemaVersion : undefined;
};

/**
 * An event's JSON text as `eventJson` shows it (the same value: the tests parse both and compare),
 * made from the store's own text where that text is what would be shown: an event of a known type
 * at the current schema version (nothing to upcast) that is not a created key (its hash is left
 * out) keeps its stored data and metadata text, and only its version is read from the metadata
 * (`schemaVersionOf`). Its data is not parsed and checked against its schema again: an endpoint
 * that passes the log on hands out what the log holds (the service's own deciders wrote it, and
 * `audit:verify` proves it unchanged), where checking it would cost most of a batch's time and one
 * malformed event would hold its consumer group up for good. Any other event goes through
 * `eventJson`, which parses, upcasts and checks.
 */
export const storedEventJsonText = (e: StoredFeedEvent): string => {
  if (
    e.type !== 'ApiKeyCreated' &&
    KNOWN_TYPES.has(e.type) &&
    e.data.startsWith('{') &&
    e.data.endsWith('}') &&
    schemaVersionOf(e.metadata) === CURRENT_SCHEMA_VERSION
  ) {
    return (
      `{"id":${JSON.stringify(e.id)},"type":${JSON.stringify(e.type)},"stream":${JSON.stringify(e.stream)},` +
      `"revision":${revisionNumber(e.revision)},"position":"${e.position}","recorded_at":"${e.recordedAt.toISOString()}",` +
      `"data":${e.data},"metadata":${e.metadata}}`
    );
  }
  return JSON.stringify(eventJson(parsedEvent(e)));
};

/** An event's JSON text, from either shape a feed hands out. */
export const feedEventJsonText = (e: RecordedEvent | StoredFeedEvent): string =>
  'stored' in e ? storedEventJsonText(e) : JSON.stringify(eventJson(e));
