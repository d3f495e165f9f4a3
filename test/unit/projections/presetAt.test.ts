import { openMemoryEventStore } from '#src/eventstore/memory';
import { parsePresetStreamName } from '#src/presets/streamName';
import { presetAt } from '#projections/presetAt';
import { projectBatch } from '#projections/projectBatch';
import { openMemoryReadModel } from '#projections/readmodel/memory';
import { makeHistory } from '#support/presetHistory';
import { WORKSPACE_STREAM_PREFIX } from '#src/events/workspaceStreams';

/** A preset's past document, folded from its events, is what the live projector showed at that revision. */
it('equals the projector’s document after each event of every stream, and is null past the end', async () => {
  const store = openMemoryEventStore();
  await makeHistory(store, { extraPresets: 3 });
  const live = openMemoryReadModel();
  let compared = 0;
  for (const event of await store.readAll({ limit: 10_000, streamPrefix: WORKSPACE_STREAM_PREFIX })) {
    await projectBatch(live, [event], 'test'); // one event at a time, as the live projector may
    const { workspaceId, slug } = parsePresetStreamName(event.stream)!;
    const shown = await live.getPresetJson(workspaceId, slug);
    expect(await presetAt(store, workspaceId, slug, event.revision)).toEqual(shown);
    compared++;
  }
  expect(compared).toBeGreaterThan(20); // the history really has events of every type to compare
  expect(await presetAt(store, parsePresetStreamName(`${WORKSPACE_STREAM_PREFIX}${'0'.repeat(36)}-x`)!.workspaceId, 'x', 0n)).toBeNull();
  const [first] = await store.readAll({ limit: 1, streamPrefix: WORKSPACE_STREAM_PREFIX });
  const { workspaceId, slug } = parsePresetStreamName(first!.stream)!;
  expect(await presetAt(store, workspaceId, slug, 999n)).toBeNull();
});
