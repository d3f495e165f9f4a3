import { openDatabase, storeFault } from '../sqlite/connection';
import type { UsageCount, UsageStore } from './usageStore';

/** The embedded usage store's file, beside the event store's and the read model's. */
export const USAGE_FILE = 'usage.db';

interface Row {
  workspace_id: string;
  preset_id: string;
  label: string;
  version: number;
  hour: string;
  count: number;
}

/**
 * Usage on SQLite: one row per (workspace, preset, label, version, hour), added to by an upsert in
 * one transaction per flush. A label of none is kept as '' (a primary key column cannot hold
 * NULL and stay unique). Durability `normal`: counts are metrics, and a flush lost to a power cut
 * costs at most the last checkpoint's worth of counts, never an event.
 */
export const openSqliteUsageStore = (options: { file: string }): UsageStore => {
  const db = openDatabase(options.file, 'normal');
  db.exec(`CREATE TABLE IF NOT EXISTS usage (
    workspace_id TEXT NOT NULL, preset_id TEXT NOT NULL, label TEXT NOT NULL, version INTEGER NOT NULL, hour TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, preset_id, hour, label, version)
  ) WITHOUT ROWID`);
  const upsert = db.prepare(`INSERT INTO usage (workspace_id, preset_id, label, version, hour, count)
    VALUES (@workspaceId, @presetId, @label, @version, @hour, @count)
    ON CONFLICT (workspace_id, preset_id, hour, label, version) DO UPDATE SET count = count + excluded.count`);
  const select = db.prepare<[string, string, string, string], Row>(
    `SELECT * FROM usage WHERE workspace_id = ? AND preset_id = ? AND hour >= ? AND hour < ? ORDER BY hour, label, version`,
  );
  const addAll = db.transaction((counts: readonly UsageCount[]) => {
    for (const c of counts) upsert.run({ ...c, label: c.label ?? '' });
  });
  return {
    async add(counts) {
      if (counts.length === 0) return;
      try {
        addAll(counts);
      } catch (error) {
        throw storeFault(error);
      }
    },
    async query(workspaceId, presetId, from, to) {
      return select.all(workspaceId, presetId, from.toISOString(), to.toISOString()).map((r) => ({
        workspaceId: r.workspace_id,
        presetId: r.preset_id,
        label: r.label === '' ? null : r.label,
        version: r.version,
        hour: r.hour,
        count: r.count,
      }));
    },
    async close() {
      db.close();
    },
  };
};
