import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { RecordedEvent } from '#src/eventstore/eventStore';
import { openSqliteEventStore } from '#src/eventstore/sqlite/store';
import { SCHEMA } from '#src/eventstore/sqlite/writer';
import { workspaceStreamPrefix } from '#src/events/workspaceStreams';

/**
 * The embedded store reads the events of given types through an index of its own (made on open for
 * a file written before it), so the key ring's catch-up at start and the audit checkpoint lookups
 * read their few events, not the whole log; and it finds the head of a prefix among the newest
 * events when it can. Each answer is checked against the plain definition: every event, in
 * position order, filtered here.
 */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'presets-typeindex-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ws = [workspaceStreamPrefix(randomUUID()), workspaceStreamPrefix(randomUUID())];

/** A file as the store wrote it before the type index: the table alone, 3,000 events. */
const oldFile = (file: string) => {
  const db = new Database(file);
  db.exec(SCHEMA);
  const insert = db.prepare('INSERT INTO events (id, stream, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const revisions = new Map<string, number>();
  db.transaction(() => {
    for (let i = 0; i < 3000; i++) {
      // Mostly Common; Rare every 97th, Rarer every 1,009th, Other every 13th; an `audit-` stream now and then, in the first 2,000 only.
      const type = i % 1009 === 5 ? 'Rarer' : i % 97 === 3 ? 'Rare' : i % 13 === 0 ? 'Other' : 'Common';
      const stream = i % 211 === 7 && i < 2000 ? `audit-${i % 2}` : `${ws[i % 2]}s${i % 40}`;
      const revision = revisions.get(stream) ?? 0;
      revisions.set(stream, revision + 1);
      insert.run(randomUUID(), stream, revision, type, `{"n":${i}}`, '{}', '');
    }
  })();
  db.close();
};

const ns = (events: RecordedEvent[]) => events.map((e) => (e.data as { n: number }).n);

it('a file written before the type index gets it on open; reads by type answer as a filter of every event would', async () => {
  const file = join(dir, 'events.db');
  oldFile(file);
  const store = openSqliteEventStore({ file, writerThread: false });
  try {
    const db = new Database(file, { readonly: true });
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'").pluck().all();
    expect(indexes).toContain('events_type');
    db.close();

    const every = await store.readAll({ after: 0n, limit: 10_000 });
    expect(every).toHaveLength(3000);
    const middle = every[1500]!.position;
    const cases = [
      { types: ['Rare'] },
      { types: ['Rarer', 'Rare'] },
      { types: ['Common'] },
      { types: ['Common', 'Other', 'Rarer'] },
      { types: ['Nothing'] },
      { types: [] as string[] },
    ].flatMap(({ types }) =>
      [undefined, 'preset-', 'audit-'].flatMap((streamPrefix) =>
        [undefined, middle].flatMap((from) => [1, 7, 5000].map((limit) => ({ types, streamPrefix, from, limit }))),
      ),
    );
    for (const { types, streamPrefix, from, limit } of cases) {
      const wanted = (e: RecordedEvent) => types.includes(e.type) && (streamPrefix === undefined || e.stream.startsWith(streamPrefix));
      const forwards = every.filter((e) => wanted(e) && (from === undefined || e.position > from)).slice(0, limit);
      const backwards = [...every]
        .reverse()
        .filter((e) => wanted(e) && (from === undefined || e.position < from))
        .slice(0, limit);
      const label = JSON.stringify({ types, streamPrefix, from: from?.toString(), limit });
      expect([label, ns(await store.readAll({ after: from, limit, streamPrefix, types }))]).toEqual([label, ns(forwards)]);
      expect([label, ns(await store.readAllBackwards({ before: from, limit, streamPrefix, types }))]).toEqual([label, ns(backwards)]);
    }
    // One workspace's events of a type still read through the workspace index, as before.
    const mine = every.filter((e) => e.stream.startsWith(ws[1]!) && e.type === 'Rare');
    expect(ns(await store.readAll({ after: 0n, limit: 100, streamPrefix: ws[1], types: ['Rare'] }))).toEqual(ns(mine));
  } finally {
    await store.close();
  }
});

it('the head of a prefix whose last event is far behind the newest is the same as one among them', async () => {
  const file = join(dir, 'events.db');
  oldFile(file);
  const store = openSqliteEventStore({ file, writerThread: false });
  try {
    const every = await store.readAll({ after: 0n, limit: 10_000 });
    const last = (prefix: string) => [...every].reverse().find((e) => e.stream.startsWith(prefix))?.position ?? null;
    // `audit-` streams last appear hundreds of events before the end; `preset-` is the newest event's.
    expect(every.length - every.findIndex((e) => e.position === last('audit-1'))).toBeGreaterThan(256);
    for (const prefix of ['preset-', ws[0]!, 'audit-', 'audit-1', 'audit-0', 'nothing-']) {
      expect([prefix, await store.headPosition({ streamPrefix: prefix })]).toEqual([prefix, last(prefix)]);
    }
  } finally {
    await store.close();
  }
});
