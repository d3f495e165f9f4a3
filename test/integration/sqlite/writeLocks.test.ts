import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBatchWriter, openEventsDb, serializeEvent } from '#src/eventstore/sqlite/writer';
import { openSqliteReadModel } from '#projections/readmodel/sqlite';

/**
 * Another connection holding the write lock for a moment (the WAL checkpointer restarting the WAL,
 * or a second process) makes a write wait, not fail: the stores' write transactions take the
 * lock first (IMMEDIATE). A transaction that read first would get SQLITE_BUSY at once, with no
 * wait, once the other connection commits: an append answered 503 for nothing.
 */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'presets-locks-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Another process takes the write lock, writes `sql`, and commits after `holdMs`. Resolves once it holds the lock. */
const holdWriteLock = async (file: string, sql: string, holdMs: number) => {
  const script = `
    const db = new (require('better-sqlite3'))(${JSON.stringify(file)});
    db.exec('BEGIN IMMEDIATE');
    db.exec(${JSON.stringify(sql)});
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${holdMs});`;
  const child = spawn(process.execPath, ['-e', script], { cwd: join(__dirname, '..', '..', '..'), stdio: ['ignore', 'pipe', 'inherit'] });
  await once(child.stdout!, 'data');
  return { exited: once(child, 'exit') };
};

it('an append waits for another connection that holds the write lock', async () => {
  const file = join(dir, 'events.db');
  const db = openEventsDb(file);
  const write = createBatchWriter(db);
  expect(
    write([
      {
        stream: 'preset-w-a',
        expected: 'no_stream',
        events: [serializeEvent({ id: 'e1', type: 'T', data: {}, metadata: {} }, 'preset-w-a', 0n)],
      },
    ]).ok,
  ).toBe(true);
  const holder = await holdWriteLock(
    file,
    "INSERT INTO events (id, stream, revision, type, data, metadata, recorded_at) VALUES ('o1', 'preset-w-other', 0, 'T', '{}', '{}', '')",
    300,
  );
  const outcome = write([
    { stream: 'preset-w-a', expected: 0n, events: [serializeEvent({ id: 'e2', type: 'T', data: {}, metadata: {} }, 'preset-w-a', 1n)] },
  ]);
  // Position 3: stored after the other connection's event (2), which committed while this waited.
  expect(outcome).toEqual({ ok: true, outcomes: [{ ok: true, revision: 1n, position: 3n }] });
  await holder.exited;
  db.close();
});

it('a projection waits for another connection that holds the read model write lock', async () => {
  const file = join(dir, 'readmodel.db');
  const readModel = openSqliteReadModel({ file });
  const holder = await holdWriteLock(file, "INSERT INTO checkpoints (name, position) VALUES ('other', '7')", 300);
  await readModel.apply([], { name: 'presets', position: 5n });
  expect(await readModel.checkpoint('presets')).toBe(5n);
  expect(await readModel.checkpoint('other')).toBe(7n);
  await holder.exited;
  await readModel.close();
});
