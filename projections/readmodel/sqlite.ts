import type Database from 'better-sqlite3';
import { openDatabase, storeFault } from '../../src/sqlite/connection';
import { presetViewJson, versionViewJson } from './documentJson';
import {
  foldCase,
  type Checkpoint,
  type PresetJson,
  type PresetRecord,
  type PresetView,
  type ProjectionChange,
  type ReadModel,
  type VersionJson,
  type VersionView,
} from './readModel';

/**
 * The embedded read model: one SQLite file beside the event store's. The documents are stored as
 * the JSON the API answers with; the columns beside them are what lookups and ordering need.
 * The checkpoint is written in the same transaction as the documents it covers.
 */
export const READ_MODEL_FILE = 'readmodel.db';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS presets (
  workspace_id TEXT NOT NULL,
  slug         TEXT NOT NULL,
  id           TEXT NOT NULL UNIQUE,
  revision     INTEGER NOT NULL,
  updated_at   TEXT NOT NULL,
  status       TEXT NOT NULL DEFAULT 'active',
  name_folded  TEXT,
  doc          TEXT NOT NULL,
  PRIMARY KEY (workspace_id, slug)
);
CREATE INDEX IF NOT EXISTS presets_by_update ON presets (workspace_id, updated_at DESC, slug);
CREATE TABLE IF NOT EXISTS preset_versions (
  preset_id TEXT NOT NULL,
  version   INTEGER NOT NULL,
  doc       TEXT NOT NULL,
  PRIMARY KEY (preset_id, version)
);
CREATE TABLE IF NOT EXISTS checkpoints (
  name     TEXT PRIMARY KEY,
  position TEXT NOT NULL
);`;

/**
 * A rebuild's fresh file (`bulkLoad`) starts with only the key its upserts need, the presets'
 * (workspace_id, slug): the versions' key and the presets' other indexes are made once the load is
 * done (`finishBulkLoad`), from sorted keys, instead of kept up to date row by row (random UUIDs
 * spread each insert over the whole index). A composite PRIMARY KEY of a rowid table is a unique
 * index, so the finished file answers exactly as one made by SCHEMA; the file is private until the
 * switch, so nothing reads it unindexed. 8 KiB pages: a version document (~2.3 KB) wastes less of
 * a page than with 4 KiB (docs/performance.md, "Rebuild and verify").
 */
const BULK_SCHEMA = `
PRAGMA page_size = 8192;
CREATE TABLE presets (
  workspace_id TEXT NOT NULL,
  slug         TEXT NOT NULL,
  id           TEXT NOT NULL,
  revision     INTEGER NOT NULL,
  updated_at   TEXT NOT NULL,
  status       TEXT NOT NULL DEFAULT 'active',
  name_folded  TEXT,
  doc          TEXT NOT NULL,
  PRIMARY KEY (workspace_id, slug)
);
CREATE TABLE preset_versions (
  preset_id TEXT NOT NULL,
  version   INTEGER NOT NULL,
  doc       TEXT NOT NULL
);
CREATE TABLE checkpoints (
  name     TEXT PRIMARY KEY,
  position TEXT NOT NULL
);`;
/** Writes (pages of a loading thread, ~100 events each) per transaction of a bulk load. */
export const BULK_COMMIT_EVERY = 64;
const BULK_INDEXES = `
CREATE UNIQUE INDEX preset_versions_key ON preset_versions (preset_id, version);
CREATE UNIQUE INDEX presets_id ON presets (id);
CREATE INDEX presets_by_update ON presets (workspace_id, updated_at DESC, slug);
CREATE INDEX presets_by_status ON presets (workspace_id, status, updated_at DESC, slug);`;

/**
 * The rows a batch of changes becomes, documents serialized: what `apply` writes, and what a
 * rebuild's worker threads make off the writing thread and hand to `applyRows`.
 */
export interface SqliteRows {
  /** workspace_id, slug, id, revision, updated_at, status, name_folded, doc */
  presets: Array<[string, string, string, bigint, string, string, string, string]>;
  /** preset_id, version, doc */
  versions: Array<[string, number, string]>;
}

export const sqliteRows = (changes: ProjectionChange[]): SqliteRows => {
  const rows: SqliteRows = { presets: [], versions: [] };
  for (const change of changes) {
    if (change.kind === 'putPreset') {
      const { view, revision } = change.record;
      rows.presets.push([
        view.workspace_id,
        view.slug,
        view.id,
        revision,
        view.updated_at,
        view.status,
        foldCase(view.name),
        presetViewJson(view),
      ]);
    } else {
      rows.versions.push([change.version.preset_id, change.version.version, versionViewJson(change.version)]);
    }
  }
  return rows;
};

/**
 * Files written before statuses existed have no status column: every preset in them is active,
 * which is the column's default. Their documents lack the newer fields (labels, notes) until
 * `npm run rebuild` writes them again.
 */
const migrate = (db: Database.Database) => {
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('presets') as string[];
  if (!columns.includes('status')) db.exec("ALTER TABLE presets ADD COLUMN status TEXT NOT NULL DEFAULT 'active'");
  db.exec('CREATE INDEX IF NOT EXISTS presets_by_status ON presets (workspace_id, status, updated_at DESC, slug)');
  // The name as a search compares it (foldCase), kept beside the document: folding each name at
  // every search cost a JavaScript call per preset (docs/performance.md, "Searching the list").
  if (!columns.includes('name_folded')) {
    db.exec('ALTER TABLE presets ADD COLUMN name_folded TEXT');
    db.function('fold_name', { deterministic: true }, (doc: unknown) =>
      foldCase(String((JSON.parse(String(doc)) as { name?: unknown }).name ?? '')),
    );
    db.exec('UPDATE presets SET name_folded = fold_name(doc)');
  }
};

export interface SqliteReadModel extends ReadModel {
  applyRows(rows: SqliteRows, checkpoint?: Checkpoint): Promise<void>;
  /** After a `bulkLoad`'s rows: makes the keys and indexes it left out (a duplicate version fails here). */
  finishBulkLoad(): Promise<void>;
}

/** `bulkLoad`: no journal, no fsync, for a rebuild into a fresh file that is thrown away on failure. */
export const openSqliteReadModel = (options: { file: string; bulkLoad?: boolean }): SqliteReadModel => {
  const db = openDatabase(options.file, options.bulkLoad ? 'bulkLoad' : 'normal');
  if (options.bulkLoad) db.exec(BULK_SCHEMA);
  else {
    db.exec(SCHEMA);
    migrate(db);
  }
  const q = {
    putPreset: db.prepare(`
      INSERT INTO presets (workspace_id, slug, id, revision, updated_at, status, name_folded, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (workspace_id, slug) DO UPDATE SET revision = excluded.revision, updated_at = excluded.updated_at, status = excluded.status,
        name_folded = excluded.name_folded, doc = excluded.doc
      WHERE excluded.revision > presets.revision`),
    putVersion: db.prepare('INSERT INTO preset_versions (preset_id, version, doc) VALUES (?, ?, ?) ON CONFLICT DO NOTHING'),
    putCheckpoint: db.prepare(
      'INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position',
    ),
    checkpoint: db.prepare('SELECT position FROM checkpoints WHERE name = ?'),
    getPreset: db.prepare('SELECT revision, doc FROM presets WHERE workspace_id = ? AND slug = ?').safeIntegers(true),
    getVersion: db.prepare('SELECT doc FROM preset_versions WHERE preset_id = ? AND version = ?'),
    getLatestVersion: db.prepare('SELECT doc FROM preset_versions WHERE preset_id = ? ORDER BY version DESC LIMIT 1'),
    listVersions: db.prepare('SELECT doc FROM preset_versions WHERE preset_id = ? ORDER BY version LIMIT ? OFFSET ?'),
    listVersionsJson: db.prepare('SELECT version, doc AS json FROM preset_versions WHERE preset_id = ? ORDER BY version LIMIT ? OFFSET ?'),
    countVersions: db.prepare('SELECT COUNT(*) AS n FROM preset_versions WHERE preset_id = ?'),
  };

  // The list's statement for each set of statuses asked for (a handful: none, one, two, three),
  // with or without a search (a substring of the slug or the name: a scan of the workspace's
  // presets). Slugs are ASCII, so SQLite's lower() folds them as foldCase does; names are folded
  // when written (name_folded).
  const listings = new Map<string, { list: Database.Statement; count: Database.Statement }>();
  const listing = (statuses: readonly string[] | undefined, search: boolean) => {
    const n = statuses?.length ?? 0;
    let found = listings.get(`${n}|${search}`);
    if (!found) {
      const where =
        (n === 0 ? '' : ` AND status IN (${Array(n).fill('?').join(', ')})`) +
        (search ? ' AND (instr(lower(slug), ?) > 0 OR instr(name_folded, ?) > 0)' : '');
      found = {
        list: db.prepare(`SELECT doc FROM presets WHERE workspace_id = ?${where} ORDER BY updated_at DESC, slug LIMIT ? OFFSET ?`),
        count: db.prepare(`SELECT COUNT(*) AS n FROM presets WHERE workspace_id = ?${where}`),
      };
      listings.set(`${n}|${search}`, found);
    }
    return found;
  };

  const applyRowsNow = (rows: SqliteRows, checkpoint?: Checkpoint) => {
    for (const row of rows.versions) q.putVersion.run(row);
    for (const row of rows.presets) q.putPreset.run(row);
    if (checkpoint) q.putCheckpoint.run(checkpoint.name, checkpoint.position.toString());
  };
  const applyAll = db.transaction(applyRowsNow);
  // A bulk load has no journal, so a commit makes nothing safer: it only writes the pages the
  // next write changes again (the tables' last pages, the B-trees' interior pages, the header).
  // One transaction spans BULK_COMMIT_EVERY writes (docs/performance.md, "Rebuild and verify").
  let bulkWrites = 0;
  const applyBulk = (rows: SqliteRows, checkpoint?: Checkpoint) => {
    if (!db.inTransaction) db.exec('BEGIN');
    applyRowsNow(rows, checkpoint);
    if (++bulkWrites % BULK_COMMIT_EVERY === 0) db.exec('COMMIT');
  };
  const commitBulk = () => {
    if (db.inTransaction) db.exec('COMMIT');
  };

  const guard = <T>(f: () => T): Promise<T> => {
    try {
      return Promise.resolve(f());
    } catch (error) {
      return Promise.reject(storeFault(error));
    }
  };
  const docs = <T>(rows: unknown[]): T[] => (rows as Array<{ doc: string }>).map((r) => JSON.parse(r.doc) as T);

  return {
    // IMMEDIATE: take the write lock first, so waiting for a WAL checkpoint that holds it is a
    // wait (busy_timeout), not an immediate SQLITE_BUSY.
    apply: (changes, checkpoint) => guard(() => applyAll.immediate(sqliteRows(changes), checkpoint)),
    applyRows: (rows, checkpoint) => guard(() => (options.bulkLoad ? applyBulk(rows, checkpoint) : applyAll.immediate(rows, checkpoint))),
    finishBulkLoad: () =>
      guard(() => {
        if (!options.bulkLoad) return;
        commitBulk();
        db.exec(BULK_INDEXES);
      }),
    checkpoint: (name) =>
      guard(() => {
        const row = q.checkpoint.get(name) as { position: string } | undefined;
        return row ? BigInt(row.position) : null;
      }),
    getPreset: (workspaceId, slug) =>
      guard(() => {
        const row = q.getPreset.get(workspaceId, slug) as { revision: bigint; doc: string } | undefined;
        return row ? ({ revision: row.revision, view: JSON.parse(row.doc) as PresetView } satisfies PresetRecord) : null;
      }),
    getPresetJson: (workspaceId, slug) =>
      guard(() => {
        const row = q.getPreset.get(workspaceId, slug) as { revision: bigint; doc: string } | undefined;
        return row ? ({ workspaceId, slug, revision: row.revision, json: row.doc } satisfies PresetJson) : null;
      }),
    listPresets: (workspaceId, page, statuses, search) =>
      guard(() => {
        const { list, count } = listing(statuses, Boolean(search));
        const wanted = [...(statuses ?? []), ...(search ? [foldCase(search), foldCase(search)] : [])];
        return {
          items: docs<PresetView>(list.all(workspaceId, ...wanted, page.limit, page.offset)),
          total: (count.get(workspaceId, ...wanted) as { n: number }).n,
        };
      }),
    getVersion: (presetId, version) =>
      guard(() => {
        const row = q.getVersion.get(presetId, version) as { doc: string } | undefined;
        return row ? (JSON.parse(row.doc) as VersionView) : null;
      }),
    getLatestVersion: (presetId) =>
      guard(() => {
        const row = q.getLatestVersion.get(presetId) as { doc: string } | undefined;
        return row ? (JSON.parse(row.doc) as VersionView) : null;
      }),
    listVersions: (presetId, page) =>
      guard(() => ({
        items: docs<VersionView>(q.listVersions.all(presetId, page.limit, page.offset)),
        total: (q.countVersions.get(presetId) as { n: number }).n,
      })),
    listVersionsJson: (presetId, page) => guard(() => q.listVersionsJson.all(presetId, page.limit, page.offset) as VersionJson[]),
    close: async () => {
      if (db.open) db.close();
    },
  };
};
