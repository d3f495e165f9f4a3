import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpointWorkspace } from '#src/audit/checkpoint';
import { verifyLogShare, verifyLog, type LogShareRunner } from '#src/audit/verify';
import { EVENTS_FILE } from '#src/backends';
import { openSqliteEventStore } from '#src/eventstore/sqlite/store';
import { presetStreamName } from '#src/presets/streamName';
import { main as audit } from '#scripts/audit';
import type { CliIo } from '#scripts/cli';
import { makeHistory, WORKSPACES } from '#support/presetHistory';

/**
 * The log's tamper evidence on the embedded store: a history of every event type made through the
 * real command handler and checkpointed, then changed directly in the SQLite file as someone with
 * the database could, and verified with `npm run audit:verify` (and its function).
 */
const [A, B] = WORKSPACES;
const BOT = presetStreamName(A, 'support-bot');

let dir: string;
let file: string;

const runVerify = async () => {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (l) => out.push(l), err: (l) => err.push(l), env: { DATA_DIR: dir, LOG_LEVEL: 'silent' } };
  const code = await audit(['verify'], io);
  return { code, out: out.join('\n'), err: err.join('\n') };
};
/**
 * verify's report, checked three ways: whole; in three shares of the log's positions, merged (as
 * the built command's threads do); and through the port of a store that keeps no stored text. The
 * same verdict each time, and on a clean log the same counts (a share stops at its own fault, so
 * the counts of a faulty log differ).
 */
const verify = async () => {
  const store = openSqliteEventStore({ file, writerThread: false });
  try {
    const whole = await verifyLog(store);
    let progressed = 0;
    const inThreeShares: LogShareRunner = (options, progress) =>
      Promise.all([0, 1, 2].map((index) => verifyLogShare(store, { ...options, share: { index, count: 3 } }, progress)));
    const inShares = await verifyLog(store, { onProgress: (events) => (progressed = events), threads: inThreeShares });
    // And as a store that keeps no text verifies it (EventStoreDB, memory): events read parsed.
    const parsed = await verifyLog(
      { ...store, readLogStored: undefined, readStored: undefined, readStoredMany: undefined },
      { threads: inThreeShares },
    );
    if (whole.ok) {
      expect(inShares).toEqual(whole);
      expect(progressed).toBe(whole.events);
      expect(parsed).toEqual(whole);
    } else {
      expect({ ok: inShares.ok, fault: inShares.fault }).toEqual({ ok: false, fault: whole.fault });
      expect({ ok: parsed.ok, fault: parsed.fault }).toEqual({ ok: false, fault: whole.fault });
    }
    return whole;
  } finally {
    await store.close();
  }
};
/** Changes the file as a person with the database could, outside the service. */
const tamper = (sql: (db: Database.Database) => void) => {
  const db = new Database(file);
  try {
    sql(db);
  } finally {
    db.close();
  }
};
const row = (stream: string, revision: number) =>
  new Database(file, { readonly: true })
    .prepare('SELECT position, data FROM events WHERE stream = ? AND revision = ?')
    .get(stream, revision) as {
    position: number;
    data: string;
  };

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'presets-tamper-'));
  file = join(dir, EVENTS_FILE);
  const store = openSqliteEventStore({ file, writerThread: false });
  await makeHistory(store, { extraPresets: 4 });
  const now = new Date();
  for (const ws of [A, B]) await checkpointWorkspace(store, ws, { actorUserId: 'test', requestId: 'test', now });
  await store.close();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('verifies clean after a mixed run of every event type, checkpoints included', async () => {
  const types = new Database(file, { readonly: true }).prepare('SELECT DISTINCT type FROM events ORDER BY type').pluck().all();
  expect(types).toEqual([
    'LogCheckpointed',
    'PresetCreated',
    'PresetDetailsChanged',
    'PresetLabelMoved',
    'PresetLabelRemoved',
    'PresetLabelSplit',
    'PresetStatusChanged',
    'PresetVersionAdded',
    'PresetVersionDesignated',
  ]);
  const count = new Database(file, { readonly: true }).prepare('SELECT COUNT(*) FROM events').pluck().get();
  const report = await verify();
  expect(report).toMatchObject({ ok: true, events: count, checkpoints: 2 });
  const cli = await runVerify();
  expect(cli.code).toBe(0);
  expect(cli.out).toMatch(new RegExp(`${count} events in \\d+ streams and 2 checkpoints match`));
});

it('names the event one byte of whose data was changed', async () => {
  const { position, data } = row(BOT, 2);
  const at = data.indexOf('Be brief.') + 'Be brief'.length - 1; // the "f"
  const changed = `${data.slice(0, at)}F${data.slice(at + 1)}`;
  expect(Buffer.byteLength(changed)).toBe(Buffer.byteLength(data));
  tamper((db) => db.prepare('UPDATE events SET data = ? WHERE position = ?').run(changed, position));
  const report = await verify();
  expect(report.fault).toMatchObject({ kind: 'hash_mismatch', stream: BOT, revision: 2, position: String(position) });
  const cli = await runVerify();
  expect(cli.code).toBe(1);
  expect(cli.out).toContain(`FAULT hash_mismatch at ${BOT} revision 2`);
});

it('the built command checks the chains in worker threads, a slice of the log each, with the same verdicts', async () => {
  const built = () =>
    spawnSync(process.execPath, [join(__dirname, '../../../dist/scripts/audit.js'), 'verify'], {
      env: { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'silent' },
      encoding: 'utf8',
    });
  const clean = built();
  expect(clean.stdout).toMatch(/checked in \d+ worker threads/);
  const whole = await runVerify();
  expect(
    clean.stdout
      .trim()
      .split('\n')
      .pop()!
      .replace(/\(.*\)$/, ''),
  ).toBe(
    whole.out
      .split('\n')
      .pop()!
      .replace(/\(.*\)$/, ''),
  );
  expect(clean.status).toBe(0);
  const { position, data } = row(BOT, 2);
  tamper((db) => db.prepare('UPDATE events SET data = ? WHERE position = ?').run(data.replace('Be brief.', 'Be Brief.'), position));
  const faulty = built();
  expect(faulty.status).toBe(1);
  expect(faulty.stdout).toContain(`FAULT hash_mismatch at ${BOT} revision 2 (position ${position})`);
});

it('names the revision of an event deleted from the middle of a stream', async () => {
  tamper((db) => db.prepare('DELETE FROM events WHERE stream = ? AND revision = 1').run(BOT));
  expect((await verify()).fault).toMatchObject({ kind: 'missing_event', stream: BOT, revision: 1 });
  expect((await runVerify()).out).toContain(`FAULT missing_event at ${BOT} revision 1`);
});

it('names the first of two events swapped in their stream: in log order, the revision after 2 is missing where 4 stands', async () => {
  const third = row(BOT, 3).position;
  tamper((db) => {
    const swap = db.prepare('UPDATE events SET revision = ? WHERE stream = ? AND revision = ?');
    db.transaction(() => {
      swap.run(-1, BOT, 3);
      swap.run(3, BOT, 4);
      swap.run(4, BOT, -1);
    })();
  });
  expect((await verify()).fault).toMatchObject({ kind: 'missing_event', stream: BOT, revision: 3, position: String(third) });
});

it('names an event moved later in the log, its stream, revision and content unchanged', async () => {
  const [third, fourth] = [row(BOT, 3).position, row(BOT, 4).position];
  tamper((db) => db.prepare('UPDATE events SET position = (SELECT MAX(position) + 1 FROM events) WHERE position = ?').run(third));
  const report = await verify();
  expect(report.fault).toMatchObject({ kind: 'missing_event', stream: BOT, revision: 3, position: String(fourth) });
  expect(report.fault!.message).toContain('removed, or moved');
});

it('gives the same verdicts when it keeps the last link of only a few streams at a time (the rest looked up when met)', async () => {
  const store = openSqliteEventStore({ file, writerThread: false });
  try {
    const whole = await verifyLog(store);
    expect(whole.ok).toBe(true);
    const few = await verifyLog(store, { streamsKept: 2 });
    expect(few).toEqual(whole);
  } finally {
    await store.close();
  }
  tamper((db) =>
    db
      .prepare('UPDATE events SET data = ? WHERE position = ?')
      .run(row(BOT, 2).data.replace('Be brief.', 'Be Brief.'), row(BOT, 2).position),
  );
  const store2 = openSqliteEventStore({ file, writerThread: false });
  try {
    expect((await verifyLog(store2, { streamsKept: 2 })).fault).toMatchObject({ kind: 'hash_mismatch', stream: BOT, revision: 2 });
  } finally {
    await store2.close();
  }
});

it('names a stream whose tail was cut off after a checkpoint, with the revision the checkpoint recorded', async () => {
  const last = new Database(file, { readonly: true })
    .prepare('SELECT MAX(revision) FROM events WHERE stream = ?')
    .pluck()
    .get(BOT) as number;
  tamper((db) => db.prepare('DELETE FROM events WHERE stream = ? AND revision >= ?').run(BOT, last - 1));
  const report = await verify();
  expect(report.fault).toMatchObject({ kind: 'checkpoint_head_missing', stream: BOT, revision: last });
  expect(report.fault!.message).toContain(`ends at revision ${last - 2}`);
  const cli = await runVerify();
  expect(cli.code).toBe(1);
  expect(cli.out).toContain(`FAULT checkpoint_head_missing at ${BOT} revision ${last}`);
});

it('names a checkpoint whose recorded heads were edited', async () => {
  tamper((db) => {
    const { position, data } = db
      .prepare("SELECT position, data FROM events WHERE type = 'LogCheckpointed' ORDER BY position LIMIT 1")
      .get() as {
      position: number;
      data: string;
    };
    db.prepare('UPDATE events SET data = ? WHERE position = ?').run(
      data.replace(/"revision":(\d+)/, (_m, n) => `"revision":${Number(n) + 1}`),
      position,
    );
  });
  expect((await verify()).fault).toMatchObject({ kind: 'hash_mismatch', stream: `audit-${A}`, revision: 0 });
});

it('still verifies a checkpoint re-written with other whitespace: its heads decoded and canonicalized again, not read off its text', async () => {
  tamper((db) => {
    const { position, data } = db
      .prepare("SELECT position, data FROM events WHERE type = 'LogCheckpointed' ORDER BY position LIMIT 1")
      .get() as { position: number; data: string };
    db.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify(JSON.parse(data), null, 1), position);
  });
  expect(await verify()).toMatchObject({ ok: true, checkpoints: 2 });
});

it('still verifies data re-written with other whitespace, as the chain covers its JSON, not its spacing (stored text checked first, then parsed)', async () => {
  const { position, data } = row(BOT, 2);
  tamper((db) => db.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify(JSON.parse(data), null, 2), position));
  expect(await verify()).toMatchObject({ ok: true });
});

it('names an event whose text was moved across the boundary of its data and metadata, the hashed text the same', async () => {
  // Metadata with a member named "metadata": the body the link hashes is data and metadata as one
  // text, and here a part of it can be moved from one to the other without changing that text.
  const stream = presetStreamName(A, 'boundary');
  const store = openSqliteEventStore({ file, writerThread: false });
  await store.append(stream, [{ id: randomUUID(), type: 'Noted', data: { q: 1 }, metadata: { a: 1, metadata: { x: 2 } } }], 'no_stream');
  await store.close();
  expect(await verify()).toMatchObject({ ok: true });
  const stored = new Database(file, { readonly: true })
    .prepare('SELECT position, data, metadata FROM events WHERE stream = ?')
    .get(stream) as {
    position: number;
    data: string;
    metadata: string;
  };
  expect([stored.data, stored.metadata.slice(0, 27)]).toEqual(['{"q":1}', '{"a":1,"metadata":{"x":2},"']);
  const body = (data: string, metadata: string) => `${data},"metadata":${metadata.replace(/,"hash":"[0-9a-f]{64}"}$/, '}')}`;
  const moved = { data: '{"q":1},"metadata":{"a":1', metadata: stored.metadata.slice('{"a":1,"metadata":'.length) };
  expect(body(moved.data, moved.metadata)).toBe(body(stored.data, stored.metadata));
  tamper((db) =>
    db.prepare('UPDATE events SET data = ?, metadata = ? WHERE position = ?').run(moved.data, moved.metadata, stored.position),
  );
  expect((await verify()).fault).toMatchObject({ kind: 'hash_mismatch', stream, revision: 0 });
});

it('names an event whose keys were put in another order, every value the same, even in the sorted order older links covered', async () => {
  const stream = presetStreamName(A, 'ordered');
  const store = openSqliteEventStore({ file, writerThread: false });
  const data = { schema: { type: 'object', properties: { reasoning: { type: 'string' }, answer: { type: 'string' } } }, name: 'x' };
  await store.append(stream, [{ id: randomUUID(), type: 'Noted', data, metadata: { requestId: 'r' } }], 'no_stream');
  await store.close();
  expect(await verify()).toMatchObject({ ok: true });
  const { position } = row(stream, 0);
  tamper((db) => db.prepare('UPDATE events SET data = ? WHERE position = ?').run(canonicalize(data), position));
  expect((await verify()).fault).toMatchObject({ kind: 'hash_mismatch', stream, revision: 0, position: String(position) });
});

it('verifies an event as presets 0.1.0 stored it: keys sorted, linked over RFC 8785, no `hashed`, integer-like keys too', async () => {
  // Written here as that release's writer did, from the formula in docs/events.md, not the service's code.
  const stream = presetStreamName(A, 'older');
  const data = { config: { logit_bias: { '10': 1, '9': -1 }, temperature: 0.5, model: 'm' }, systemPrompt: 'Be brief.' };
  const metadata = { requestId: 'r', actorUserId: 'u', schemaVersion: 2 };
  const body = canonicalize({ type: 'Noted', data, metadata, stream, revision: '0' });
  const hash = createHash('sha256').update(Buffer.alloc(32)).update(body).digest('hex');
  tamper((db) =>
    db
      .prepare('INSERT INTO events (id, stream, revision, type, data, metadata, recorded_at) VALUES (?, ?, 0, ?, ?, ?, ?)')
      .run(randomUUID(), stream, 'Noted', canonicalize(data), canonicalize({ ...metadata, hash }), new Date().toISOString()),
  );
  expect(await verify()).toMatchObject({ ok: true });
  // Its stored text changed, values the same: the RFC 8785 form still links (what it was linked over).
  const { position, data: stored } = row(stream, 0);
  tamper((db) => db.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify(JSON.parse(stored)), position));
  expect(await verify()).toMatchObject({ ok: true });
});
