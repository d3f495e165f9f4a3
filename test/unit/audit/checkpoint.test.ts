import { randomUUID } from 'node:crypto';
import { MAX_HEADS, checkpointWorkspace } from '#src/audit/checkpoint';
import { auditStreamName, decodeCheckpoint } from '#src/audit/events';
import { verifyLog } from '#src/audit/verify';
import { openMemoryEventStore } from '#src/eventstore/memory';
import { presetStreamName } from '#src/presets/streamName';

/** Checkpoints over the in-memory store (the same contract as the stored ones). */
const WS = randomUUID();
const append = (store: ReturnType<typeof openMemoryEventStore>, slug: string, expected: 'no_stream' | bigint = 'no_stream') =>
  store.append(presetStreamName(WS, slug), [{ id: randomUUID(), type: 'T', data: { slug }, metadata: { requestId: 'r' } }], expected);
const options = { actorUserId: 'test', requestId: 'test', now: new Date('2026-11-03T14:05:00Z') };

it('records the heads of the streams changed since the last checkpoint, and nothing when none changed', async () => {
  const store = openMemoryEventStore();
  await append(store, 'a');
  await append(store, 'b');
  await append(store, 'a', 0n);
  const first = await checkpointWorkspace(store, WS, options);
  expect(first!.data.heads.map((h) => [h.stream.slice(-1), h.revision])).toEqual([
    ['a', 1],
    ['b', 0],
  ]);
  expect(await checkpointWorkspace(store, WS, options)).toBeNull();
  await append(store, 'b', 0n);
  const second = await checkpointWorkspace(store, WS, options);
  expect(second!.data).toMatchObject({ after: first!.data.through, heads: [{ revision: 1 }] });
  expect(second!.revision).toBe(1n);
});

it(`splits a change of more than ${MAX_HEADS} streams into checkpoints of at most ${MAX_HEADS} heads, all verified`, async () => {
  const store = openMemoryEventStore();
  for (let i = 0; i < MAX_HEADS + 10; i++) await append(store, `p${i}`);
  await checkpointWorkspace(store, WS, options);
  const checkpoints = (await store.read(auditStreamName(WS))).map((e) => decodeCheckpoint(e).data);
  expect(checkpoints.map((c) => c.heads.length).reduce((a, b) => a + b, 0)).toBe(MAX_HEADS + 10);
  expect(checkpoints.every((c) => c.heads.length <= MAX_HEADS)).toBe(true);
  expect(checkpoints.length).toBeGreaterThan(1);
  checkpoints.slice(1).forEach((c, i) => expect(c.after).toBe(checkpoints[i]!.through));
  expect(await verifyLog(store)).toMatchObject({ ok: true, events: MAX_HEADS + 10 + checkpoints.length, checkpoints: checkpoints.length });
});
