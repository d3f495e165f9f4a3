import { guardedByStoreFault as guard, openDatabase } from '../sqlite/connection';
import { decodeDocumentText, toDocument, type ConsumerGroupStore } from './store';

/**
 * Consumer groups in the embedded default: a table of the webhooks' SQLite file (webhooks.db),
 * committed with `synchronous=FULL`: an acknowledged position is on disk when the API answers.
 * One row per group; the group itself as one JSON document (its shape is store.ts's).
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS consumer_groups (
  workspace_id TEXT NOT NULL,
  name         TEXT NOT NULL,
  revision     INTEGER NOT NULL,
  document     TEXT NOT NULL,
  PRIMARY KEY (workspace_id, name)
) WITHOUT ROWID;`;

interface Row {
  workspace_id: string;
  name: string;
  document: string;
}
/** Each row on its own: one that cannot be read is named as such, never a failure of the whole read. */
const parse = (row: Row) => decodeDocumentText({ workspaceId: row.workspace_id, name: row.name }, row.document);

export const openSqliteConsumerGroupStore = (options: { file: string }): ConsumerGroupStore => {
  const db = openDatabase(options.file, 'full');
  db.exec(SCHEMA);
  const q = {
    get: db.prepare('SELECT workspace_id, name, document FROM consumer_groups WHERE workspace_id = ? AND name = ?'),
    list: db.prepare('SELECT workspace_id, name, document FROM consumer_groups WHERE workspace_id = ? ORDER BY name'),
    listAll: db.prepare('SELECT workspace_id, name, document FROM consumer_groups'),
    insert: db.prepare('INSERT OR IGNORE INTO consumer_groups (workspace_id, name, revision, document) VALUES (?, ?, ?, ?)'),
    update: db.prepare('UPDATE consumer_groups SET revision = ?, document = ? WHERE workspace_id = ? AND name = ? AND revision = ?'),
    delete: db.prepare('DELETE FROM consumer_groups WHERE workspace_id = ? AND name = ?'),
  };
  return {
    get: guard(async (workspaceId, name) => {
      const row = q.get.get(workspaceId, name) as Row | undefined;
      return row ? parse(row) : null;
    }),
    list: guard(async (workspaceId) => (q.list.all(workspaceId) as Row[]).map(parse)),
    listAll: guard(async () => (q.listAll.all() as Row[]).map(parse)),
    insert: guard(
      async (group) => q.insert.run(group.workspaceId, group.name, group.revision, JSON.stringify(toDocument(group))).changes === 1,
    ),
    update: guard(
      async (group, expectedRevision) =>
        q.update.run(group.revision, JSON.stringify(toDocument(group)), group.workspaceId, group.name, expectedRevision).changes === 1,
    ),
    delete: guard(async (workspaceId, name) => q.delete.run(workspaceId, name).changes === 1),
    async close() {
      db.close();
    },
  };
};
