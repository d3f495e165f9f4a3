import { randomUUID } from 'node:crypto';
import { MAX_HEADS, checkpointWorkspace, startCheckpointer } from '#src/audit/checkpoint';
import { auditStreamName, decodeCheckpoint } from '#src/audit/events';
import { verifyLog } from '#src/audit/verify';
import { openMemoryEventStore } from '#src/eventstore/memory';
import { presetStreamName } from '#src/presets/streamName';
import { withSharedTail } from '#src/feed/sharedFeed';

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

describe('the checkpointer (startCheckpointer)', () => {
  it('each run checkpoints the workspaces changed since the last, from where that run stopped; between runs it follows nothing on the shared tail', async () => {
    const store = openMemoryEventStore();
    const feed = withSharedTail(store, { idleStopMs: 60_000 });
    const other = randomUUID();
    const checkpointer = await startCheckpointer({ store, tail: feed, intervalMs: 86_400_000 });
    try {
      await append(store, 'a');
      await store.append(
        presetStreamName(other, 'x'),
        [{ id: randomUUID(), type: 'T', data: {}, metadata: { requestId: 'r' } }],
        'no_stream',
      );
      expect(await checkpointer.runOnce()).toBe(2);
      expect(feed.subscribers).toBe(0);
      expect(await checkpointer.position()).toBe(await store.headPosition({ streamPrefix: 'preset-' }));
      expect(await checkpointer.runOnce()).toBe(0); // nothing changed since
      await append(store, 'a', 0n);
      expect(await checkpointer.runOnce()).toBe(1);
      const [newest] = await store.readAllBackwards({ streamPrefix: auditStreamName(WS), limit: 1 });
      expect(decodeCheckpoint(newest!).data.heads.map((h) => h.revision)).toEqual([1]);
      expect(feed.subscribers).toBe(0);
    } finally {
      await checkpointer.stop();
      await feed.close();
    }
  });
});
