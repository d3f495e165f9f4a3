import type { FeedEvent } from '../src/eventstore/eventFeed';
import { parsePresetStreamName } from '../src/presets/streamName';
import { presetEvents } from '../src/presets/events';
import { streamFold } from './presetProjection';
import type { PresetRecord, ProjectionChange, VersionView } from './readmodel/readModel';
import { decodeFeedEvent } from '../src/presets/storedEvents';

/** A preset stream folded to its end (of what was read): what verify compares. */
export interface FoldedStream {
  stream: string;
  record: PresetRecord | null;
  versions: VersionView[];
  /** Position of the stream's last event folded. */
  last: bigint;
}

/**
 * A rebuild's (and verify's) projection, stream by stream (events as `readStreams` gives them, or
 * `readStreamsStored` as stored text, whose configs are never parsed: src/presets/storedEvents.ts):
 * each preset is folded from nothing with the same pure projection the live projector
 * uses, so nothing is read back from the read model, and its document is written once, at the end
 * of its stream, instead of once per event. A designated version is looked up among the preset's
 * own versions: the decider only designates those. Memory: one page and one preset with its
 * versions at a time. `onStream`, when given, sees each stream once folded to its end.
 */
export const foldStreams = async (
  pages: AsyncIterable<FeedEvent[]>,
  write: (changes: ProjectionChange[], events: number) => Promise<void>,
  onStream?: (folded: FoldedStream) => Promise<void>,
): Promise<number> => {
  let stream: string | undefined;
  let fold = streamFold();
  let written: PresetRecord | null = null;
  let last = 0n;
  let events = 0;
  const ended = async () => {
    if (onStream && stream !== undefined) await onStream({ stream, record: fold.current(), versions: fold.versions(), last });
  };
  for await (const page of pages) {
    const changes: ProjectionChange[] = [];
    const putCurrent = () => {
      const current = fold.current();
      if (current && current !== written) changes.push({ kind: 'putPreset', record: current });
      written = current;
    };
    for (const recorded of page) {
      // Only a preset's events make a document (a workspace's keys stream shares the prefix).
      if (!presetEvents.handles(recorded.type)) continue;
      if (recorded.stream !== stream) {
        putCurrent();
        await ended();
        if (!parsePresetStreamName(recorded.stream)) throw new Error(`${recorded.stream} is not a preset stream`);
        [stream, fold, written] = [recorded.stream, streamFold(), null];
      }
      for (const change of fold.apply(decodeFeedEvent(recorded))) if (change.kind === 'putVersion') changes.push(change);
      last = recorded.position;
    }
    // A stream that goes on in the next page is written now as it stands, and again at its end:
    // the later document has the higher revision, so it wins.
    putCurrent();
    events += page.length;
    await write(changes, page.length);
  }
  await ended();
  return events;
};
