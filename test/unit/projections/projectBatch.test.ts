import { randomUUID } from 'node:crypto';
import type { RecordedEvent } from '../../../src/eventstore/eventStore';
import type { PresetEvent } from '../../../src/presets/events';
import { presetStreamName } from '../../../src/presets/streamName';
import { projectBatch } from '../../../projections/projectBatch';
import { openMemoryReadModel } from '../../../projections/readmodel/memory';
import type { PresetRecord, ReadModel } from '../../../projections/readmodel/readModel';

/** The documents a projector wrote last (`recent`): used only where they are what the read model holds. */
const ws = randomUUID();
const stream = presetStreamName(ws, 'bot');
const version = (n: number) => ({ id: `v${n}`, number: n, config: { model: `m${n}` }, systemPrompt: `S${n}`, creatorId: 'u1' });
const events: PresetEvent[] = [
  { type: 'PresetCreated', data: { presetId: 'p1', workspaceId: ws, slug: 'bot', name: 'bot', creatorUserId: 'u1', occurredAt: '2026-01-01T00:00:00.000Z', version: version(1) } },
  { type: 'PresetVersionAdded', data: { presetId: 'p1', occurredAt: '2026-01-02T00:00:00.000Z', version: version(2) } },
  { type: 'PresetVersionAdded', data: { presetId: 'p1', occurredAt: '2026-01-03T00:00:00.000Z', version: version(3) } },
];
const recorded = (revision: number): RecordedEvent => ({
  id: `e${revision}`, type: events[revision]!.type, stream, revision: BigInt(revision), position: BigInt(revision + 1),
  data: events[revision]!.data, recordedAt: new Date(),
  metadata: { requestId: 'r', actorUserId: 'u1', sourceFormat: 'chat_completions', schemaVersion: 2 },
});

const counting = (readModel: ReadModel) => {
  const reads = { count: 0 };
  return { reads, readModel: { ...readModel, getPreset: (w: string, s: string) => (reads.count++, readModel.getPreset(w, s)) } };
};

describe('projectBatch with the documents it wrote before', () => {
  it('takes the next event of a stream from the remembered document, without reading it back', async () => {
    const { reads, readModel } = counting(openMemoryReadModel());
    const [first] = await projectBatch(readModel, [recorded(0)], 'p');
    reads.count = 0;
    const [second] = await projectBatch(readModel, [recorded(1)], 'p', { get: (s) => (s === stream ? first : undefined) });
    expect(reads.count).toBe(0);
    expect(second!.revision).toBe(1n);
    expect(second!.view.designated_version.config).toEqual({ model: 'm2' });
    expect(await readModel.getPreset(ws, 'bot')).toEqual(second);
  });

  it('reads the stored document when the remembered one is not at the revision before the event', async () => {
    const { reads, readModel } = counting(openMemoryReadModel());
    const [first] = await projectBatch(readModel, [recorded(0)], 'p');
    await projectBatch(readModel, [recorded(1)], 'p'); // by another projector, say: not remembered here
    reads.count = 0;
    const stale: PresetRecord = first!;
    const [third] = await projectBatch(readModel, [recorded(2)], 'p', { get: () => stale });
    expect(reads.count).toBe(1);
    expect(third!.revision).toBe(2n);
    expect(third!.view.designated_version.version).toBe(3);
    expect(await readModel.getPreset(ws, 'bot')).toEqual(third);
  });
});
