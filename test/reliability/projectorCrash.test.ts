import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openSqliteEventStore } from '#src/eventstore/sqlite/store';
import type { EventStoreAdapter, RecordedEvent } from '#src/eventstore/eventStore';
import { createLogger } from '#src/logger';
import { createPresetCommandHandler } from '#src/presets/handler';
import { crashBeforeCheckpoint, InjectedCrash } from '../support/faults';
import { projectBatch } from '#projections/projectBatch';
import { PROJECTOR_NAME, startProjector, type Projector } from '#projections/projector';
import type { ReadModel } from '#projections/readmodel/readModel';
import { openSqliteReadModel } from '#projections/readmodel/sqlite';
import { WORKSPACE_STREAM_PREFIX } from '#src/events/workspaceStreams';

/**
 * The projector "crashes" after a batch's documents are written but before its checkpoint moved
 * (test/support/faults.ts). Restarted from the stored checkpoint it replays those events, and the
 * replay must change nothing: same documents, same versions, no doubles; the checkpoint advances.
 */
const W = randomUUID();
const logger = createLogger('silent');
let dir: string;
let events: EventStoreAdapter;
let readModel: ReadModel;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'presets-projcrash-'));
  events = openSqliteEventStore({ file: join(dir, 'events.db') });
  readModel = openSqliteReadModel({ file: join(dir, 'readmodel.db') });
});
afterEach(async () => {
  await events.close();
  await readModel.close();
  rmSync(dir, { recursive: true, force: true });
});

const write = async (slugs: string[], times: number) => {
  const handle = createPresetCommandHandler({ eventStore: events });
  for (let t = 0; t < times; t++)
    for (const slug of slugs) {
      await handle({
        type: 'AddPresetVersion',
        data: { workspaceId: W, slug, config: { model: 'm/x', seed: t }, systemPrompt: `v${t}` },
        metadata: { requestId: randomUUID(), actorUserId: 'u' },
      });
    }
};
const allEvents = async (): Promise<RecordedEvent[]> => events.readAll({ limit: 10_000, streamPrefix: WORKSPACE_STREAM_PREFIX });
const head = async () => (await events.headPosition({ streamPrefix: WORKSPACE_STREAM_PREFIX }))!;
const caughtUp = async (p: Projector, to: bigint) => {
  for (let i = 0; i < 500 && p.position() !== to; i++) await sleep(10);
  expect(p.position()).toBe(to);
};
/** Everything a reader can see: documents with their revisions, every version (ascending). */
const dump = async (rm: ReadModel) => {
  const { items } = await rm.listPresets(W, { offset: 0, limit: 100 });
  return Promise.all(
    items
      .sort((a, b) => a.slug.localeCompare(b.slug))
      .map(async (p) => ({
        record: await rm.getPreset(W, p.slug),
        versions: (await rm.listVersions(p.id, { offset: 0, limit: 100 })).items,
      })),
  );
};
const fold = async () => {
  const fresh = openSqliteReadModel({ file: ':memory:' });
  await projectBatch(fresh, await allEvents(), 'fold');
  const d = await dump(fresh);
  await fresh.close();
  return d;
};
const expectGapless = (d: Awaited<ReturnType<typeof dump>>) => {
  for (const { versions } of d) expect(versions.map((v) => v.version)).toEqual(versions.map((_, i) => i + 1));
};

it('a crash between documents and checkpoint: the replay changes nothing, the checkpoint advances', async () => {
  await write(['a', 'b', 'c'], 3);
  const first = await startProjector({ feed: events, readModel, logger });
  const p1 = await head();
  await caughtUp(first, p1);
  await first.stop();

  await write(['a', 'b', 'd'], 2);
  // Crashes on its first apply and is "killed" there: its own retry is set far in the future.
  const crashing = crashBeforeCheckpoint(readModel, (n) => n === 1);
  const second = await startProjector({ feed: events, readModel: crashing, logger, retryDelayMs: 60_000 });
  for (let i = 0; i < 500 && crashing.crashes() === 0; i++) await sleep(10);
  await second.stop();
  expect(crashing.crashes()).toBe(1);
  expect(await readModel.checkpoint(PROJECTOR_NAME)).toBe(p1); // documents written, checkpoint not
  const afterCrash = await dump(readModel);
  // The projector applies a catch-up page as one batch: every event after p1 was in the crashed one.
  expect(afterCrash.find((p) => p.record!.view.slug === 'a')!.versions).toHaveLength(5);

  // The replay of the crashed events changes no document and no version.
  const crashed = await events.readAll({ after: p1, limit: 100, streamPrefix: WORKSPACE_STREAM_PREFIX });
  expect(crashed).toHaveLength(6);
  await projectBatch(readModel, crashed, PROJECTOR_NAME);
  expect(await dump(readModel)).toEqual(afterCrash);
  expect(await readModel.checkpoint(PROJECTOR_NAME)).toBe(crashed[5]!.position);

  // "Restart": a new projector from the stored checkpoint catches up to the head.
  const third = await startProjector({ feed: events, readModel, logger });
  const p2 = await head();
  await caughtUp(third, p2);
  await third.stop();
  expect(await readModel.checkpoint(PROJECTOR_NAME)).toBe(p2);
  const final = await dump(readModel);
  expect(final).toEqual(await fold());
  expectGapless(final);
});

it('the projector retries by itself from its checkpoint after repeated crashes and ends equal to a fold', async () => {
  await write(['a', 'b'], 4);
  const crashing = crashBeforeCheckpoint(readModel, (n) => n <= 3); // the first three applies
  const projector = await startProjector({ feed: events, readModel: crashing, logger, retryDelayMs: 10 });
  await caughtUp(projector, await head());
  await projector.stop();
  expect(crashing.crashes()).toBeGreaterThanOrEqual(3);
  expect(await readModel.checkpoint(PROJECTOR_NAME)).toBe(await head());
  const final = await dump(readModel);
  expect(final).toEqual(await fold());
  expectGapless(final);
});

it('a rebuild batch that crashed before its checkpoint: replaying every event over it changes nothing', async () => {
  await write(['a', 'b', 'c'], 5);
  const crashing = crashBeforeCheckpoint(readModel, () => true);
  await expect(projectBatch(crashing, await allEvents(), PROJECTOR_NAME)).rejects.toBeInstanceOf(InjectedCrash);
  expect(await readModel.checkpoint(PROJECTOR_NAME)).toBe(0n);
  const afterCrash = await dump(readModel); // already the final state: every document at its last revision
  expect(afterCrash).toEqual(await fold());
  // Restart from the stored checkpoint: all 15 events replay, one by one, over newer documents.
  const projector = await startProjector({ feed: events, readModel, logger });
  await caughtUp(projector, await head());
  await projector.stop();
  expect(await readModel.checkpoint(PROJECTOR_NAME)).toBe(await head());
  expect(await dump(readModel)).toEqual(afterCrash);
});
