import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createLogger } from '#src/logger';
import { checkpointRound, checkpointWal, openForCheckpoints } from '#src/sqlite/walCheckpoints';
import { startWalCheckpointer, type WalCheckpointer } from '#src/sqlite/walCheckpointer';
import { compiledEntry } from '#support/threads';

/**
 * The service's WAL checkpoints: made on a connection of their own (in the built service a thread
 * of its own), so a commit never stops to copy the WAL, and the WAL stays bounded under writes
 * that never pause.
 */
const WORKER = compiledEntry('src/sqlite/walCheckpointerWorker');
let dir: string;
let writer: Database.Database;
let checkpointer: WalCheckpointer | undefined;

/** A connection that writes like the stores do, but never checkpoints by itself: only the checkpointer can. */
const openWriter = (file: string) => {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.pragma('busy_timeout = 5000');
  db.exec('CREATE TABLE IF NOT EXISTS docs (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  return db;
};
const PAGE_OF_TEXT = 'x'.repeat(4000);
/** One commit of about `pages` new pages. */
const commit = (db: Database.Database, pages: number) =>
  db
    .transaction(() => {
      for (let i = 0; i < pages; i++) db.prepare('INSERT INTO docs (body) VALUES (?)').run(PAGE_OF_TEXT);
    })
    .immediate();
/** The WAL file's size in pages: a restarted WAL is written again from its beginning, so it stops growing. */
const walFilePages = (file: string) => Math.round(statSync(`${file}-wal`).size / (4096 + 24));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'presets-wal-'));
  writer = openWriter(join(dir, 'a.db'));
});
afterEach(async () => {
  await checkpointer?.stop();
  checkpointer = undefined;
  writer.close();
  rmSync(dir, { recursive: true, force: true });
});

it('copies the WAL into the database without restarting it while it is short', () => {
  commit(writer, 50);
  const db = openForCheckpoints(join(dir, 'a.db'));
  const result = checkpointWal(db, 1000);
  expect(result.walPages).toBeGreaterThanOrEqual(50);
  expect(result.copiedPages).toBe(result.walPages);
  expect(result.restarted).toBe(false);
  db.close();
});

it('keeps the WAL bounded under commits that never pause, where without it the WAL only grows', () => {
  const file = join(dir, 'a.db');
  const db = openForCheckpoints(file);
  for (let i = 0; i < 60; i++) {
    commit(writer, 20);
    if (i % 3 === 2) checkpointRound([{ file, db }], 200);
  }
  // Restarted once past 200 pages; between two rounds 3 commits of ~20 pages are added.
  expect(walFilePages(file)).toBeLessThan(200 + 3 * 25);

  const other = openWriter(join(dir, 'b.db'));
  for (let i = 0; i < 60; i++) commit(other, 20);
  expect(walFilePages(join(dir, 'b.db'))).toBeGreaterThan(60 * 20);
  other.close();
  db.close();
});

it('reports a file it cannot checkpoint and goes on with the others', () => {
  const good = { file: join(dir, 'a.db'), db: openForCheckpoints(join(dir, 'a.db')) };
  const closed = { file: join(dir, 'closed.db'), db: openWriter(join(dir, 'closed.db')) };
  closed.db.close();
  commit(writer, 5);
  const round = checkpointRound([closed, good], 1000);
  expect(round.results[0]).toBeNull();
  expect(round.failures).toEqual([{ file: closed.file, message: expect.stringMatching(/not open/) }]);
  expect(round.results[1]).toMatchObject({ file: good.file, restarted: false });
  good.db.close();
});

it('runs in a worker thread in the built service: each round restarts a long WAL, and stop ends the thread', async () => {
  const file = join(dir, 'a.db');
  checkpointer = await startWalCheckpointer({ files: [file], intervalMs: 60_000, restartAbovePages: 100 }, createLogger('silent'), {
    entry: WORKER,
  });
  expect(checkpointer.threaded).toBe(true);
  commit(writer, 150);
  const [result] = await checkpointer.checkpointNow();
  expect(result).toMatchObject({ file, restarted: true });
  // The next commits write the WAL again from its beginning: the file does not grow.
  const before = walFilePages(file);
  commit(writer, 50);
  expect(walFilePages(file)).toBe(before);
  await checkpointer.stop();
  checkpointer = undefined;
});

it('fails to start on a file that does not exist, rather than creating an empty database', async () => {
  // (better-sqlite3's error class belongs to whichever test file loaded the addon first: matched by code.)
  await expect(startWalCheckpointer({ files: [join(dir, 'missing.db')] }, createLogger('silent'), { entry: WORKER })).rejects.toThrow(
    /SQLITE_CANTOPEN|unable to open/,
  );
  await expect(startWalCheckpointer({ files: [join(dir, 'missing.db')] }, createLogger('silent'), { entry: false })).rejects.toMatchObject({
    code: 'SQLITE_CANTOPEN',
  });
});
