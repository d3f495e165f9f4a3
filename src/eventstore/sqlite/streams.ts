import type Database from 'better-sqlite3';
import { streamShare, type ReadStreamsOptions } from '../streamReader';

/**
 * `readStreams` of the embedded store: the stream names in index order, a page of them at a time,
 * then each stream of the wanted share through the (stream, revision) index. No statement stays
 * open across a `yield`, so the connection is free for other reads while the consumer works.
 */
const NAMES_PER_PAGE = 1000;

/** Rows of `columns` (all by default), as objects or, with `raw`, as arrays; `revisionOf` reads a row's revision. */
export interface StreamRows<Row> {
  columns?: string;
  raw?: boolean;
  revisionOf: (row: Row) => bigint;
}

export const createStreamReader = <Row, Event>(
  db: Database.Database,
  toEvent: (row: Row) => Event,
  { columns = '*', raw = false, revisionOf }: StreamRows<Row>,
) => {
  const q = {
    names: db.prepare('SELECT DISTINCT stream FROM events WHERE stream >= ? ORDER BY stream LIMIT ?').pluck(),
    events: db
      .prepare(`SELECT ${columns} FROM events WHERE stream = ? AND revision >= ? AND position <= ? ORDER BY revision LIMIT ?`)
      .safeIntegers(true)
      .raw(raw),
  };

  return async function* readStreams({ until, streamPrefix = '', pageSize = 1000, share }: ReadStreamsOptions): AsyncIterable<Event[]> {
    let page: Event[] = [];
    let after: string | undefined;
    for (;;) {
      const names = (q.names.all(after ?? streamPrefix, NAMES_PER_PAGE + 1) as string[]).filter((n) => n !== after);
      const mine = names.filter((n) => n.startsWith(streamPrefix));
      for (const stream of mine) {
        if (share && streamShare(stream, share.count) !== share.index) continue;
        for (let from = 0n; ;) {
          const rows = q.events.all(stream, from, until, pageSize) as Row[];
          for (const row of rows) page.push(toEvent(row));
          if (page.length >= pageSize) {
            yield page;
            page = [];
          }
          if (rows.length < pageSize) break;
          from = revisionOf(rows[rows.length - 1]!) + 1n; // a stream longer than a page
        }
      }
      // Names in index order: past the prefix, or past the last name, there are no more.
      if (mine.length < names.length || names.length < NAMES_PER_PAGE) break;
      after = names[names.length - 1];
    }
    if (page.length > 0) yield page;
  };
};
