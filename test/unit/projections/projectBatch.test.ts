import type { FeedEvent, StoredFeedEvent } from '#src/eventstore/eventFeed';
import type { RecordedEvent } from '#src/eventstore/eventStore';
import { openMemoryEventStore } from '#src/eventstore/memory';
import { presetEvents as presetTypes } from '#src/presets/events';
import { projectBatch, recentDocuments } from '#projections/projectBatch';
import { openMemoryReadModel } from '#projections/readmodel/memory';
import type { ReadModel } from '#projections/readmodel/readModel';
import { dump, makeHistory, releaseHistory } from '#support/presetHistory';
import { WORKSPACE_STREAM_PREFIX } from '#src/events/workspaceStreams';

/**
 * The live projector projects an event at a time and keeps the documents it wrote last
 * (`recentDocuments`), so that the next event of the same stream does not read its document back.
 * What it writes must be what reading back would have written, whatever the read model holds.
 */
const history = async (): Promise<RecordedEvent[]> => {
  const store = openMemoryEventStore();
  await makeHistory(store);
  await releaseHistory(store);
  const events = await store.readAll({ limit: 10_000, streamPrefix: WORKSPACE_STREAM_PREFIX });
  await store.close();
  return events;
};

/** A memory read model that counts the documents read back. */
const counted = (): { readModel: ReadModel; reads: string[] } => {
  const readModel = openMemoryReadModel();
  const reads: string[] = [];
  return {
    reads,
    readModel: {
      ...readModel,
      getPreset: (workspaceId, slug) => {
        reads.push(slug);
        return readModel.getPreset(workspaceId, slug);
      },
    },
  };
};

const oneByOne = async (readModel: ReadModel, events: FeedEvent[], recent?: ReturnType<typeof recentDocuments>) => {
  for (const event of events) await projectBatch(readModel, [event], 'test', recent);
};

describe('projecting an event at a time with the documents written last', () => {
  let events: RecordedEvent[];
  let expected: Awaited<ReturnType<typeof dump>>;
  beforeAll(async () => {
    events = await history();
    const reference = openMemoryReadModel();
    await oneByOne(reference, events); // every document read back
    expected = await dump(reference);
  });

  it('writes what reading each document back writes, and reads back only a stream first seen', async () => {
    const { readModel, reads } = counted();
    await oneByOne(readModel, events, recentDocuments(128));
    const readBack = [...reads];
    expect(await dump(readModel)).toEqual(expected);
    const presetEvents = events.filter((e) => presetTypes.handles(e.type));
    const streams = new Set(presetEvents.map((e) => e.stream));
    // Every event of the history writes its preset's document, so only each stream's first event reads.
    expect(readBack).toHaveLength(streams.size);
    expect(presetEvents.length).toBeGreaterThan(3 * streams.size);
  });

  it('each event applied twice (a restart before the checkpoint) changes nothing', async () => {
    const { readModel } = counted();
    const recent = recentDocuments(128);
    for (const event of events) {
      await projectBatch(readModel, [event], 'test', recent);
      await projectBatch(readModel, [event], 'test', recent);
    }
    expect(await dump(readModel)).toEqual(expected);
  });

  it('a projector behind another on the same read model never takes a document back to an older revision', async () => {
    const { readModel } = counted();
    const behind = recentDocuments(128);
    const half = Math.floor(events.length / 2);
    await oneByOne(readModel, events.slice(0, half), behind);
    await oneByOne(readModel, events); // another projector, ahead, with nothing cached
    // The first goes on from where it was: its documents are older than the read model's.
    await oneByOne(readModel, events.slice(half), behind);
    expect(await dump(readModel)).toEqual(expected);
  });

  it('two projectors taking turns on one read model each take a document only for the event right after it', async () => {
    const { readModel } = counted();
    const [a, b] = [recentDocuments(128), recentDocuments(128)];
    // Each sees every other event: what it holds of a stream is behind the other's last write.
    for (const [i, event] of events.entries()) await projectBatch(readModel, [event], 'test', i % 2 ? a : b);
    expect(await dump(readModel)).toEqual(expected);
  });

  it('events as stored text make the same documents in a read model that keeps objects (configs parsed there)', async () => {
    const { readModel } = counted();
    const stored = events.map((e): StoredFeedEvent => ({
      ...e,
      stored: true,
      data: JSON.stringify(e.data),
      metadata: JSON.stringify(e.metadata),
    }));
    await oneByOne(readModel, stored, recentDocuments(128));
    expect(await dump(readModel)).toEqual(expected);
  });

  it('keeps at most the documents of the streams written last', async () => {
    const { readModel, reads } = counted();
    await oneByOne(readModel, events, recentDocuments(1));
    const readBack = [...reads];
    expect(await dump(readModel)).toEqual(expected);
    const switches = events.filter(
      (e, i) =>
        presetTypes.handles(e.type) &&
        e.stream !==
          events
            .slice(0, i)
            .filter((p) => presetTypes.handles(p.type))
            .at(-1)?.stream,
    );
    expect(readBack).toHaveLength(switches.length); // one document kept: a read each time the stream changes
  });
});

describe('an event of a type the projection does not handle', () => {
  it('moves the checkpoint and nothing else, whatever stream of the workspace it is in', async () => {
    const events = await history();
    const last = events[events.length - 1]!;
    const readModel = openMemoryReadModel();
    await projectBatch(readModel, events, 'test');
    const before = await dump(readModel);
    // A later release's stream type under the workspace's prefix: a name no slug takes, and a type this release does not know.
    const stranger: RecordedEvent = {
      ...last,
      id: 'e-stranger',
      type: 'SomethingNewHappened',
      stream: `${last.stream.slice(0, last.stream.lastIndexOf('-'))}-~later`,
      revision: 0n,
      position: last.position + 1n,
      data: { anything: true },
    };
    await projectBatch(readModel, [stranger], 'test');
    expect(await dump(readModel)).toEqual(before);
    expect(await readModel.checkpoint('test')).toBe(stranger.position);
  });
});
