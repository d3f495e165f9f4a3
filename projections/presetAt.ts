import type { EventStore } from '../src/eventstore/eventStore';
import { decodeEvent } from '../src/presets/events';
import { presetStreamName } from '../src/presets/streamName';
import { presetJsonOf } from './readmodel/documentJson';
import { streamFold } from './presetProjection';
import type { PresetJson } from './readmodel/readModel';

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
