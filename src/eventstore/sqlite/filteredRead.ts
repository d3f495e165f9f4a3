import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import { prefixRange } from '../../sqlite/connection';
import type { ReadAllOptions } from '../eventFeed';
import { WORKSPACE_KEY } from './writer';

/**
 * The SQL of a filtered read of the log (`readAll` / `readAllBackwards` with a stream prefix,
 * types or both: the reads people page through and subscribers catch up with), one statement per
 * shape. Its parameters, in order: the workspace key (when `workspace`), the prefix's range (when
 * `prefix`), the types, the position to start after or before (when `from`), the limit.
 *
 * A read of some types goes through the (workspace, type, position) index when it names one
 * workspace, else the (type, position) one, one type at a time, each in position order and stopping
 * at the limit, and the pages are merged: it reads at most `types × limit` rows, however many events
 * of other types (or workspaces) the log holds: a rare type (the key events the key ring follows at
 * start, the audit's checkpoints) costs its own rows, a common one no more than a page per type. Walking
 * the workspace index and filtering by type instead reads every event of the workspace until the
 * page fills, which for a rare type is all of them. `+stream` keeps SQLite from choosing the
 * (stream, revision) index and sorting: the prefix range is checked on the rows the index gives.
 */
export interface FilteredReadShape {
  direction: 'forwards' | 'backwards';
  /** The prefix names one workspace (`<category>-<uuid>-`): read through the workspace indexes. */
  workspace: boolean;
  prefix: boolean;
  /** How many types; undefined: all types. */
  types: number | undefined;
  from: boolean;
}

/** `columns`: what each row holds (`position` for a count: no event is made of the rows counted). */
export const filteredReadSql = ({ direction, workspace, prefix, types, from }: FilteredReadShape, columns = '*'): string => {
  const order = `ORDER BY position${direction === 'backwards' ? ' DESC' : ''}`;
  const after = from ? [direction === 'forwards' ? 'position > ?' : 'position < ?'] : [];
  const range = prefix ? ['+stream >= ? AND +stream < ?'] : [];
  if (types !== undefined && types > 0) {
    // With a workspace, its (workspace, type, position) index; without, the (type, position) one.
    const one = [...(workspace ? [`${WORKSPACE_KEY} = ?`] : []), ...range, 'type = ?', ...after].join(' AND ');
    const each = Array.from({ length: types }, () => `SELECT * FROM (SELECT ${columns} FROM events WHERE ${one} ${order} LIMIT ?)`);
    return types === 1 ? each[0]!.slice('SELECT * FROM ('.length, -1) : `SELECT * FROM (${each.join(' UNION ALL ')}) ${order} LIMIT ?`;
  }
  const where = [
    ...(workspace ? [`${WORKSPACE_KEY} = ?`] : []),
    ...range,
    ...(types !== undefined ? [`type IN (${Array(types).fill('?').join(', ') || 'NULL'})`] : []),
    ...after,
  ];
  return `SELECT ${columns} FROM events${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ${order} LIMIT ?`;
};

/**
 * How many events the forward read of `shape` would return, counted by SQLite: the same rows
 * through the same index, up to the same limit, and no event made of them (a lag or a backlog
 * counted at every scrape). Its parameters are `filteredReadParams(shape)`.
 */
export const filteredCountSql = (shape: FilteredReadShape): string =>
  `SELECT COUNT(*) FROM (${filteredReadSql({ ...shape, direction: 'forwards' }, 'position')})`;

/** The parameters of `filteredReadSql(shape)`, in its order. */
export const filteredReadParams = (
  shape: FilteredReadShape,
  {
    workspaceKey,
    range,
    types,
    from,
    limit,
  }: { workspaceKey?: string; range?: [string, string]; types?: readonly string[]; from?: bigint; limit: number },
): unknown[] => {
  const tail = from === undefined ? [] : [from];
  if (types && types.length > 0) {
    const each = types.flatMap((type) => [...(shape.workspace ? [workspaceKey] : []), ...(range ?? []), type, ...tail, limit]);
    return types.length === 1 ? each : [...each, limit];
  }
  return [...(shape.workspace ? [workspaceKey] : []), ...(range ?? []), ...(types ?? []), ...tail, limit];
};

/** A prefix that names one workspace's streams of one category (`preset-<uuid>-`): read through the workspace index. */
export const WORKSPACE_PREFIX = /^[^-]+-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-$/;

/**
 * The filtered reads and counts of one connection: a statement per shape (and kind), prepared
 * when first used. `rows` reads with every column; `count` answers how many the forward read
 * would return.
 */
export const filteredReads = (db: Database.Database) => {
  const statements = new Map<string, Statement>();
  // Streams of a workspace's key (`preset-<uuid>`) that do not start with its prefix (`preset-<uuid>-`):
  // the key itself, or the key and a character other than the dash. The service names no such
  // stream; while none exists, a workspace's count needs no check of each stream's name, and
  // SQLite counts from the workspace index alone instead of reading each row (0.65 against 17 ms
  // for 10,000 events: docs/performance.md).
  const strays = db
    .prepare(
      'SELECT EXISTS (SELECT 1 FROM events WHERE stream >= ? AND stream < ?) OR EXISTS (SELECT 1 FROM events WHERE stream >= ? AND stream < ?)',
    )
    .pluck();
  const countsByKey = (key: string) => strays.get(key, `${key}-`, `${key}.`, prefixRange(key)[1]) === 0;
  const run = (kind: 'rows' | 'count', direction: FilteredReadShape['direction'], from: bigint | undefined, options: ReadAllOptions) => {
    const { limit, streamPrefix, types } = options;
    const workspace = streamPrefix !== undefined && WORKSPACE_PREFIX.test(streamPrefix);
    // Each row's stream checked against the prefix: always for a read, for a workspace's count only when a stray stream exists.
    const byIndexAlone = kind === 'count' && workspace && countsByKey(streamPrefix!.slice(0, -1));
    const shape: FilteredReadShape = {
      direction,
      workspace,
      prefix: Boolean(streamPrefix) && !byIndexAlone,
      types: types?.length,
      from: from !== undefined,
    };
    const key = `${kind}|${shape.direction}|${shape.workspace}|${shape.prefix}|${shape.types ?? -1}|${shape.from}`;
    let statement = statements.get(key);
    if (!statement) {
      statement = db.prepare(kind === 'rows' ? filteredReadSql(shape) : filteredCountSql(shape)).safeIntegers(true);
      if (kind === 'count') statement.pluck();
      statements.set(key, statement);
    }
    const params = filteredReadParams(shape, {
      workspaceKey: streamPrefix?.slice(0, -1),
      range: shape.prefix ? prefixRange(streamPrefix!) : undefined,
      types,
      from,
      limit,
    });
    return kind === 'rows' ? statement.all(...params) : statement.get(...params);
  };
  return {
    rows: (direction: FilteredReadShape['direction'], from: bigint | undefined, options: ReadAllOptions): unknown[] =>
      run('rows', direction, from, options) as unknown[],
    count: (after: bigint, options: ReadAllOptions): number => Number(run('count', 'forwards', after, options) as bigint),
  };
};
