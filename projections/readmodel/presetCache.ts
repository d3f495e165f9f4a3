import type { EventEmitter } from 'node:events';
import { LRUCache } from 'lru-cache';
import type { PresetJson, ReadModel } from './readModel';

/**
 * The read model with the preset documents this process reads most, in memory. It stays current
 * because the projector of this process announces every document it writes ('projected'), and
 * every projector projects every event: only a document changed outside projection (by hand, or a
 * rebuild, which writes the same documents) goes unseen until it is evicted. A document is only
 * ever replaced by one of a higher revision, so reads never go back in time.
 */
export const DEFAULT_CACHE_BYTES = 8 * 1024 * 1024;

export const withPresetCache = (readModel: ReadModel, projected: EventEmitter, maxBytes = DEFAULT_CACHE_BYTES): ReadModel => {
  const cache = new LRUCache<string, PresetJson>({ maxSize: maxBytes, sizeCalculation: (doc) => doc.json.length + doc.slug.length + 64 });
  const key = (workspaceId: string, slug: string) => `${workspaceId}/${slug}`;
  const offer = (doc: PresetJson) => {
    const k = key(doc.workspaceId, doc.slug);
    const held = cache.peek(k);
    if (!held || held.revision < doc.revision) cache.set(k, doc);
  };
  projected.on('projected', (_position: bigint, documents: PresetJson[]) => documents.forEach(offer));
  return {
    ...readModel,
    async getPresetJson(workspaceId, slug) {
      const held = cache.get(key(workspaceId, slug));
      if (held) return held;
      const doc = await readModel.getPresetJson(workspaceId, slug);
      if (doc) offer(doc);
      return doc;
    },
  };
};
