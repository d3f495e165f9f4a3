import type { EventFeed } from '../eventstore/eventFeed';
import type { EventStore, RecordedEvent } from '../eventstore/eventStore';
import type { StoredEvent, StoredTextReader, StreamReader } from '../eventstore/streamReader';
import { isJsonObject, linkBody, linkHash, linksTo, splitStoredMetadata, storedHash } from '../eventstore/hashChain';
import { linksOf } from './checkpoint';
import type { SealedLinks } from '../eventstore/sealedLinks';

/**
 * The log as a verify reads it (src/audit/verify.ts): its events with their links, in position
 * order a page at a time, as stored text where the store keeps it and parsed elsewhere, and single
 * events looked up by stream and revision.
 */
export type VerifiableStore = EventStore & EventFeed & StreamReader & SealedLinks & Partial<StoredTextReader>;

/** A stream's last revision and link, as a verify keeps it. */
export type Head = { revision: bigint; link: string };

export /** An event as the chain check sees it: where it is, its link, and the link it has after `previous` when it follows it. */
interface Linked {
  stream: string;
  revision: bigint;
  position: bigint;
  link: string | undefined;
  after(previous: string): string | undefined;
}

/**
 * The events of the streams with these prefixes (disjoint) at positions in (after, through], in
 * position order across the prefixes, a page at a time.
 */
export async function* linkPages(store: VerifiableStore, prefixes: readonly string[], after: bigint, through: bigint, pageSize: number) {
  if (prefixes.length === 1) {
    yield* prefixPages(store, prefixes[0]!, after, through, pageSize);
    return;
  }
  const sources = prefixes.map((p) => prefixPages(store, p, after, through, pageSize)[Symbol.asyncIterator]());
  const pages = await Promise.all(sources.map(async (source) => (await source.next()).value as Linked[] | undefined));
  const at = sources.map(() => 0);
  let out: Linked[] = [];
  for (;;) {
    let first = -1;
    pages.forEach((page, i) => {
      if (page && (first < 0 || page[at[i]!]!.position < pages[first]![at[first]!]!.position)) first = i;
    });
    if (first < 0) break;
    out.push(pages[first]![at[first]!++]!);
    if (at[first] === pages[first]!.length) {
      pages[first] = (await sources[first]!.next()).value as Linked[] | undefined;
      at[first] = 0;
    }
    if (out.length >= pageSize) {
      yield out;
      out = [];
    }
  }
  if (out.length > 0) yield out;
}

/** The events of streams with this prefix at positions in (after, through], in position order: as stored text where the store keeps it (no parse), else parsed. */
async function* prefixPages(store: VerifiableStore, streamPrefix: string, after: bigint, through: bigint, pageSize: number) {
  const prefix = streamPrefix === '' ? {} : { streamPrefix };
  for (let from = after; from < through;) {
    const options = { after: from, limit: pageSize, ...prefix };
    const page = store.readLogStored
      ? await storedLinks(
          store,
          (await store.readLogStored(options)).filter((e) => e.position <= through),
        )
      : await parsedLinks(
          store,
          (await store.readAll(options)).filter((e) => e.position <= through),
        );
    if (page.length > 0) yield page;
    if (page.length < pageSize) break;
    from = page[page.length - 1]!.position;
  }
}

const parsedLinks = async (store: SealedLinks, page: readonly RecordedEvent[]): Promise<Linked[]> => {
  const links = await linksOf(store, page);
  return page.map((e, i): Linked => {
    const link = links[i];
    return {
      ...e,
      link,
      after: (previous) => (link !== undefined && linksTo(previous, e, link) ? link : undefined),
    };
  });
};

export const parsed = (text: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
};

/**
 * The links of events read as stored text. The embedded store keeps data and metadata as the text
 * the link covers (canonical JSON before `hashed`) and appends the link to the metadata (chain.ts
 * metadataJsonWithHash), so the body the link covers is assembled from the text as it is and
 * hashed: no parse of the data, no serialization. The hash covers data and metadata as one text,
 * so a match also needs the metadata (without the link) to be a JSON object: with it, the data's
 * text cannot have taken or given characters at the boundary (an object's proper suffix or
 * extension never parses), and is the text hashed at append. Anything else (a sealed event written
 * before canonical JSON, a fault) is decided as for parsed events (chain.ts linksTo).
 */
const storedLinks = async (store: SealedLinks, page: readonly StoredEvent[]): Promise<Linked[]> => {
  const linked = page.map((e) => {
    const split = splitStoredMetadata(e.metadata);
    if (split) return new StoredLinked(e, split.hash, split.unlinked);
    const metadata = parsed(e.metadata);
    return new StoredLinked(e, metadata.ok ? storedHash(metadata.value) : undefined, e.metadata);
  });
  const missing = linked.filter((l) => l.link === undefined).map((l) => l.position);
  if (missing.length > 0) {
    const sealed = await store.sealedHashes(missing);
    for (const l of linked) l.link ??= sealed.get(l.position);
  }
  return linked;
};

/** An event read as stored text, with its link (one class, not closures per event: a verify makes a million). */
class StoredLinked implements Linked {
  readonly stream: string;
  readonly revision: bigint;
  readonly position: bigint;
  constructor(
    private readonly event: StoredEvent,
    public link: string | undefined,
    /** The metadata's text without the link, as the writer had it before it added the link. */
    private readonly unlinked: string,
  ) {
    this.stream = event.stream;
    this.revision = event.revision;
    this.position = event.position;
  }

  after(previous: string): string | undefined {
    return this.link === undefined ? undefined : (this.asStored(previous) ?? this.asParsed(previous));
  }

  /** The link computed from the text as it is: a string of its own, where `link` is a slice of the metadata's text. */
  private asStored(previous: string): string | undefined {
    const e = this.event;
    const computed = linkHash(previous, linkBody(e.type, e.data, this.unlinked, e.stream, e.revision));
    if (computed !== this.link) return undefined;
    const metadata = parsed(this.unlinked);
    return metadata.ok && isJsonObject(metadata.value) ? computed : undefined;
  }

  private asParsed(previous: string): string | undefined {
    const e = this.event;
    const [data, metadata] = [parsed(e.data), parsed(e.metadata)];
    return data.ok && metadata.ok && linksTo(previous, { ...e, data: data.value, metadata: metadata.value }, this.link!)
      ? this.link
      : undefined;
  }
}

/**
 * The events a page's streams not kept will be looked up for (headBefore): each one's revision
 * before its first event in the page, read together where the store can (an index lookup each,
 * without a statement each).
 */
export const eventsBefore = async (
  store: VerifiableStore,
  page: readonly Linked[],
  kept: ReadonlyMap<string, Head>,
): Promise<Map<string, Linked>> => {
  const wanted = new Map<string, bigint>();
  for (const e of page) if (e.revision > 0n && !kept.has(e.stream) && !wanted.has(e.stream)) wanted.set(e.stream, e.revision - 1n);
  const read = new Map<string, Linked>();
  if (wanted.size === 0 || !store.readStoredMany) return read;
  const found = await store.readStoredMany([...wanted].map(([stream, revision]) => ({ stream, revision })));
  for (const linked of await storedLinks(store, found)) read.set(linked.stream, linked);
  return read;
};

/** The event at a checkpointed head, with its link: as stored text where the store keeps it. */
export const eventAt = async (store: VerifiableStore, stream: string, revision: bigint): Promise<Linked | undefined> => {
  if (store.readStored) {
    const stored = await store.readStored(stream, revision);
    return stored && (await storedLinks(store, [stored]))[0];
  }
  const [event] = await store.read(stream, { fromRevision: revision, limit: 1 });
  if (!event || event.revision !== revision) return undefined; // the next one stored, not this one
  return (await parsedLinks(store, [event]))[0];
};
