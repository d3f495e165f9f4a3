import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as E from 'fp-ts/Either';
import { EVENTS_FILE, READ_MODEL_FILE } from '#src/backends';
import { loadConfig, type Config } from '#src/config';
import type { EventStoreAdapter } from '#src/eventstore/eventStore';
import { openSqliteEventStore } from '#src/eventstore/sqlite/store';
import { createLogger } from '#src/logger';
import { createPresetCommandHandler } from '#src/presets/handler';
import { PROJECTOR_NAME } from '#projections/projector';
import type { Projector } from '#projections/projector';
import { startProjectorThread } from '#projections/projectorThread';
import { compiledEntry } from '#support/threads';
import type { PresetJson } from '#projections/readmodel/readModel';
import { openSqliteReadModel } from '#projections/readmodel/sqlite';

/**
 * The built service projects in a worker thread (dist/projections/projectorWorker.js, compiled by
 * the jest globalSetup). What the main thread relies on: every append is announced with the
 * document as the read model now holds it, the checkpoint is stored, and stop() drains and ends
 * the thread.
 */
const WORKER = compiledEntry('src/workers/projector');
const W = randomUUID();
let dir: string;
let config: Config;
let store: EventStoreAdapter;
let thread: Projector | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'presets-projthread-'));
  const loaded = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
  if (E.isLeft(loaded)) throw new Error(loaded.left.join('; '));
  config = loaded.right;
  store = openSqliteEventStore({ file: join(dir, EVENTS_FILE), writerThread: false, pollIntervalMs: 60_000 });
});
afterEach(async () => {
  await thread?.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const announced = (t: Projector, slug: string, revision: bigint) =>
  new Promise<PresetJson>((resolve) => {
    const on = (_position: bigint, documents: PresetJson[]) => {
      const doc = documents.find((d) => d.slug === slug && d.revision === revision);
      if (doc) {
        t.events.off('projected', on);
        resolve(doc);
      }
    };
    t.events.on('projected', on);
  });

it('announces each appended preset as the read model holds it, right after its commit', async () => {
  thread = await startProjectorThread({ entry: WORKER, data: { config, pollIntervalMs: 60_000 }, logger: createLogger('silent') });
  expect(thread.healthy()).toBe(true);
  const handle = createPresetCommandHandler({ eventStore: store });
  const first = announced(thread, 'alpha', 0n);
  await handle({
    type: 'AddPresetVersion',
    data: { workspaceId: W, slug: 'alpha', config: { model: 'm/a', temperature: 0.2 }, systemPrompt: 'one' },
    metadata: { requestId: randomUUID(), actorUserId: 'u' },
  });
  // The thread's store polls once a minute here: only the commit's announcement makes these come before the test times out.
  const doc = await first;
  const view = JSON.parse(doc.json) as { slug: string; designated_version: { version: number; config: unknown; system_prompt: string } };
  expect(view).toMatchObject({
    slug: 'alpha',
    designated_version: { version: 1, config: { model: 'm/a', temperature: 0.2 }, system_prompt: 'one' },
  });

  const second = announced(thread, 'alpha', 1n);
  await handle({
    type: 'AddPresetVersion',
    data: { workspaceId: W, slug: 'alpha', config: { model: 'm/b' }, systemPrompt: 'two' },
    metadata: { requestId: randomUUID(), actorUserId: 'u' },
  });
  expect(JSON.parse((await second).json)).toMatchObject({ designated_version: { version: 2, system_prompt: 'two' } });

  const head = await store.headPosition();
  expect(thread.position()).toBe(head);
  const readModel = openSqliteReadModel({ file: join(dir, READ_MODEL_FILE) });
  try {
    expect((await readModel.getPresetJson(W, 'alpha'))?.json).toBe((await second).json);
    expect(await readModel.checkpoint(PROJECTOR_NAME)).toBe(head);
  } finally {
    await readModel.close();
  }
});

it('stop() ends the thread; a later start resumes from the stored checkpoint', async () => {
  const handle = createPresetCommandHandler({ eventStore: store });
  for (const slug of ['a', 'b', 'c']) {
    await handle({
      type: 'AddPresetVersion',
      data: { workspaceId: W, slug, config: { model: 'm/x' }, systemPrompt: '' },
      metadata: { requestId: randomUUID(), actorUserId: 'u' },
    });
  }
  const first = await startProjectorThread({ entry: WORKER, data: { config }, logger: createLogger('silent') });
  const caughtUp = once(first.events, 'projected');
  await caughtUp;
  await first.stop();
  expect(first.healthy()).toBe(false);

  await handle({
    type: 'AddPresetVersion',
    data: { workspaceId: W, slug: 'd', config: { model: 'm/x' }, systemPrompt: '' },
    metadata: { requestId: randomUUID(), actorUserId: 'u' },
  });
  thread = await startProjectorThread({ entry: WORKER, data: { config }, logger: createLogger('silent') });
  const [, documents] = (await once(thread.events, 'projected')) as [bigint, PresetJson[]];
  // Only the event after the checkpoint is projected again.
  expect(documents.map((d) => d.slug)).toEqual(['d']);
});

it('fails to start, without leaving a thread behind, when the data directory cannot be opened', async () => {
  const broken = { ...config, dataDir: join(dir, 'missing', 'nested') };
  await expect(
    startProjectorThread({ entry: WORKER, data: { config: broken }, logger: createLogger('silent'), restartDelayMs: 10 }),
  ).rejects.toThrow();
});

it('starts a new thread when the projector thread dies, and is healthy again', async () => {
  // A stand-in thread that speaks the same protocol (src/threads/endpoint.ts): the first one dies right after starting.
  const fake = join(dir, 'dying-worker.js');
  writeFileSync(
    fake,
    `
    const { parentPort, workerData } = require('node:worker_threads');
    const { appendFileSync, readFileSync } = require('node:fs');
    const spawns = workerData.config.dataDir + '/spawns';
    appendFileSync(spawns, 'x');
    parentPort.on('message', (m) => {
      if (m.kind !== 'call') return;
      parentPort.postMessage({ kind: 'reply', id: m.id, value: null });
      if (m.method === 'stop') setImmediate(() => parentPort.close());
    });
    parentPort.postMessage({ kind: 'event', name: 'started', args: [null] });
    parentPort.postMessage({ kind: 'event', name: 'ready', args: [] });
    if (readFileSync(spawns, 'utf8').length === 1) setTimeout(() => process.exit(1), 20);
  `,
  );
  thread = await startProjectorThread({ entry: fake, data: { config }, logger: createLogger('silent'), restartDelayMs: 50 });
  const spawns = () => (existsSync(join(dir, 'spawns')) ? readFileSync(join(dir, 'spawns'), 'utf8').length : 0);
  for (let i = 0; i < 200 && !(spawns() === 2 && thread.healthy()); i++) await sleep(10);
  expect(spawns()).toBe(2);
  expect(thread.healthy()).toBe(true);
  await thread.stop();
  expect(thread.healthy()).toBe(false);
  thread = undefined;
});
