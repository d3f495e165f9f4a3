import { resolve } from 'node:path';
import { BroadcastChannel } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import type { ExpectedRevision, NewEvent, StreamName } from '../eventStore';
import { openDatabase } from '../../sqlite/connection';
import { storedJson } from '../canonicalJson';
import { GENESIS_HASH, linkBody, linkHash, metadataJsonWithHash, metadataToStore } from '../hashChain';
import { CHAIN_SCHEMA, HEAD_LINK_SQL } from './chain';

/**
 * The write half of the embedded event store: one transaction (one fsync, `synchronous=FULL`) per
 * batch of appends, each append checked against its own expected revision inside a savepoint, so a
 * conflict fails only that append. Runs in a worker thread (writerWorker.ts) so the fsync never
 * blocks the event loop, or inline where threads are not used (src/threads/thread.ts).
 * Its answers are plain data: they cross a thread boundary.
 */
export const SCHEMA = `
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
);
${CHAIN_SCHEMA}`;

/**
 * What every stream of one workspace starts with, `<category>-<workspace uuid>` (see
 * src/presets/streamName.ts): the key of the workspace index, so a consumer of one workspace
 * (a catch-up read, a page of /api/v1/events, a head) reads that workspace's events in position
 * order, not the whole log. Queries must spell the expression exactly so for SQLite to use it.
 */
export const WORKSPACE_KEY = "substr(stream, 1, instr(stream, '-') + 36)";

/**
 * Changes to the schema of a file made before them, run on every open (each is idempotent; an
 * index is built once, on the first open after an upgrade, which takes a few seconds per
 * million events).
 */
export const MIGRATIONS = [
  `CREATE INDEX IF NOT EXISTS events_workspace ON events (${WORKSPACE_KEY}, position)`,
  // A workspace's events of some types (filteredRead.ts).
  `CREATE INDEX IF NOT EXISTS events_workspace_type ON events (${WORKSPACE_KEY}, type, position)`,
  // The events of a type in position order, any workspace (filteredRead.ts): the key ring's
  // catch-up at start and the audit checkpoints read their few events without a walk through the log.
  'CREATE INDEX IF NOT EXISTS events_type ON events (type, position)',
];

/**
 * An event as the writer stores it: serialized by the caller, so crossing to the thread copies
 * strings, not object trees. Data and metadata are their JSON text as sent (keys in their order:
 * what a client stored comes back as it sent it), metadata without the chain's hash and saying
 * that the link covers this text (chain.ts metadataToStore); the writer puts the body the hash
 * covers (chain.ts linkBody) together from them for the revision the event gets, so the thread
 * that serves HTTP copies each text once, not a second time inside the body, and a verify hashes
 * what it reads as it is.
 */
export interface SerializedEvent {
  id: string;
  type: string;
  data: string;
  metadata: string;
}
export interface AppendRequest {
  stream: StreamName;
  events: SerializedEvent[];
  expected: ExpectedRevision;
}
export const serializeEvent = ({ id, type, data, metadata }: NewEvent, stream: StreamName, revision: bigint): SerializedEvent => ({
  id,
  type,
  data: storedJson(data === undefined ? null : data),
  metadata: storedJson(metadataToStore(metadata, `${stream}@${revision}`)),
});
export type AppendOutcome =
  { ok: true; revision: bigint; position: bigint } | { ok: false; expected: ExpectedRevision; actual: bigint | 'no_stream' };
/** Either every append of the batch has an outcome, or the transaction failed as a whole (a storage fault). */
export type BatchOutcome = { ok: true; outcomes: AppendOutcome[] } | { ok: false; fault: { code?: string; message: string } };

/**
 * Every commit to `file` is announced on a channel of the process named after the file, by
 * whichever thread committed it, and every store of the process on that file listens once it has
 * subscriptions (the projector thread's, the HTTP thread's event streams): they look at once, with
 * no round trip through another thread.
 */
const channelName = (file: string) => `presets:appended:${resolve(file)}`;

export const announceAppends = (file: string) => {
  const channel = new BroadcastChannel(channelName(file));
  channel.unref();
  return {
    /** Announces a batch's commit, with the types of the events it stored (nothing when none was). */
    post(batch: AppendRequest[], outcome: BatchOutcome) {
      if (!outcome.ok) return;
      const types = new Set<string>();
      outcome.outcomes.forEach((o, i) => {
        if (o.ok) for (const e of batch[i]!.events) types.add(e.type);
      });
      if (types.size > 0) channel.postMessage([...types]);
    },
    close: () => channel.close(),
  };
};

/** Calls `listener` at each commit to `file` in this process, with the types of the events it stored. */
export const onAppends = (file: string, listener: (types: readonly string[] | undefined) => void) => {
  // A channel does not hear its own messages: this one is apart from any that announces.
  const channel = new BroadcastChannel(channelName(file));
  channel.onmessage = (message) => listener(Array.isArray((message as MessageEvent).data) ? (message as MessageEvent).data : undefined);
  channel.unref();
  return { close: () => channel.close() };
};

/** The events file, its schema current; `cacheKib`, the connection's page cache where not the default (openDatabase). */
export const openEventsDb = (file: string, cacheKib?: number): Database.Database => {
  const db = openDatabase(file, 'full', cacheKib);
  db.exec(SCHEMA);
  for (const migration of MIGRATIONS) db.exec(migration);
  return db;
};

class Conflict {
  constructor(readonly actual: bigint | 'no_stream') {}
}

export const createBatchWriter = (db: Database.Database) => {
  const q = {
    // The stream's last revision and its link, which the next event chains from.
    head: db.prepare(HEAD_LINK_SQL).safeIntegers(true),
    byId: db.prepare('SELECT stream, revision, position FROM events WHERE id = ?').safeIntegers(true),
    insert: db
      .prepare('INSERT INTO events (id, stream, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .safeIntegers(true),
  };
  type Located = { stream: string; revision: bigint; position: bigint } | undefined;

  const appendOne = db.transaction((a: AppendRequest): AppendOutcome => {
    const head = q.head.get(a.stream) as { revision: bigint; hash: string | null } | undefined;
    const current = head?.revision ?? null;
    const actual = current ?? 'no_stream';
    if (actual !== a.expected) {
      // A retried append whose events are already stored answers as the first time did.
      const first = a.events[0] && (q.byId.get(a.events[0].id) as Located);
      const firstRevision = a.expected === 'no_stream' ? 0n : a.expected + 1n;
      if (first && first.stream === a.stream && first.revision === firstRevision) {
        const last = q.byId.get(a.events[a.events.length - 1]!.id) as NonNullable<Located>;
        return { ok: true, revision: last.revision, position: last.position };
      }
      throw new Conflict(actual);
    }
    let revision = current ?? -1n;
    let position = 0n;
    let previous = head ? head.hash : GENESIS_HASH;
    if (previous === null) throw new Error(`${a.stream}@${current} has no chain hash: the log is not sealed (run npm run audit:seal)`);
    const now = new Date().toISOString();
    for (const e of a.events) {
      revision += 1n;
      previous = linkHash(previous, linkBody(e.type, e.data, e.metadata, a.stream, revision));
      const metadata = metadataJsonWithHash(e.metadata, previous);
      position = BigInt(q.insert.run(e.id, a.stream, revision, e.type, e.data, metadata, now).lastInsertRowid);
    }
    return { ok: true, revision, position };
  });

  const writeAll = db.transaction((batch: AppendRequest[]) =>
    batch.map((a): AppendOutcome => {
      try {
        return appendOne(a); // nested: a savepoint per append
      } catch (error) {
        if (error instanceof Conflict) return { ok: false, expected: a.expected, actual: error.actual };
        // An event id stored under another stream: the append cannot be what the caller expects.
        if ((error as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT'))
          return { ok: false, expected: a.expected, actual: 'no_stream' };
        throw error;
      }
    }),
  );

  return (batch: AppendRequest[]): BatchOutcome => {
    try {
      // IMMEDIATE: the write lock first, waiting (busy_timeout) for a WAL checkpoint that holds it.
      // A deferred transaction that read first could only fail at once (SQLITE_BUSY, no wait).
      return { ok: true, outcomes: writeAll.immediate(batch) };
    } catch (error) {
      return { ok: false, fault: { code: (error as { code?: string }).code, message: (error as Error).message } };
    }
  };
};
