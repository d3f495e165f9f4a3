import { guardedByStoreFault as guard, openDatabase } from '../sqlite/connection';
import type { ClosableCheckpointStore } from './checkpoints';

/**
 * Checkpoints in the embedded default: one row per processor in a SQLite file, committed with
 * `synchronous=FULL` (a stored checkpoint survives a kill -9). Positions are kept as decimal text:
 * they are bigints.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS processor_checkpoints (
  name     TEXT PRIMARY KEY,
  position TEXT NOT NULL
) WITHOUT ROWID;`;

export const openSqliteCheckpoints = (options: { file: string }): ClosableCheckpointStore => {
  const db = openDatabase(options.file, 'full');
  db.exec(SCHEMA);
  const q = {
    read: db.prepare('SELECT position FROM processor_checkpoints WHERE name = ?'),
    // Forward only: compared as numbers (positions are decimal text of any length).
    store: db.prepare(
      `INSERT INTO processor_checkpoints (name, position) VALUES (?, ?)
       ON CONFLICT (name) DO UPDATE SET position = excluded.position
       WHERE length(excluded.position) > length(position)
          OR (length(excluded.position) = length(position) AND excluded.position > position)`,
    ),
  };
  return {
    read: guard(async (name: string) => {
      const row = q.read.get(name) as { position: string } | undefined;
      return row ? BigInt(row.position) : null;
    }),
    store: guard(async (name: string, position: bigint) => {
      q.store.run(name, position.toString());
    }),
    async close() {
      db.close();
    },
  };
};
