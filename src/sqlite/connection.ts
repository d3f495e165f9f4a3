import Database from 'better-sqlite3';
import { StoreUnavailable } from '../storage/faults';

/**
 * What every SQLite file of the service shares: how a connection is opened, how storage faults
 * are told from bugs, and prefix ranges. The event store (src/eventstore/sqlite/) and the read
 * model (projections/readmodel/sqlite.ts) each keep one file; the WAL checkpointer (walCheckpointer.ts)
 * keeps both files' WALs short.
 */

/** Page cache per connection, in KiB. better-sqlite3's default (16 MiB) grew the service with its data; see docs/performance.md. */
export const CACHE_KIB = 2048;

/**
 * SQLite's automatic WAL checkpoint for connections that write: a safety net only, since the
 * checkpointer thread keeps the WAL far shorter than this, outside any commit.
 */
export const WAL_AUTOCHECKPOINT_PAGES = 10_000;

/**
 * How much a commit is worth: `full`, on disk when it returns (the events); `normal`, on disk at
 * the next checkpoint (the read model, which can always be rebuilt); `bulkLoad`, no journal and no
 * fsync at all, for a rebuild into a fresh file that is thrown away if anything fails.
 */
export type Durability = 'full' | 'normal' | 'bulkLoad';

/** A connection that waits up to 5 s for a lock rather than failing at once; `cacheKib`, its page cache where not CACHE_KIB. */
export const openDatabase = (file: string, durability: Durability, cacheKib = CACHE_KIB): Database.Database => {
  const db = new Database(file);
  if (durability === 'bulkLoad') {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    // A rebuild writes stream by stream, so each table and index has few insertion points: a
    // bigger cache made it no faster.
    db.pragma('cache_size = -4096');
  } else {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${durability === 'full' ? 'FULL' : 'NORMAL'}`);
    db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
    db.pragma(`cache_size = -${cacheKib}`);
  }
  db.pragma('busy_timeout = 5000');
  return db;
};

/** `[low, high)` bounds that select every string starting with `prefix` (binary collation). */
export const prefixRange = (prefix: string): [string, string] => {
  const last = prefix.codePointAt(prefix.length - 1) ?? 0;
  return [prefix, prefix.slice(0, -1) + String.fromCodePoint(last + 1)];
};

// SQLite result codes that mean "the store cannot take writes now", not "the program is wrong".
const UNAVAILABLE = ['SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_IOERR', 'SQLITE_CANTOPEN', 'SQLITE_BUSY', 'SQLITE_LOCKED'];

/** Maps a storage fault to StoreUnavailable (a 503) and leaves programming errors as they are. */
export const storeFault = (error: unknown): unknown => {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && UNAVAILABLE.some((c) => code.startsWith(c))) {
    return new StoreUnavailable(`storage unavailable (${code})`, { cause: error });
  }
  if (error instanceof Error && /database connection is not open/.test(error.message)) {
    return new StoreUnavailable('storage is closed', { cause: error });
  }
  return error;
};

/** An adapter's operation whose storage faults reach the caller as StoreUnavailable (storeFault), sync or async. */
export const guardedByStoreFault =
  <A extends unknown[], R>(f: (...args: A) => R) =>
  async (...args: A): Promise<Awaited<R>> => {
    try {
      return await f(...args);
    } catch (error) {
      throw storeFault(error);
    }
  };
