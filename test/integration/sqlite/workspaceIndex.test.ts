import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { filteredCountSql, filteredReadParams, filteredReadSql } from '#src/eventstore/sqlite/filteredRead';
import type { EventStoreAdapter } from '#src/eventstore/eventStore';
import { openSqliteEventStore } from '#src/eventstore/sqlite/store';
import { SCHEMA, WORKSPACE_KEY } from '#src/eventstore/sqlite/writer';
import { workspaceStreamPrefix } from '#src/events/workspaceStreams';

/**
 * The embedded store reads one workspace's events through an index of its own, made on open for a
 * file written before it existed, so a consumer of a small workspace in a large log (a webhook
 * catching up, a page of /api/v1/events, an SSE client resuming) reads that workspace's rows only.
 */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'presets-wsindex-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const big = workspaceStreamPrefix(randomUUID());
const small = workspaceStreamPrefix(randomUUID());

/** A file as the store wrote it before the index: the table alone. */
const oldFile = (file: string) => {
  const db = new Database(file);
  db.exec(SCHEMA);
  const insert = db.prepare('INSERT INTO events (id, stream, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  db.transaction(() => {
    insert.run(randomUUID(), `${small}one`, 0, 'PresetCreated', '{"n":0}', '{}', new Date().toISOString());
    for (let i = 0; i < 5000; i++) insert.run(randomUUID(), `${big}s${i % 50}`, Math.floor(i / 50), 'T', `{"n":${i}}`, '{}', '');
    insert.run(randomUUID(), `${small}two`, 0, 'PresetCreated', '{"n":1}', '{}', new Date().toISOString());
    insert.run(randomUUID(), `${small}one`, 1, 'PresetDeleted', '{"n":2}', '{}', new Date().toISOString());
  })();
  db.close();
};

/** A store over a file as written before the indexes (`oldFile`), closed after `body`. */
const onOldFile = async (body: (store: EventStoreAdapter, file: string) => Promise<void>) => {
  const file = join(dir, 'events.db');
  oldFile(file);
  const store = openSqliteEventStore({ file, writerThread: false });
  try {
    await body(store, file);
  } finally {
    await store.close();
  }
};

it('a file written before the workspace index gets it on open, and one workspace reads through it', () =>
  onOldFile(async (store, file) => {
    const db = new Database(file, { readonly: true });
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'").pluck().all();
    expect(indexes).toContain('events_workspace');
    // The shape of the store's workspace reads: found by the index, in position order, no sort.
    const plan = db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT * FROM events WHERE ${WORKSPACE_KEY} = ? AND +stream >= ? AND +stream < ? AND position > ? ORDER BY position LIMIT ?`,
      )
      .all('x', 'x', 'y', 0, 10) as { detail: string }[];
    expect(plan.map((p) => p.detail).join(' ')).toMatch(/USING INDEX events_workspace/);
    expect(plan.map((p) => p.detail).join(' ')).not.toMatch(/TEMP B-TREE/);
    db.close();

    const all = await store.readAll({ after: 0n, limit: 10, streamPrefix: small });
    expect(all.map((e) => (e.data as { n: number }).n)).toEqual([0, 1, 2]);
    const after = await store.readAll({ after: all[0]!.position, limit: 1, streamPrefix: small });
    expect(after.map((e) => e.stream)).toEqual([`${small}two`]);
    const typed = await store.readAll({ after: 0n, limit: 10, streamPrefix: small, types: ['PresetDeleted'] });
    expect(typed.map((e) => e.type)).toEqual(['PresetDeleted']);
    const backwards = await store.readAllBackwards({ limit: 2, streamPrefix: small });
    expect(backwards.map((e) => (e.data as { n: number }).n)).toEqual([2, 1]);
    expect(await store.headPosition({ streamPrefix: small })).toBe(all[2]!.position);
    // A prefix that is not one workspace's still reads as before.
    expect(await store.readAll({ after: 0n, limit: 3, streamPrefix: 'preset-' })).toHaveLength(3);
  }));

it('a read of some types of one workspace goes through the (workspace, type, position) index, one type at a time, with no scan', () =>
  onOldFile(async (store, file) => {
    const db = new Database(file, { readonly: true });
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'").pluck().all()).toContain(
      'events_workspace_type',
    );
    for (const direction of ['forwards', 'backwards'] as const) {
      const shape = { direction, workspace: true, prefix: true, types: 2, from: true };
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${filteredReadSql(shape)}`)
        .all(...filteredReadParams(shape, { workspaceKey: 'x', range: ['x', 'y'], types: ['A', 'B'], from: 0n, limit: 10 })) as {
        detail: string;
      }[];
      const details = plan.map((p) => p.detail);
      // Each type's page straight from the index in position order, then merged: what is sorted is
      // at most a page per type (the subqueries' rows), never the workspace's events.
      expect(
        details.filter((d) => /^SEARCH events USING INDEX events_workspace_type \(<expr>=\? AND type=\? AND position[<>]\?\)$/.test(d)),
      ).toHaveLength(2);
      expect(details.filter((d) => /^SCAN events\b/.test(d))).toEqual([]);
      expect(details).toContain('MERGE (UNION ALL)');
    }
    db.close();
    // The small workspace's one PresetDeleted among the big one's 5,000 events of another type.
    expect(
      (await store.readAll({ after: 0n, limit: 10, streamPrefix: small, types: ['PresetDeleted', 'Other'] })).map((e) => e.type),
    ).toEqual(['PresetDeleted']);
  }));

it("a workspace's count (a lag, a backlog) goes through its read's indexes, from the index alone while no stream of its key lacks its prefix, up to the limit", () =>
  onOldFile(async (store, file) => {
    const db = new Database(file, { readonly: true });
    // With the stream's name checked (`prefix`), each row is read; without (no stream of the
    // workspace's key lacks its prefix), the index alone answers.
    for (const prefix of [true, false])
      for (const [types, index] of [
        [undefined, 'events_workspace (<expr>=? AND position>?)'],
        [['A', 'B'], 'events_workspace_type (<expr>=? AND type=? AND position>?)'],
      ] as const) {
        const shape = { direction: 'forwards' as const, workspace: true, prefix, types: types?.length, from: true };
        const params = filteredReadParams(shape, { workspaceKey: 'x', range: prefix ? ['x', 'y'] : undefined, types, from: 0n, limit: 10 });
        const details = (db.prepare(`EXPLAIN QUERY PLAN ${filteredCountSql(shape)}`).all(...params) as { detail: string }[]).map(
          (p) => p.detail,
        );
        expect(details).toContain(`SEARCH events USING ${prefix ? '' : 'COVERING '}INDEX ${index}`);
        expect(details.filter((d) => /^SCAN events\b/.test(d))).toEqual([]);
      }
    db.close();
    expect(await store.countAll({ limit: 10_000, streamPrefix: big })).toBe(5000);
    expect(await store.countAll({ limit: 100, streamPrefix: big })).toBe(100);
    expect(await store.countAll({ limit: 10_000, streamPrefix: small })).toBe(3);
    expect(await store.countAll({ limit: 10_000, streamPrefix: small, types: ['PresetDeleted', 'Other'] })).toBe(1);
    expect(await store.countAll({ limit: 10_000 })).toBe(5003);
    // Streams of the small workspace's key that its prefix does not take (no dash after the key):
    // counted out, as a read leaves them out.
    const key = small.slice(0, -1);
    await store.append(key, [{ id: randomUUID(), type: 'PresetDeleted', data: {}, metadata: {} }], 'no_stream');
    await store.append(`${key}x`, [{ id: randomUUID(), type: 'PresetDeleted', data: {}, metadata: {} }], 'no_stream');
    await store.append(`${key}-three`, [{ id: randomUUID(), type: 'PresetDeleted', data: {}, metadata: {} }], 'no_stream');
    expect(await store.countAll({ limit: 10_000, streamPrefix: small })).toBe(4);
    expect(await store.countAll({ limit: 10_000, streamPrefix: small, types: ['PresetDeleted'] })).toBe(2);
    expect(await store.readAll({ limit: 10_000, streamPrefix: small })).toHaveLength(4);
  }));

it('pages of some types of a workspace, forwards and backwards, are exactly its events of those types in position order', async () => {
  const file = join(dir, 'events.db');
  const store = openSqliteEventStore({ file, writerThread: false });
  const types = ['Common', 'Rare', 'Other', 'Never'];
  try {
    // Two workspaces, types drawn unevenly, so a page of one type may span many of another.
    const appended: Array<{ stream: string; type: string; n: number }> = [];
    const revisions = new Map<string, bigint>();
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            ws: fc.constantFrom(big, small),
            slug: fc.constantFrom('a', 'b', 'c'),
            type: fc.constantFrom(...types.slice(0, 3), 'Common', 'Common'),
          }),
          {
            minLength: 1,
            maxLength: 30,
          },
        ),
        fc.subarray(types, { minLength: 1 }),
        fc.integer({ min: 1, max: 7 }),
        fc.nat(),
        async (writes, wanted, limit, skip) => {
          for (const w of writes) {
            const stream = `${w.ws}${w.slug}`;
            const expected = revisions.get(stream) ?? 'no_stream';
            const n = appended.length;
            await store.append(stream, [{ id: randomUUID(), type: w.type, data: { n }, metadata: {} }], expected);
            revisions.set(stream, expected === 'no_stream' ? 0n : expected + 1n);
            appended.push({ stream, type: w.type, n });
          }
          const oracle = appended.filter((e) => e.stream.startsWith(small) && wanted.includes(e.type)).map((e) => e.n);
          const forwards: number[] = [];
          for (let after = 0n; ;) {
            const page = await store.readAll({ after, limit, streamPrefix: small, types: wanted });
            forwards.push(...page.map((e) => (e.data as { n: number }).n));
            if (page.length < limit) break;
            after = page[page.length - 1]!.position;
          }
          expect(forwards).toEqual(oracle);
          const backwards: number[] = [];
          for (let before: bigint | undefined; ;) {
            const page = await store.readAllBackwards({ before, limit, streamPrefix: small, types: wanted });
            backwards.push(...page.map((e) => (e.data as { n: number }).n));
            if (page.length < limit) break;
            before = page[page.length - 1]!.position;
          }
          expect(backwards).toEqual([...oracle].reverse());
          // A count (a consumer group's lag, a webhook's backlog) is how many of them a page would hold, from any point.
          const from = skip % (oracle.length + 1);
          const after =
            from === 0 ? 0n : (await store.readAll({ after: 0n, limit: from, streamPrefix: small, types: wanted })).at(-1)!.position;
          const counted = await store.countAll({ after, limit, streamPrefix: small, types: wanted });
          expect({ from, counted }).toEqual({ from, counted: Math.min(limit, oracle.length - from) });
        },
      ),
      { numRuns: 40 },
    );
  } finally {
    await store.close();
  }
});

it("names the head of a category's streams whether its newest event is the log's newest, a few thousand back, or further", async () => {
  // The head of a prefix that is not one workspace's (a rebuild's and a verify's `preset-`): found by
  // walking back from the newest events, and past 4,096 of them through the stream index.
  const file = join(dir, 'events.db');
  const db = new Database(file);
  db.exec(SCHEMA);
  const insert = db.prepare('INSERT INTO events (id, stream, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  let audit = 0;
  const write = (stream: string, count: number): bigint => {
    let last = 0n;
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const revision = stream === 'audit-x' ? audit++ : 0;
        last = BigInt(insert.run(randomUUID(), stream, revision, 'T', '{}', '{}', '').lastInsertRowid);
      }
    })();
    return last;
  };
  const first = write('catx-a', 1);
  write('audit-x', 10_000);
  write('catx-c', 1);
  write('audit-x', 100);
  const newest = write('catx-b', 1); // the category's newest, then 1,000 events of another (a sealed log's checkpoints)
  write('audit-x', 1_000);
  const head = async () => {
    const store = openSqliteEventStore({ file, writerThread: false });
    try {
      return [await store.headPosition({ streamPrefix: 'catx-' }), await store.headPosition({ streamPrefix: 'caty-' })];
    } finally {
      await store.close();
    }
  };
  expect(await head()).toEqual([newest, null]);
  db.prepare("DELETE FROM events WHERE stream IN ('catx-b', 'catx-c')").run();
  expect(await head()).toEqual([first, null]); // 11,100 events back
  db.close();
});
