import type { EventStore } from '../src/eventstore/eventStore';
import { decodePresetEvent as decodeEvent } from '../src/presets/events';
import { presetStreamName } from '../src/presets/streamName';
import { presetJsonOf } from './readmodel/documentJson';
import { streamFold } from './presetProjection';
import type { PresetJson, PresetRecord, VersionView } from './readmodel/readModel';

/**
 * A preset's document as it was at one revision of its stream: its events up to that revision,
 * folded with the same pure projection the projector uses. For a write's answer ("the preset as
 * this write left it") when later writes have already moved the read model on; null when the
 * stream has no such revision.
 */
export const presetAt = async (
  events: Pick<EventStore, 'read'>,
  workspaceId: string,
  slug: string,
  revision: bigint,
): Promise<PresetJson | null> => {
  const fold = streamFold();
  for (const recorded of await events.read(presetStreamName(workspaceId, slug), { limit: Number(revision) + 1 }))
    fold.apply(decodeEvent(recorded));
  const record = fold.current();
  return record && record.revision === revision ? presetJsonOf(record) : null;
};

/** A preset as it stood at a moment: its document (and as JSON), and its versions that existed then (ascending). */
export interface PresetAsOf {
  record: PresetRecord;
  json: string;
  versions: VersionView[];
}

/**
 * The preset as it stood at `at`: its stream's events recorded at or before that moment, folded
 * with the projector's pure projection (`as_of` on the reads and on resolve). Null when the preset
 * did not exist yet.
 */
export const presetAsOf = async (
  events: Pick<EventStore, 'read'>,
  workspaceId: string,
  slug: string,
  at: Date,
): Promise<PresetAsOf | null> => {
  const fold = streamFold();
  const versions = new Map<number, VersionView>();
  for (const recorded of await events.read(presetStreamName(workspaceId, slug))) {
    if (recorded.recordedAt > at) break;
    for (const change of fold.apply(decodeEvent(recorded)))
      if (change.kind === 'putVersion') versions.set(change.version.version, change.version);
  }
  const record = fold.current();
  return record && { record, json: presetJsonOf(record).json, versions: [...versions.values()].sort((a, b) => a.version - b.version) };
};
