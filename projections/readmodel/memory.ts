import { plainChange, presetJsonOf, versionViewJson } from './documentJson';
import {
  foldCase,
  type PageOf,
  type PresetRecord,
  type PresetView,
  type ProjectionChange,
  type ReadModel,
  type VersionView,
} from './readModel';

/**
 * A read model in memory: what `verify` folds the events into, and a stand-in for tests.
 * It keeps the same rules as the stored ones (highest revision wins, a version is written once)
 * and copies documents in and out, so a caller can never change what it holds by accident.
 */
export interface MemoryReadModel extends ReadModel {
  /** Every preset with its versions (ascending), in no particular order: for verify. */
  entries(): IterableIterator<{ record: PresetRecord; versions: VersionView[] }>;
}

const presetKey = (workspaceId: string, slug: string) => `${workspaceId}\u0000${slug}`;

/**
 * `copies: false` keeps and hands out the very objects given to `apply`: faster, for a caller that
 * changes none of them (verify, whose pure projection always makes new ones).
 */
export const openMemoryReadModel = ({ copies = true } = {}): MemoryReadModel => {
  const copy = copies ? <T>(value: T): T => structuredClone(value) : <T>(value: T): T => value;
  const pageOf = <T>(all: T[], page: { offset: number; limit: number }): PageOf<T> => ({
    items: all.slice(page.offset, page.offset + page.limit).map(copy),
    total: all.length,
  });
  const presets = new Map<string, PresetRecord>();
  const versions = new Map<string, Map<number, VersionView>>(); // preset id → number → view
  const checkpoints = new Map<string, bigint>();
  let closed = false;
  const open = () => {
    if (closed) throw new Error('read model is closed');
  };
  const sortedVersions = (presetId: string) => [...(versions.get(presetId)?.values() ?? [])].sort((a, b) => a.version - b.version);

  const applyChange = (change: ProjectionChange) => {
    if (change.kind === 'putPreset') {
      const { view, revision } = change.record;
      const key = presetKey(view.workspace_id, view.slug);
      const stored = presets.get(key);
      if (!stored || stored.revision < revision) presets.set(key, copy(change.record));
    } else {
      const v = change.version;
      let byNumber = versions.get(v.preset_id);
      if (!byNumber) versions.set(v.preset_id, (byNumber = new Map()));
      if (!byNumber.has(v.version)) byNumber.set(v.version, copy(v));
    }
  };

  return {
    async apply(changes, checkpoint) {
      open();
      // Objects are kept as they are: a config a projector kept as its stored text is parsed here.
      changes.map(plainChange).forEach(applyChange);
      if (checkpoint) checkpoints.set(checkpoint.name, checkpoint.position);
    },
    async checkpoint(name) {
      open();
      return checkpoints.get(name) ?? null;
    },
    async getPreset(workspaceId, slug) {
      open();
      const record = presets.get(presetKey(workspaceId, slug));
      return record ? copy(record) : null;
    },
    async getPresetJson(workspaceId, slug) {
      open();
      const record = presets.get(presetKey(workspaceId, slug));
      return record ? presetJsonOf(record) : null;
    },
    async listPresets(workspaceId, page, statuses, search) {
      open();
      const folded = search ? foldCase(search) : undefined;
      const all: PresetView[] = [...presets.values()]
        .map((r) => r.view)
        .filter((v) => v.workspace_id === workspaceId && (!statuses || statuses.includes(v.status)))
        .filter((v) => !folded || foldCase(v.slug).includes(folded) || foldCase(v.name).includes(folded))
        // the stored ones' order: updated_at descending, then slug (binary, as SQLite compares)
        .sort((a, b) =>
          a.updated_at === b.updated_at ? (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0) : a.updated_at < b.updated_at ? 1 : -1,
        );
      return pageOf(all, page);
    },
    async getVersion(presetId, version) {
      open();
      const v = versions.get(presetId)?.get(version);
      return v ? copy(v) : null;
    },
    async getLatestVersion(presetId) {
      open();
      let latest: VersionView | undefined;
      for (const v of versions.get(presetId)?.values() ?? []) if (!latest || v.version > latest.version) latest = v;
      return latest ? copy(latest) : null;
    },
    async listVersions(presetId, page) {
      open();
      return pageOf(sortedVersions(presetId), page);
    },
    async listVersionsJson(presetId, page) {
      open();
      return pageOf(sortedVersions(presetId), page).items.map((v) => ({ version: v.version, json: versionViewJson(v) }));
    },
    *entries() {
      for (const record of presets.values()) yield { record, versions: sortedVersions(record.view.id) };
    },
    async close() {
      closed = true;
    },
  };
};
