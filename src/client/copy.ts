import { LRUCache } from 'lru-cache';
import { projectPresetEvent, versionToLookUp } from '../../projections/presetProjection';
import type { PresetRecord, PresetView, VersionView } from '../../projections/readmodel/readModel';
import { presetEvents } from '../presets/events';
import { parsePresetStreamName } from '../presets/streamName';
import type { PresetSource } from '../resolve/presetSource';
import type { ApiEvent } from '../apiTypes/event';
import type { ClientApi } from './api';

/**
 * A gateway's copy of its workspace's presets: every preset document (listed page by page on
 * first use), the versions it has needed (fetched on demand and kept: a version never changes),
 * and each preset's newest version once asked for. Events from the feed are applied with the
 * service's own pure projection, and a document is only replaced by one of a higher stream
 * revision, so the copy never goes back in time.
 *
 * A listed document comes without its revision; the first event of its preset has the client read
 * the preset once (its ETag is the revision), then the event applies only if it is newer.
 */
interface Held {
  view: PresetView;
  /** The stream revision the view reflects; undefined for a document from the list, until it is read alone. */
  revision?: bigint;
}

/** What the feed delivers: the event as /api/v1/events shows it. */
export type FeedEvent = ApiEvent;

export const PAGE_SIZE = 100;

export interface PresetCopy extends PresetSource {
  /** Lists the workspace's presets; resolves with the feed position to follow from (undefined: from the start). */
  load(): Promise<string | undefined>;
  apply(event: FeedEvent): Promise<void>;
  /** Asks the service, with If-None-Match, whether each preset held is still current; takes the new ones. */
  revalidate(): Promise<void>;
  readonly size: number;
}

export const createPresetCopy = (api: Omit<ClientApi, 'reportUsage'>, options: { maxVersions: number }): PresetCopy => {
  const presets = new Map<string, Held>();
  const versions = new LRUCache<string, VersionView>({ max: options.maxVersions });
  const latest = new Map<string, VersionView>(); // preset id → its newest version, once known
  const versionKey = (presetId: string, number: number) => `${presetId}/${number}`;

  const keepVersion = (version: VersionView, newest: boolean) => {
    versions.set(versionKey(version.preset_id, version.version), version);
    const known = latest.get(version.preset_id);
    // A version added by an event is the newest there is (the next number); one fetched is newest only if said so.
    if (newest && (!known || known.version < version.version)) latest.set(version.preset_id, version);
  };

  const take = (slug: string, record: { view: PresetView; revision: bigint }) => {
    const held = presets.get(slug);
    if (held?.revision !== undefined && held.revision >= record.revision) return;
    if (held && held.view.id !== record.view.id) latest.delete(held.view.id);
    presets.set(slug, { view: record.view, revision: record.revision });
  };

  /** The preset with its revision, read alone when only the list gave it (or it was not held). */
  const withRevision = async (slug: string): Promise<PresetRecord | null> => {
    const held = presets.get(slug);
    if (held?.revision !== undefined) return { view: held.view, revision: held.revision };
    const read = await api.getPreset(slug);
    if (read === null || read === 'unchanged') return null;
    take(slug, read);
    return read;
  };

  const versionOf = async (slug: string, presetId: string, number: number): Promise<VersionView | null> => {
    const held = versions.get(versionKey(presetId, number));
    if (held) return held;
    const fetched = await api.getVersion(slug, number);
    if (fetched) keepVersion(fetched, false);
    return fetched;
  };

  return {
    async load() {
      let position: string | undefined;
      for (let offset = 0, total = 1; offset < total; offset += PAGE_SIZE) {
        const page = await api.listPresets(offset, PAGE_SIZE);
        // The first page's position: the documents of every later page reflect at least as much.
        if (offset === 0) position = page.position;
        total = page.total;
        for (const view of page.items) if (!presets.has(view.slug)) presets.set(view.slug, { view });
        if (page.items.length === 0) break;
      }
      return position;
    },

    async apply(event) {
      // Only a preset's events make a document (a workspace's keys stream shares the feed).
      if (!presetEvents.handles(event.type)) return;
      const stored = presetEvents.decode({
        id: event.id,
        type: event.type,
        stream: event.stream,
        revision: BigInt(event.revision),
        position: BigInt(event.position),
        recordedAt: new Date(event.recorded_at),
        data: event.data,
        metadata: event.metadata,
      });
      const slug = parsePresetStreamName(event.stream)?.slug;
      if (slug === undefined) return;
      let current: PresetRecord | null;
      if (stored.event.type === 'PresetCreated' && !presets.has(slug)) current = null;
      else {
        current = await withRevision(slug);
        // Not in the read model yet (it lags the feed): the document, when read, will reflect this event.
        if (!current) return;
      }
      if (current && current.revision >= stored.revision) return;
      const wanted = versionToLookUp(stored);
      const designated = wanted ? await versionOf(slug, wanted.presetId, wanted.version) : undefined;
      for (const change of projectPresetEvent(current, stored, designated)) {
        if (change.kind === 'putPreset') take(slug, change.record);
        else keepVersion(change.version, true);
      }
    },

    async revalidate() {
      for (const [slug, held] of [...presets]) {
        const read = await api.getPreset(slug, held.revision);
        if (read === 'unchanged') continue;
        if (read === null) {
          presets.delete(slug);
          latest.delete(held.view.id);
          continue;
        }
        // Versions may have been added meanwhile: the newest is asked again when next needed.
        latest.delete(read.view.id);
        take(slug, read);
      }
    },

    async preset(slug) {
      return presets.get(slug)?.view ?? null;
    },
    version: (preset, number) => versionOf(preset.slug, preset.id, number),
    async latestVersion(preset) {
      const known = latest.get(preset.id);
      if (known) return known;
      const fetched = await api.latestVersion(preset.slug);
      if (fetched) keepVersion(fetched, true);
      return latest.get(preset.id) ?? fetched;
    },
    get size() {
      return presets.size;
    },
  };
};
