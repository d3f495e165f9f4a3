import type { RawEvent } from '../events/registry';

/**
 * Upcasters of a preset's stream: each brings a stored event one schema version up, as plain JSON
 * in and out, before the current codecs validate it. Stored events are never rewritten; old shapes
 * are read forever.
 *
 * Versioning rule: adding an optional field keeps the schema version; any other change (a new
 * required field, a rename, a removal, a changed meaning) bumps CURRENT_SCHEMA_VERSION in
 * src/events/envelope.ts, adds the upcaster from the previous version here, keeps the previous
 * codecs in the stream type's `olderCodecs` (events.ts) and regenerates `schemas/events/`
 * (`npm run schemas:generate`).
 *
 * This module imports nothing from events.ts at run time, so the two cannot form a load cycle.
 */
export type { RawEvent };

export type Upcaster = (raw: RawEvent) => RawEvent;

type JsonObject = Record<string, unknown>;
const isObject = (u: unknown): u is JsonObject => typeof u === 'object' && u !== null && !Array.isArray(u);

/** v1 → v2: a version's creator is the event's actor. A malformed event is passed on for the codec to reject. */
const v1ToV2: Upcaster = ({ type, data, metadata }) => {
  const meta = isObject(metadata) ? { ...metadata, schemaVersion: 2 } : metadata;
  if ((type !== 'PresetCreated' && type !== 'PresetVersionAdded') || !isObject(data) || !isObject(data.version) || !isObject(metadata)) {
    return { type, data, metadata: meta };
  }
  // Keep a creatorId that is there: late v1 code already wrote it.
  const version = 'creatorId' in data.version ? data.version : { ...data.version, creatorId: metadata.actorUserId };
  return { type, data: { ...data, version }, metadata: meta };
};

/**
 * v2 → v3: a version made before templates is a "none" version: its text as it is, no variables, no
 * messages. Every other event changes only its schema version.
 */
const v2ToV3: Upcaster = ({ type, data, metadata }) => {
  const meta = isObject(metadata) ? { ...metadata, schemaVersion: 3 } : metadata;
  if ((type !== 'PresetCreated' && type !== 'PresetVersionAdded') || !isObject(data) || !isObject(data.version)) {
    return { type, data, metadata: meta };
  }
  const version = { ...data.version, templateFormat: 'none', variables: null, messages: [] };
  return { type, data: { ...data, version }, metadata: meta };
};

/** `UPCASTERS[n]` turns schema version n into n + 1. */
export const UPCASTERS: Readonly<Record<number, Upcaster>> = {
  1: v1ToV2,
  2: v2ToV3,
};

/** Runs the chain from `from` up to `to`; pure, the input is not changed. */
export const upcast = (raw: RawEvent, from: number, to: number): RawEvent => {
  let current = raw;
  for (let version = from; version < to; version++) {
    const step = UPCASTERS[version];
    if (!step) throw new Error(`no upcaster from schema version ${version}`);
    current = step(current);
  }
  return current;
};
