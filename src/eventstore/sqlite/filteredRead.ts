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

export const filteredReadSql = ({ direction, workspace, prefix, types, from }: FilteredReadShape): string => {
  const order = `ORDER BY position${direction === 'backwards' ? ' DESC' : ''}`;
  const after = from ? [direction === 'forwards' ? 'position > ?' : 'position < ?'] : [];
  const range = prefix ? ['+stream >= ? AND +stream < ?'] : [];
  if (types !== undefined && types > 0) {
    // With a workspace, its (workspace, type, position) index; without, the (type, position) one.
    const one = [...(workspace ? [`${WORKSPACE_KEY} = ?`] : []), ...range, 'type = ?', ...after].join(' AND ');
    const each = Array.from({ length: types }, () => `SELECT * FROM (SELECT * FROM events WHERE ${one} ${order} LIMIT ?)`);
    return types === 1 ? each[0]!.slice('SELECT * FROM ('.length, -1) : `SELECT * FROM (${each.join(' UNION ALL ')}) ${order} LIMIT ?`;
  }
  const where = [
    ...(workspace ? [`${WORKSPACE_KEY} = ?`] : []),
    ...range,
    ...(types !== undefined ? [`type IN (${Array(types).fill('?').join(', ') || 'NULL'})`] : []),
    ...after,
  ];
  return `SELECT * FROM events${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ${order} LIMIT ?`;
};

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
