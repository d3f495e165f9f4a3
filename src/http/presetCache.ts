import { LRUCache } from 'lru-cache';
import type { Announcements, PresetJson, ReadModelQueries } from '../../projections/readmodel/readModel';

/**
 * The read model with the preset documents this process reads most, in memory. It stays current
 * because the projector of this process announces every document it writes ('projected'), and
 * every projector projects every event: only a document changed outside projection (by hand, or a
 * rebuild, which writes the same documents) goes unseen until it is evicted. A document is only
 * ever replaced by one of a higher revision, so reads never go back in time.
 */
export const DEFAULT_CACHE_BYTES = 1024 * 1024;

export const withPresetCache = <R extends ReadModelQueries>(readModel: R, projected: Announcements, maxBytes = DEFAULT_CACHE_BYTES): R => {
  const cache = new LRUCache<string, PresetJson>({ maxSize: maxBytes, sizeCalculation: (doc) => doc.json.length + doc.slug.length + 64 });
  // Reads of the read model under way, one per document, and what was announced meanwhile: the
  // read may return the document from before the announcement.
  const loading = new Map<string, Promise<PresetJson | null>>();
  const announcedWhileLoading = new Map<string, PresetJson>();
  const key = (workspaceId: string, slug: string) => `${workspaceId}/${slug}`;
  const newer = (a: PresetJson | null | undefined, b: PresetJson | null | undefined) =>
    !a ? (b ?? null) : b && b.revision > a.revision ? b : a;

  // Announcements refresh what is held; what is read is what gets held (a burst of creates does not
  // fill the cache with documents nobody has read).
  projected.on('projected', (_position, documents) => {
    for (const doc of documents) {
      const k = key(doc.workspaceId, doc.slug);
      const held = cache.peek(k);
      if (held) {
        if (held.revision < doc.revision) cache.set(k, doc);
      } else if (loading.has(k)) {
        announcedWhileLoading.set(k, newer(announcedWhileLoading.get(k), doc)!);
      }
    }
  });

  const load = async (k: string, workspaceId: string, slug: string) => {
    try {
      const doc = newer(await readModel.getPresetJson(workspaceId, slug), announcedWhileLoading.get(k));
      if (doc) cache.set(k, newer(cache.peek(k), doc)!);
      return doc;
    } finally {
      loading.delete(k);
      announcedWhileLoading.delete(k);
    }
  };

  return {
    ...readModel,
    getPresetJson(workspaceId, slug) {
      const k = key(workspaceId, slug);
      const held = cache.get(k);
      if (held) return Promise.resolve(held);
      let pending = loading.get(k);
      if (!pending) loading.set(k, (pending = load(k, workspaceId, slug)));
      return pending;
    },
  };
};
