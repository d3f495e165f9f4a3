import type { RecordedEvent } from '../src/eventstore/eventStore';
import { decodeEvent } from '../src/presets/events';
import { parsePresetStreamName } from '../src/presets/streamName';
import { isKeysStream } from '../src/keys/streamName';
import { projectPresetEvent, versionToLookUp } from './presetProjection';
import type { PresetRecord, ProjectionChange, ReadModel, VersionView } from './readmodel/readModel';

/**
 * Projects a run of events (in position order) and applies the result with the checkpoint of the
 * last one in a single `apply`. Documents touched earlier in the run are taken from the run, not
 * the store, and only the last document of each preset is written: the live projector calls this
 * with one event, a rebuild with pages of thousands. Returns the preset documents as they now are.
 */
export const projectBatch = async (readModel: ReadModel, events: RecordedEvent[], checkpointName: string): Promise<PresetRecord[]> => {
  if (events.length === 0) return [];
  const presets = new Map<string, PresetRecord | null>();
  const versions = new Map<string, VersionView>();
  const versionChanges: ProjectionChange[] = [];
  for (const recorded of events) {
    // A workspace's keys stream shares the prefix and has no document; its events only move the checkpoint.
    if (isKeysStream(recorded.stream)) continue;
    const stored = decodeEvent(recorded);
    const key = parsePresetStreamName(recorded.stream);
    if (!key) throw new Error(`${recorded.stream} is not a preset stream`);
    const current = presets.has(recorded.stream) ? presets.get(recorded.stream)! : await readModel.getPreset(key.workspaceId, key.slug);
    const wanted = versionToLookUp(stored);
    const designated = wanted
      ? (versions.get(`${wanted.presetId}/${wanted.version}`) ?? (await readModel.getVersion(wanted.presetId, wanted.version)))
      : undefined;
    for (const change of projectPresetEvent(current, stored, designated)) {
      if (change.kind === 'putPreset') presets.set(recorded.stream, change.record);
      else {
        versions.set(`${change.version.preset_id}/${change.version.version}`, change.version);
        versionChanges.push(change);
      }
    }
    if (!presets.has(recorded.stream)) presets.set(recorded.stream, current);
  }
  const written = [...presets.values()].filter((record): record is PresetRecord => record !== null);
  const presetChanges = written.map((record): ProjectionChange => ({ kind: 'putPreset', record }));
  await readModel.apply([...versionChanges, ...presetChanges], { name: checkpointName, position: events[events.length - 1]!.position });
  return written;
};
