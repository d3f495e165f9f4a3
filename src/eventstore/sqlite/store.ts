import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import { prefixRange } from '../../sqlite/connection';
import { RemoteError } from '../../threads/endpoint';
import { startThread, threadEntry } from '../../threads/thread';
import { StoreUnavailable, type EventStoreAdapter, type RecordedEvent } from '../eventStore';
import { FeedEvent } from './feedEvent';
import { groupCommit } from './groupCommit';
import {
  MAX_INT64_POSITION,
  type ReadAllOptions,
  type StoredFeedEvent,
  type SubscribeFrom,
  type SubscribeOptions,
  type Subscription,
} from '../eventFeed';
import { createPoller, type PolledEvent, type Poller } from '../poller';
import { createStreamReader } from './streams';
import type { StoredEvent } from '../streamReader';
import { filteredReads, filteredReadSql, WORKSPACE_PREFIX } from './filteredRead';
import { sqliteSealedLinks } from './chain';
import { isJsonObject } from '../hashChain';
import {
  announceAppends,
  createBatchWriter,
  onAppends,
  openEventsDb,
  WORKSPACE_KEY,
  type AppendRequest,
  type BatchOutcome,
} from './writer';

/**
 * How many of the newest events a head of a prefix looks through, newest first, before it walks
 * the prefix's streams: enough to pass the audit checkpoints `audit:seal` writes at the end of a
 * log it seals (1,000 per 1,000,000 events), a few milliseconds at most.
 */
const RECENT_HEAD_WINDOW = 4096;

/**
 * The embedded event store: one SQLite file, WAL journal, `synchronous=FULL`, so an append that
 * resolved is on disk. The row id is the position; AUTOINCREMENT never reuses one.
 *
 * Group commit (groupCommit.ts): the appends of one turn of the event loop share one transaction
 * and one fsync of the writer (a thread of its own, see writer.ts), each still checked against its
 * own expected revision; appends made while a batch is with the writer form the next. Reads use
 * this thread's own connection.
 */
export const EVENTS_FILE = 'events.db';

interface Row {
  position: bigint;
  id: string;
  stream: string;
  revision: bigint;
  type: string;
  data: string;
  metadata: string;
  recorded_at: string;
}

const toStoredFeedEvent = (row: Row): StoredFeedEvent =>
  new FeedEvent(row.id, row.stream, row.revision, row.position, row.type, row.data, row.metadata, new Date(row.recorded_at));
/** The columns of a FeedRow, in its order: a stored feed's page as arrays (readAllStored). */
const FEED_SELECT = 'id, stream, revision, position, type, data, metadata, recorded_at';
type FeedRow = [
  id: string,
  stream: string,
  revision: bigint,
  position: bigint,
  type: string,
  data: string,
  metadata: string,
  recordedAt: string,
];
const fromFeedRow = (row: FeedRow): StoredFeedEvent => {
  const [id, stream, revision, position, type, data, metadata, recordedAt] = row;
  return new FeedEvent(id, stream, revision, position, type, data, metadata, new Date(recordedAt));
};

const toRecorded = (row: Row): RecordedEvent => ({
  id: row.id,
  type: row.type,
  stream: row.stream,
  revision: row.revision,
  position: row.position,
  data: JSON.parse(row.data),
  metadata: JSON.parse(row.metadata),
  recordedAt: new Date(row.recorded_at),
});

export interface SqliteEventStoreOptions {
  file: string;
  /** How often a caught-up subscription looks for events appended by other processes. */
  pollIntervalMs?: number;
  /** At most this many appends share one transaction. */
  maxBatch?: number;
  /**
   * Where batches are written: the compiled writer entry to run in a thread of its own, or false
   * to write on this thread (a process that never appends: rebuild, verify, the projector's thread).
   * By default a thread wherever the service uses threads (src/threads/thread.ts).
   */
  writerThread?: string | false;
  /** The reading connection's page cache (KiB), where it is not the default (src/sqlite/connection.ts). */
  cacheKib?: number;
}

interface BatchWriter {
  write(batch: AppendRequest[]): Promise<BatchOutcome>;
  close(): Promise<void>;
}

const inlineWriter = (file: string, db: ReturnType<typeof openEventsDb>): BatchWriter => {
  const write = createBatchWriter(db);
  const announce = announceAppends(file);
  return {
    write: async (batch) => {
      const outcome = write(batch);
      announce.post(batch, outcome);
      return outcome;
    },
    close: async () => announce.close(),
  };
};

const threadWriter = (file: string, entry: string): BatchWriter => {
  const thread = startThread<{ write(batch: AppendRequest[]): BatchOutcome }>(entry, 'sqliteWriter', { file });
  return {
    write: (batch) =>
      thread.call('write', batch).catch((error: unknown) => {
        // The thread is gone (it logs nothing itself): nothing of this batch was acknowledged.
        if (error instanceof RemoteError) return { ok: false, fault: { code: 'WORKER', message: `event store writer: ${error.message}` } };
        throw error;
      }),
    close: () => thread.stop(),
  };
};

/**
 * The log in position order: all of it, a prefix's streams, a workspace's; each row's `columns`.
 * The same statements as the filtered reads' of those shapes (filteredRead.ts says how each walks
 * its index), prepared once for the hot paths that page through the log.
 */
const logReads = (db: Database.Database, columns: string, raw = false) => {
  const prepare = (workspace: boolean, prefix: boolean) =>
    db
      .prepare(filteredReadSql({ direction: 'forwards', workspace, prefix, types: undefined, from: true }, columns))
      .safeIntegers(true)
      .raw(raw);
  return { readAll: prepare(false, false), readAllPrefix: prepare(false, true), readAllWorkspace: prepare(true, true) };
};
type LogReads = ReturnType<typeof logReads>;

/** Keys read in one statement by readStoredMany (two parameters each, far below SQLite's limit). */
const KEYS_PER_READ = 100;

/** The columns of a ChainRow, in its order. */
const CHAIN_SELECT = 'stream, revision, position, type, data, metadata';
type ChainRow = [stream: string, revision: bigint, position: bigint, type: string, data: string, metadata: string];
const fromChainRow = (row: ChainRow): StoredEvent => {
  const [stream, revision, position, type, data, metadata] = row;
  return { stream, revision, position, type, data, metadata };
};

export const openSqliteEventStore = (options: SqliteEventStoreOptions): EventStoreAdapter => {
  const db = openEventsDb(options.file, options.cacheKib);
  const entry = options.writerThread ?? threadEntry(__dirname, 'writerWorker');
  const writer = entry ? threadWriter(options.file, entry) : inlineWriter(options.file, db);
  // Many events by stream and revision in one statement (readStoredMany): one per count of keys, made when first used.
  const manyReads = new Map<number, Statement>();
  const readMany = (count: number): Statement => {
    let statement = manyReads.get(count);
    if (!statement) {
      const keys = Array.from({ length: count }, () => '(?, ?)').join(', ');
      statement = db
        .prepare(`SELECT ${CHAIN_SELECT} FROM events WHERE (stream, revision) IN (VALUES ${keys})`)
        .safeIntegers(true)
        .raw(true);
      manyReads.set(count, statement);
    }
    return statement;
  };
  // The columns a chain check reads (readLogStored): no id, no time, for a verify of the whole log;
  // rows as arrays, not objects: a quarter less time a row over a whole log.
  const chainReads = logReads(db, CHAIN_SELECT, true);
  // A consumer group's batches, the same way: rows as arrays.
  const feedReads = logReads(db, FEED_SELECT, true);
  const q = {
    // Without LIMIT for the command handler's reads: a bound LIMIT makes SQLite re-prepare the
    // statement on every run, on the thread that serves HTTP.
    read: db.prepare('SELECT * FROM events WHERE stream = ? AND revision >= ? ORDER BY revision').safeIntegers(true),
    readPage: db.prepare('SELECT * FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?').safeIntegers(true),
    readOne: db.prepare(`SELECT ${CHAIN_SELECT} FROM events WHERE stream = ? AND revision = ?`).safeIntegers(true).raw(true),
    ...logReads(db, '*'),
    headWorkspace: db
      .prepare(`SELECT MAX(position) AS position FROM events WHERE ${WORKSPACE_KEY} = ? AND +stream >= ? AND +stream < ?`)
      .safeIntegers(true),
    head: db.prepare('SELECT MAX(position) AS position FROM events').safeIntegers(true),
    headPrefix: db.prepare('SELECT MAX(position) AS position FROM events WHERE stream >= ? AND stream < ?').safeIntegers(true),
    // The same answer when one of the newest events has the prefix (the usual case: the category
    // most events belong to), found by walking back from the newest (`+stream`: through the rows,
    // not the stream index), stopping at the first, instead of in every stream of the prefix.
    headPrefixRecent: db
      .prepare(
        `SELECT position FROM events WHERE position > (SELECT MAX(position) FROM events) - ${RECENT_HEAD_WINDOW} AND +stream >= ? AND +stream < ? ORDER BY position DESC LIMIT 1`,
      )
      .safeIntegers(true),
  };
  /** One of the newest events has the prefix: the newest of them; none has: the index's walk through the prefix's streams. */
  const headOfPrefix = (range: [string, string]) =>
    (q.headPrefixRecent.get(...range) as { position: bigint } | undefined) ?? q.headPrefix.get(...range);
  const commits = groupCommit((batch) => writer.write(batch), { maxBatch: options.maxBatch });
  let closed = false;

  // Of some types, through the type index: a follower of a few types reads no row of the others.
  const headSync = () => (q.head.get() as { position: bigint | null }).position;
  const poller = createPoller(
    (after, limit, streamPrefix, types) =>
      types ? readFiltered('forwards', after, { limit, streamPrefix, types }) : readAllSync(after, limit, streamPrefix),
    headSync,
  );
  const storedPoller = createPoller((after, limit, streamPrefix, types) => readAllStored({ after, limit, streamPrefix, types }), headSync);
  // Listened to while something subscribes: the commits of every writer of the file in this
  // process, this store's own included (writer.ts announces them). With no subscription left the
  // thread is not woken by them (a subscription starts by reading, so one that comes later misses nothing).
  let appends: { close(): void } | undefined;
  let following = 0;
  /** A subscription through one of the pollers, woken by every commit to the file. */
  const follow =
    <E extends PolledEvent>(through: Poller<E>) =>
    (from: SubscribeFrom, onEvent: (event: E) => Promise<void>, opts: SubscribeOptions = {}): Subscription => {
      appends ??= onAppends(options.file, (types) => {
        poller.notify(types);
        storedPoller.notify(types);
      });
      following++;
      const subscription = through.subscribe(from, onEvent, { ...opts, pollIntervalMs: options.pollIntervalMs ?? 100 });
      let stopped = false;
      return {
        async stop() {
          await subscription.stop();
          if (stopped) return;
          stopped = true;
          if (--following === 0) {
            appends?.close();
            appends = undefined;
          }
        },
      };
    };

  const readAllRows = (after: bigint, limit: number, prefix?: string, reads: LogReads = q): Row[] =>
    (!prefix
      ? reads.readAll.all(after, limit)
      : WORKSPACE_PREFIX.test(prefix)
        ? reads.readAllWorkspace.all(prefix.slice(0, -1), ...prefixRange(prefix), after, limit)
        : reads.readAllPrefix.all(...prefixRange(prefix), after, limit)) as Row[];
  const readAllSync = (after: bigint, limit: number, prefix?: string): RecordedEvent[] => readAllRows(after, limit, prefix).map(toRecorded);

  // The filtered reads people page through, and the key ring's and the audit's reads of their few
  // types, and the counts of lags and backlogs (filteredRead.ts).
  const filtered = filteredReads(db);
  const readFilteredRows = (direction: 'forwards' | 'backwards', from: bigint | undefined, options: ReadAllOptions): Row[] =>
    filtered.rows(direction, from, options) as Row[];
  /**
   * A page of the log as stored text: of some types through the filtered reads (rows of every
   * column), otherwise through `reads`, whose rows are arrays made into events by `fromRow`.
   */
  const storedPage =
    <RawRow, Event extends StoredEvent>(reads: LogReads, fromRow: (row: RawRow) => Event) =>
    async ({ after = 0n, limit, streamPrefix, types }: ReadAllOptions & { after?: bigint }): Promise<Array<Event | StoredFeedEvent>> =>
      types
        ? readFilteredRows('forwards', after, { limit, streamPrefix, types }).map(toStoredFeedEvent)
        : (readAllRows(after, limit, streamPrefix, reads) as unknown as RawRow[]).map(fromRow);
  const readAllStored = storedPage(feedReads, fromFeedRow);
  const readFiltered = (direction: 'forwards' | 'backwards', from: bigint | undefined, options: ReadAllOptions): RecordedEvent[] =>
    readFilteredRows(direction, from, options).map(toRecorded);

  return {
    maxPosition: MAX_INT64_POSITION, // SQLite's integer
    reportsScanned: true,
    append(stream, events, expected) {
      if (closed) return Promise.reject(new StoreUnavailable('event store is closed'));
      if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
      if (!events.every((e) => isJsonObject(e.metadata)))
        return Promise.reject(new TypeError("an event's metadata must be a JSON object (it carries the chain's hash)"));
      return commits.append(stream, events, expected);
    },
    async read(stream, opts = {}) {
      const from = opts.fromRevision ?? 0n;
      const rows = (opts.limit === undefined ? q.read.all(stream, from) : q.readPage.all(stream, from, opts.limit)) as Row[];
      return rows.map(toRecorded);
    },
    async readAll({ after = 0n, limit, streamPrefix, types }) {
      return types ? readFiltered('forwards', after, { limit, streamPrefix, types }) : readAllSync(after, limit, streamPrefix);
    },
    async countAll({ after = 0n, ...options }) {
      return filtered.count(after, options);
    },
    readAllStored,
    // Of some types (a verify's checkpoints) with every column, as the stored feed reads them.
    readLogStored: storedPage(chainReads, fromChainRow),
    async readAllBackwards({ before, ...options }) {
      return readFiltered('backwards', before, options);
    },
    readStreams: createStreamReader(db, toRecorded, { revisionOf: (row: Row) => row.revision }),
    // Rows as arrays: a pass over the whole log makes a million of them.
    readStreamsStored: createStreamReader(db, fromFeedRow, { columns: FEED_SELECT, raw: true, revisionOf: (row: FeedRow) => row[2] }),
    async readStoredMany(keys) {
      const found: StoredEvent[] = [];
      for (let i = 0; i < keys.length; i += KEYS_PER_READ) {
        const chunk = keys.slice(i, i + KEYS_PER_READ);
        const rows = readMany(chunk.length).all(...chunk.flatMap((k) => [k.stream, k.revision])) as ChainRow[];
        for (const row of rows) found.push(fromChainRow(row));
      }
      return found;
    },
    async readStored(stream, revision) {
      const row = q.readOne.get(stream, revision) as ChainRow | undefined;
      return row && fromChainRow(row);
    },
    ...sqliteSealedLinks(db),
    subscribe: follow(poller),
    subscribeStored: follow(storedPoller),
    async headPosition({ streamPrefix } = {}) {
      const row = !streamPrefix
        ? q.head.get()
        : WORKSPACE_PREFIX.test(streamPrefix)
          ? q.headWorkspace.get(streamPrefix.slice(0, -1), ...prefixRange(streamPrefix))
          : headOfPrefix(prefixRange(streamPrefix));
      return (row as { position: bigint | null }).position;
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([poller.stopAll(), storedPoller.stopAll()]);
      appends?.close();
      await commits.drain();
      await writer.close();
      db.close();
    },
  };
};
