import type Database from 'better-sqlite3';
import type { SealedLinks } from '../sealedLinks';

/**
 * The hash chain in the embedded store. A new event's link is in its metadata (`hash`), written by
 * the writer in the append's transaction; an event stored before the chain existed has its link in
 * `chain_seal`, by position, written once by `npm run audit:seal` without touching the event.
 */
export const CHAIN_SCHEMA = `
CREATE TABLE IF NOT EXISTS chain_seal (
  position INTEGER PRIMARY KEY,
  hash     TEXT    NOT NULL
);`;

/** The last revision of a stream and its link (its own, else the sealed one); no row for a new stream. */
export const HEAD_LINK_SQL = `
SELECT e.revision AS revision,
       COALESCE(json_extract(e.metadata, '$.hash'), (SELECT s.hash FROM chain_seal s WHERE s.position = e.position)) AS hash
FROM events e WHERE e.stream = ? ORDER BY e.revision DESC LIMIT 1`;

const CHUNK = 500;

export const sqliteSealedLinks = (db: Database.Database): SealedLinks => {
  const insert = db.prepare('INSERT OR REPLACE INTO chain_seal (position, hash) VALUES (?, ?)');
  const record = db.transaction((links: readonly { position: bigint; hash: string }[]) => {
    for (const { position, hash } of links) insert.run(position, hash);
  });
  const lookups = new Map<number, Database.Statement>();
  const lookup = (count: number) => {
    let statement = lookups.get(count);
    if (!statement) {
      statement = db
        .prepare(`SELECT position, hash FROM chain_seal WHERE position IN (${Array(count).fill('?').join(', ')})`)
        .safeIntegers(true);
      lookups.set(count, statement);
    }
    return statement;
  };
  return {
    async sealedHashes(positions) {
      const found = new Map<bigint, string>();
      for (let i = 0; i < positions.length; i += CHUNK) {
        const chunk = positions.slice(i, i + CHUNK);
        for (const row of lookup(chunk.length).all(...chunk) as { position: bigint; hash: string }[]) found.set(row.position, row.hash);
      }
      return found;
    },
    async recordSeal(links) {
      record.immediate(links);
    },
  };
};
