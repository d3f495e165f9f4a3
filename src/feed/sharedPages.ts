/**
 * The shared tail's catch-up reads (sharedTail.ts): subscribers that read the same range (the
 * webhooks of one workspace replayed together, or started again from the same checkpoint) are
 * handed the same full pages, read once. The last `kept` full pages are kept by what was asked,
 * least recently used dropped first; a read in flight is shared too. A full page never changes
 * (the log is append-only, positions in commit order); a short one, the end of the log when it
 * was read, is never handed to a subscriber that did not read it itself.
 */
export interface PageQuery {
  after: bigint;
  limit: number;
  streamPrefix?: string;
  types?: readonly string[];
}

export interface SharedPageReads<E> {
  read(query: PageQuery): Promise<E[]>;
  clear(): void;
}

export const sharedPageReads = <E>(readAll: (query: PageQuery) => Promise<E[]>, kept: number): SharedPageReads<E> => {
  /** Catch-up reads, latest last, by what was asked. */
  const pages = new Map<string, Promise<E[]>>();
  return {
    async read(o) {
      if (kept === 0) return readAll(o);
      const key = `${o.after}|${o.limit}|${o.streamPrefix ?? ''}|${o.types?.join(',') ?? '*'}`;
      const shared = pages.get(key);
      if (shared) {
        pages.delete(key); // the latest used goes last: the least recently used is dropped first
        pages.set(key, shared);
        const page = await shared.catch(() => undefined);
        // Short (the log's end when it was read: there may be more now) or failed: read it again.
        return page && page.length === o.limit ? page : readAll(o);
      }
      const read = readAll(o);
      pages.set(key, read);
      for (const oldest of pages.keys()) {
        if (pages.size <= kept) break;
        pages.delete(oldest);
      }
      const forget = () => {
        if (pages.get(key) === read) pages.delete(key);
      };
      read.then((page) => page.length < o.limit && forget(), forget);
      return read;
    },
    clear: () => pages.clear(),
  };
};
