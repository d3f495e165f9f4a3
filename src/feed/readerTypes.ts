/**
 * The types the shared tail's reader (sharedTail.ts) reads: every type while one of its
 * subscribers takes every type, else the union of the types its subscribers name. A store reads
 * those through its type index, so a follower of a few types (the key ring) costs a write of
 * another type no read. Counted as subscribers come and go; `key` tells whether a running reader
 * reads what is wanted now.
 */
export interface ReaderTypes {
  /** A subscriber came (1) or went (-1), naming these types (every type when undefined). */
  count(types: ReadonlySet<string> | undefined, by: 1 | -1): void;
  /** The types to read (undefined: every type). */
  wanted(): readonly string[] | undefined;
  /** The same for the same types. */
  key(types: readonly string[] | undefined): string;
}

/** `narrows`: the store can read only some types and still tell how far it has read (EventFeed.reportsScanned). */
export const readerTypes = (narrows: boolean): ReaderTypes => {
  let untyped = 0;
  const typed = new Map<string, number>();
  return {
    count(types, by) {
      if (!types) untyped += by;
      else
        for (const type of types) {
          const n = (typed.get(type) ?? 0) + by;
          if (n === 0) typed.delete(type);
          else typed.set(type, n);
        }
    },
    wanted: () => (!narrows || untyped > 0 || typed.size === 0 ? undefined : [...typed.keys()].sort()),
    key: (types) => (types ? JSON.stringify(types) : '*'),
  };
};
