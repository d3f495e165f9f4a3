import { LRUCache } from 'lru-cache';
import type { FeedEvent } from '../src/eventstore/eventFeed';
import { parsePresetStreamName } from '../src/presets/streamName';
import { presetEvents } from '../src/presets/events';
import { projectPresetEvent, versionToLookUp } from './presetProjection';
import type { PresetRecord, ProjectionChange, ReadModel, VersionView } from './readmodel/readModel';
import { decodeFeedEvent } from '../src/presets/storedEvents';

/**
 * The preset documents a projector wrote last, by stream, so that the next event of a stream it
 * just wrote does not read the document back and parse it. A document is taken only for the event
 * right after the revision it reflects: the projection is a fold, so the document of a stream at a
 * revision is the same whoever wrote it, and any other event (one after another projector's write,
 * an event applied again after a restart) reads the read model as before. Read models keep the
 * highest revision of a document, so a projector behind another cannot take one back in time.
 */
export interface RecentDocuments {
  /** The document of `stream` as of `revision`, if it is the last one written here. */
  at(stream: string, revision: bigint): PresetRecord | undefined;
  written(stream: string, record: PresetRecord): void;
  clear(): void;
}

export const recentDocuments = (max: number): RecentDocuments => {
  const cache = new LRUCache<string, PresetRecord>({ max });
  return {
    at: (stream, revision) => {
      const record = cache.get(stream);
      return record?.revision === revision ? record : undefined;
    },
    // A copy, so the cache does not keep the JSON made of the document and of its designated version
    // (documentJson.ts keys it by these objects): those die young, only the copy is promoted.
    written: (stream, { revision, view }) =>
      void cache.set(stream, { revision, view: { ...view, designated_version: { ...view.designated_version } } }),
    clear: () => cache.clear(),
  };
};

/**
 * Projects a run of events (in position order, parsed or as the store keeps their text: a version's
 * config then stays text on its way to the documents, storedEvents.ts) and applies the result with
 * the checkpoint of the last one in a single `apply`. Documents touched earlier in the run are
 * taken from the run (or from `recent`, the documents this projector wrote last), not the store,
 * and only the last document of each preset is written: the live projector calls this with one
 * event, a rebuild with pages of thousands. Returns the preset documents as they now are.
 */
export const projectBatch = async (
  readModel: ReadModel,
  events: FeedEvent[],
  checkpointName: string,
  recent?: RecentDocuments,
): Promise<PresetRecord[]> => {
  if (events.length === 0) return [];
  const presets = new Map<string, PresetRecord | null>();
  const versions = new Map<string, VersionView>();
  const versionChanges: ProjectionChange[] = [];
  for (const recorded of events) {
    // The projection handles a preset's events; any other (a workspace's keys, a type this release
    // does not know) has no document and only moves the checkpoint.
    if (!presetEvents.handles(recorded.type)) continue;
    const stored = decodeFeedEvent(recorded);
    const key = parsePresetStreamName(recorded.stream);
    if (!key) throw new Error(`${recorded.stream} is not a preset stream`);
    const current = presets.has(recorded.stream)
      ? presets.get(recorded.stream)!
      : (recent?.at(recorded.stream, recorded.revision - 1n) ?? (await readModel.getPreset(key.workspaceId, key.slug)));
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
  if (recent) for (const [stream, record] of presets) if (record) recent.written(stream, record);
  return written;
};
