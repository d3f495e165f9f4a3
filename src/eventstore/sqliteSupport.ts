import { StoreUnavailable } from './eventStore';

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
