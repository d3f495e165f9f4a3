import Database from 'better-sqlite3';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVENTS_FILE, READ_MODEL_FILE } from '#src/backends';
import type { EventStoreAdapter } from '#src/eventstore/eventStore';
import { openSqliteEventStore } from '#src/eventstore/sqlite/store';
import { WORKSPACE_EVENT_TYPES } from '#src/workspaceLog/catalog';
import { hasStoredText } from '#src/eventstore/eventFeed';
import { projectBatch } from '#projections/projectBatch';
import { PROJECTOR_NAME } from '#projections/projector';
import { openMemoryReadModel } from '#projections/readmodel/memory';
import type { ProjectionChange } from '#projections/readmodel/readModel';
import { BULK_COMMIT_EVERY, openSqliteReadModel } from '#projections/readmodel/sqlite';
import { rebuildInto } from '#projections/rebuild';
import { openSqliteRebuildTarget } from '#projections/rebuildTarget';
import { verifyReadModel } from '#projections/verify';
import { dump, makeHistory, projectLive, releaseHistory, WORKSPACES } from '#support/presetHistory';
import { WORKSPACE_STREAM_PREFIX } from '#src/events/workspaceStreams';

/**
 * The embedded rebuild and verify on real files: a store holding every preset event type, rebuilt
 * through the bulk path (deferred keys, 8 KiB pages) and compared with the live projector's read
 * model; then faults planted in the file with SQL, each of which verify must name.
 */
const [A, B] = WORKSPACES;

describe('rebuild and verify on the embedded stores', () => {
  let dir: string;
  let store: EventStoreAdapter;
  const liveFile = () => join(dir, 'live.db');
  const file = () => join(dir, READ_MODEL_FILE);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'presets-rebuild-verify-'));
    store = openSqliteEventStore({ file: join(dir, EVENTS_FILE), pollIntervalMs: 10 });
    await makeHistory(store);
    await releaseHistory(store);
    const live = openSqliteReadModel({ file: file() });
    await projectLive(store, live);
    await live.close();
    copyFileSync(file(), liveFile());
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the history holds every preset event type', async () => {
    const events = await store.readAll({ limit: 10_000, streamPrefix: WORKSPACE_STREAM_PREFIX });
    const types = new Set(events.map((e) => e.type));
    expect(WORKSPACE_EVENT_TYPES.filter((type) => !types.has(type))).toEqual([]);
  });

  it('the live projector, which follows the stored text, writes the bytes it writes from parsed events', async () => {
    expect(hasStoredText(store)).toBe(true); // so projectLive took the stored text
    const parsed = openSqliteReadModel({ file: join(dir, 'parsed.db') });
    const live = openSqliteReadModel({ file: liveFile() });
    try {
      for (const event of await store.readAll({ limit: 10_000, streamPrefix: WORKSPACE_STREAM_PREFIX })) {
        expect('stored' in event).toBe(false);
        await projectBatch(parsed, [event], PROJECTOR_NAME);
      }
      const expected = await dump(parsed);
      expect(expected.length).toBeGreaterThan(10);
      for (const { record, versions } of expected) {
        const { workspace_id: ws, slug, id } = record!.view;
        expect((await live.getPresetJson(ws, slug))!.json).toBe((await parsed.getPresetJson(ws, slug))!.json);
        const page = { offset: 0, limit: versions.length + 1 };
        expect(await live.listVersionsJson(id, page)).toEqual(await parsed.listVersionsJson(id, page));
      }
    } finally {
      await parsed.close();
      await live.close();
    }
  });

  it.each([1, 3, 100])('a rebuild (pages of %i events) holds what the live projector made, keys and all', async (pageSize) => {
    const target = openSqliteRebuildTarget(dir);
    let writes = 0;
    const writer = { ...target.writer, write: (rows: unknown) => (writes++, target.writer.write(rows)) };
    const built = await rebuildInto(store, target.readModel, { log: () => {}, writer, pageSize });
    // Pages of one event make more writes than one bulk transaction takes: the file is committed mid-load too.
    if (pageSize === 1) expect(writes).toBeGreaterThan(BULK_COMMIT_EVERY);
    await target.switchOver();
    const [live, rebuilt] = [openSqliteReadModel({ file: liveFile() }), openSqliteReadModel({ file: file() })];
    try {
      const expected = await dump(live);
      expect(expected.length).toBeGreaterThan(10);
      expect(await dump(rebuilt)).toEqual(expected);
      // Byte for byte, not only equal documents: a document's ETag is its revision, and a rebuild
      // (which keeps each config as its stored text) must not change the bytes behind one.
      for (const { record, versions } of expected) {
        const { workspace_id: ws, slug, id } = record!.view;
        expect((await rebuilt.getPresetJson(ws, slug))!.json).toBe((await live.getPresetJson(ws, slug))!.json);
        const page = { offset: 0, limit: versions.length + 1 };
        expect(await rebuilt.listVersionsJson(id, page)).toEqual(await live.listVersionsJson(id, page));
      }
      expect(await rebuilt.checkpoint(PROJECTOR_NAME)).toBe(built.position);
      // The keys made after the load hold: a version projected again changes nothing, and preset ids stay unique.
      const [first] = expected;
      const again = { ...first!.versions[0]!, note: 'projected twice' };
      await rebuilt.apply([{ kind: 'putVersion', version: again }]);
      expect(await rebuilt.getVersion(again.preset_id, again.version)).toEqual(first!.versions[0]);
    } finally {
      await live.close();
      await rebuilt.close();
    }
    const db = new Database(file(), { readonly: true });
    try {
      expect(db.pragma('page_size', { simple: true })).toBe(8192);
    } finally {
      db.close();
    }
    const readModel = openSqliteReadModel({ file: file() });
    try {
      const report = await verifyReadModel(store, readModel, { strict: true });
      expect(report).toMatchObject({ differences: [], differenceCount: 0, behind: 0, lagging: 0, movedOn: 0 });
    } finally {
      await readModel.close();
    }
  });

  it('a rebuild into a read model that stores objects (as MongoDB does), its changes cloned as across a thread, holds what the live projector made', async () => {
    // The fold reads the SQLite store's stored text and keeps configs as text; the objects a read model is given are plain JSON.
    const target = openMemoryReadModel();
    await rebuildInto(store, target, {
      log: () => {},
      writer: { encoding: 'changes', write: (changes) => target.apply(structuredClone(changes as ProjectionChange[])) },
    });
    const live = openSqliteReadModel({ file: liveFile() });
    try {
      expect(await dump(target)).toEqual(await dump(live));
    } finally {
      await live.close();
    }
  });

  it('verify names each fault planted in the file, and nothing for a document stored with its keys in another order', async () => {
    copyFileSync(liveFile(), file());
    const db = new Database(file());
    const id = (ws: string, slug: string) =>
      (db.prepare('SELECT id FROM presets WHERE workspace_id = ? AND slug = ?').get(ws, slug) as { id: string }).id;
    const [summarise, supportBot] = [id(A, 'summarise'), id(A, 'support-bot')];
    // A version's field changed, a version removed, a version that no event made, a preset removed,
    // a preset that no event made (a copy of another under a new slug and id).
    db.prepare(`UPDATE preset_versions SET doc = json_set(doc, '$.system_prompt', 'edited') WHERE preset_id = ? AND version = 1`).run(
      summarise,
    );
    db.prepare('DELETE FROM preset_versions WHERE preset_id = ? AND version = 2').run(supportBot);
    db.prepare(
      `INSERT INTO preset_versions (preset_id, version, doc) SELECT preset_id, 99, json_set(doc, '$.version', 99) FROM preset_versions WHERE preset_id = ? AND version = 1`,
    ).run(supportBot);
    const removed = db
      .prepare('SELECT slug, id FROM presets WHERE workspace_id = ? AND slug NOT IN (?, ?) LIMIT 1')
      .get(B, 'summarise', 'support-bot') as { slug: string; id: string };
    db.prepare('DELETE FROM presets WHERE workspace_id = ? AND slug = ?').run(B, removed.slug);
    db.prepare(
      `INSERT INTO presets (workspace_id, slug, id, revision, updated_at, status, name_folded, doc)
       SELECT workspace_id, 'orphan', 'orphan-id', revision, updated_at, status, name_folded, json_set(doc, '$.slug', 'orphan', '$.id', 'orphan-id') FROM presets WHERE id = ?`,
    ).run(summarise);
    // The same document, keys in reverse order: different text, equal document.
    const reorder = db
      .prepare('SELECT preset_id, version, doc FROM preset_versions WHERE preset_id = ? AND version = 2')
      .get(summarise) as { doc: string };
    const reversed = Object.fromEntries(Object.entries(JSON.parse(reorder.doc) as object).reverse());
    expect(JSON.stringify(reversed)).not.toBe(reorder.doc);
    db.prepare('UPDATE preset_versions SET doc = ? WHERE preset_id = ? AND version = 2').run(JSON.stringify(reversed), summarise);
    db.close();

    const readModel = openSqliteReadModel({ file: file() });
    try {
      const report = await verifyReadModel(store, readModel);
      expect(report.differences).toHaveLength(5);
      expect(report.differences).toEqual(
        expect.arrayContaining([
          `difference: workspace ${A} preset summarise versions[1].system_prompt: expected "Summarise.", actual "edited"`,
          expect.stringMatching(
            new RegExp(`^difference: workspace ${A} preset support-bot versions\\[2\\]: expected \\{.*, actual \\(absent\\)$`),
          ),
          expect.stringMatching(
            new RegExp(`^difference: workspace ${A} preset support-bot versions\\[99\\]: expected \\(absent\\), actual \\{`),
          ),
          `difference: workspace ${B} preset ${removed.slug} (preset): expected "${removed.id}", actual (absent)`,
          `difference: workspace ${A} preset orphan (preset): expected (absent), actual "orphan-id"`,
        ]),
      );
      expect(report.differenceCount).toBe(5);
    } finally {
      await readModel.close();
    }
  });
});
