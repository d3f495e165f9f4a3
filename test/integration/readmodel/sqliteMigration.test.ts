import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteReadModel } from '#projections/readmodel/sqlite';
import { removeDir } from '#support/service';

/** A read-model file written before searches existed is searchable once opened by this version. */
it('a file without name_folded gets it on open, filled from each document, and is searched by name', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'presets-rm-'));
  const file = join(dir, 'readmodel.db');
  try {
    const old = new Database(file);
    old.exec(`CREATE TABLE presets (workspace_id TEXT NOT NULL, slug TEXT NOT NULL, id TEXT NOT NULL UNIQUE, revision INTEGER NOT NULL,
      updated_at TEXT NOT NULL, doc TEXT NOT NULL, PRIMARY KEY (workspace_id, slug))`);
    const doc = (slug: string, name: string) =>
      JSON.stringify({ id: slug, slug, name, workspace_id: 'w', updated_at: '2026-01-01T00:00:00.000Z', status: 'active' });
    old
      .prepare('INSERT INTO presets VALUES (?, ?, ?, ?, ?, ?)')
      .run('w', 'a', 'a', 0, '2026-01-01T00:00:00.000Z', doc('a', 'Ünïcode Name'));
    old.prepare('INSERT INTO presets VALUES (?, ?, ?, ?, ?, ?)').run('w', 'b', 'b', 0, '2026-01-01T00:00:00.000Z', doc('b', 'Other'));
    old.close();
    const rm = openSqliteReadModel({ file });
    const found = await rm.listPresets('w', { offset: 0, limit: 10 }, undefined, 'ünïcode');
    expect(found.items.map((p) => p.slug)).toEqual(['a']);
    expect(found.total).toBe(1);
    expect((await rm.listPresets('w', { offset: 0, limit: 10 }, undefined, 'B')).items.map((p) => p.slug)).toEqual(['b']);
    await rm.close();
  } finally {
    removeDir(dir);
  }
});
