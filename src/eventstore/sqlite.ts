import Database from 'better-sqlite3';
import {
  ConcurrencyConflict, StoreUnavailable,
  type AppendResult, type EventStore, type ExpectedRevision, type NewEvent, type RecordedEvent, type StreamName,
} from './eventStore';
import { createPoller } from './poller';
import { prefixRange, storeFault } from './sqliteSupport';

/**
 * The embedded event store: one SQLite file, WAL journal, `synchronous=FULL`, so an append that
 * resolved is on disk. The row id is the position; AUTOINCREMENT never reuses one.
 *
 * Group commit: appends that arrive in the same turn of the event loop share one transaction and
 * one fsync. Each is still checked against its own expected revision (inside a savepoint), so a
 * conflict fails only that append.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position    INTEGER PRIMARY KEY AUTOINCREMENT,
  id          TEXT    NOT NULL UNIQUE,
  stream      TEXT    NOT NULL,
  revision    INTEGER NOT NULL,
  type        TEXT    NOT NULL,
  data        TEXT    NOT NULL,
  metadata    TEXT    NOT NULL,
  recorded_at TEXT    NOT NULL,
  UNIQUE (stream, revision)
);`;

interface Row { position: bigint; id: string; stream: string; revision: bigint; type: string; data: string; metadata: string; recorded_at: string }
interface PendingAppend {
  stream: StreamName; events: NewEvent[]; expected: ExpectedRevision;
  resolve: (r: AppendResult) => void; reject: (e: unknown) => void;
}

const toRecorded = (row: Row): RecordedEvent => ({
  id: row.id, type: row.type, stream: row.stream, revision: row.revision, position: row.position,
  data: JSON.parse(row.data), metadata: JSON.parse(row.metadata), recordedAt: new Date(row.recorded_at),
});

export interface SqliteEventStoreOptions {
  file: string;
  /** How often a caught-up subscription looks for events appended by other processes. */
  pollIntervalMs?: number;
  /** At most this many appends share one transaction. */
  maxBatch?: number;
}

export const openSqliteEventStore = (options: SqliteEventStoreOptions): EventStore => {
  const db = new Database(options.file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  const q = {
    current: db.prepare('SELECT MAX(revision) AS revision FROM events WHERE stream = ?').safeIntegers(true),
    byId: db.prepare('SELECT stream, revision, position FROM events WHERE id = ?').safeIntegers(true),
    insert: db.prepare(
      'INSERT INTO events (id, stream, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).safeIntegers(true),
    read: db.prepare('SELECT * FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?').safeIntegers(true),
    readAll: db.prepare('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?').safeIntegers(true),
    // `+stream`: walk the row ids in order; with the (stream, revision) index SQLite would sort
    // every matching row for each page, and paging through the whole store would be quadratic.
    readAllPrefix: db.prepare(
      'SELECT * FROM events WHERE +stream >= ? AND +stream < ? AND position > ? ORDER BY position LIMIT ?',
    ).safeIntegers(true),
    head: db.prepare('SELECT MAX(position) AS position FROM events').safeIntegers(true),
    headPrefix: db.prepare('SELECT MAX(position) AS position FROM events WHERE stream >= ? AND stream < ?').safeIntegers(true),
  };
  const maxBatch = options.maxBatch ?? 256;
  let pending: PendingAppend[] = [];
  let closed = false;

  const appendOne = db.transaction((p: PendingAppend): AppendResult => {
    const current = (q.current.get(p.stream) as { revision: bigint | null }).revision;
    const actual = current ?? 'no_stream';
    if (actual !== p.expected) {
      // A retried append whose events are already stored answers as the first time did.
      const first = p.events[0] && (q.byId.get(p.events[0].id) as { stream: string; revision: bigint; position: bigint } | undefined);
      const firstRevision = p.expected === 'no_stream' ? 0n : p.expected + 1n;
      if (first && first.stream === p.stream && first.revision === firstRevision) {
        const last = q.byId.get(p.events[p.events.length - 1]!.id) as { revision: bigint; position: bigint };
        return { revision: last.revision, position: last.position };
      }
      throw new ConcurrencyConflict(p.stream, p.expected, actual);
    }
    let revision = current === null ? -1n : current;
    let position = 0n;
    const now = new Date().toISOString();
    for (const e of p.events) {
      revision += 1n;
      const info = q.insert.run(e.id, p.stream, revision, e.type, JSON.stringify(e.data), JSON.stringify(e.metadata), now);
      position = BigInt(info.lastInsertRowid);
    }
    return { revision, position };
  });

  const flush = () => {
    const batch = pending.splice(0, maxBatch);
    if (batch.length === 0) return;
    if (pending.length > 0) setImmediate(flush);
    const outcomes: Array<{ ok: true; result: AppendResult } | { ok: false; error: unknown }> = [];
    try {
      db.transaction(() => {
        for (const p of batch) {
          try {
            outcomes.push({ ok: true, result: appendOne(p) }); // nested: a savepoint per append
          } catch (error) {
            if (!(error instanceof ConcurrencyConflict) && !isConstraint(error)) throw error;
            outcomes.push({ ok: false, error: error instanceof ConcurrencyConflict ? error : new ConcurrencyConflict(p.stream, p.expected, 'no_stream') });
          }
        }
      })();
    } catch (error) {
      const fault = storeFault(error);
      for (const p of batch) p.reject(fault);
      return;
    }
    batch.forEach((p, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) p.resolve(outcome.result);
      else p.reject(outcome.error);
    });
    poller.notify();
  };

  const poller = createPoller((after, limit, prefix) => readAllSync(after, limit, prefix));

  const readAllSync = (after: bigint, limit: number, prefix?: string): RecordedEvent[] => {
    const rows = prefix
      ? q.readAllPrefix.all(...prefixRange(prefix), after, limit)
      : q.readAll.all(after, limit);
    return (rows as Row[]).map(toRecorded);
  };

  return {
    append(stream, events, expected) {
      if (closed) return Promise.reject(new StoreUnavailable('event store is closed'));
      if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
      return new Promise((resolve, reject) => {
        pending.push({ stream, events, expected, resolve, reject });
        if (pending.length === 1) setImmediate(flush);
      });
    },
    async read(stream, opts = {}) {
      const rows = q.read.all(stream, opts.fromRevision ?? 0n, opts.limit ?? -1) as Row[];
      return rows.map(toRecorded);
    },
    async readAll({ after = 0n, limit, streamPrefix }) {
      return readAllSync(after, limit, streamPrefix);
    },
    subscribe(from, onEvent, opts = {}) {
      return poller.subscribe(from, onEvent, { ...opts, pollIntervalMs: options.pollIntervalMs ?? 100 });
    },
    async headPosition({ streamPrefix } = {}) {
      const row = streamPrefix ? q.headPrefix.get(...prefixRange(streamPrefix)) : q.head.get();
      return (row as { position: bigint | null }).position;
    },
    async close() {
      if (closed) return;
      closed = true;
      await poller.stopAll();
      while (pending.length > 0) flush();
      db.close();
    },
  };
};

const isConstraint = (error: unknown): boolean =>
  error instanceof Error && (error as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT') === true;
