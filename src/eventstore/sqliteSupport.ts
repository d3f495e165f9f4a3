import { StoreUnavailable } from './eventStore';

/**
 * The page cache of every SQLite connection the service opens (the embedded store has three: the
 * writer thread's, the HTTP thread's reads, the projector's reads; the read model two: the HTTP
 * thread's reads and the projector's writes): 2 MiB each, 10 MiB in all (the WAL checkpointer's two
 * take 256 KiB each). better-sqlite3's default is 16 MiB a connection, which a large data set
 * fills, so the process grew with it; at 4 MiB the service peaked at 198 MB of its 200 MB budget
 * over 100,000 presets. The operating system's file cache holds what these do not.
 */
export const SQLITE_CACHE_PRAGMA = 'cache_size = -2048';

/**
 * SQLite's automatic WAL checkpoint, for every connection that writes: 10,000 pages (~40 MB)
 * instead of 1,000. In the service it is only a safety net: its checkpointer thread
 * (src/sqlite/walCheckpoints.ts) keeps the WAL shorter, so commits never stop to checkpoint.
 */
export const WAL_AUTOCHECKPOINT_PAGES = 10_000;

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
