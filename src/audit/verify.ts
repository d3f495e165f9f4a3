import { hash } from 'node:crypto';
import type { EventFeed } from '../eventstore/eventFeed';
import type { EventStore, RecordedEvent } from '../eventstore/eventStore';
import type { StoredEvent, StoredTextReader, StreamReader } from '../eventstore/streamReader';
import { bodyOfCanonical, GENESIS_HASH, isJsonObject, linkHash, linksTo, splitStoredMetadata, storedHash } from './chain';
import { headsDigest, linksOf } from './checkpoint';
import { AUDIT_STREAM_PREFIX, LOG_CHECKPOINTED, decodeCheckpoint, type StreamHead } from './events';
import type { SealedLinks } from './links';
import type { Share, ShareRunner } from '../threads/shares';

/**
 * Verifies the whole log: every stream's chain recomputed from GENESIS_HASH, each event checked in
 * log order against the revision before it in its stream (an event changed, removed from the
 * middle or moved breaks it at that event), then every checkpoint's digest and heads (a stream
 * whose tail was removed no longer has the head a checkpoint names). The log is read a page at a
 * time: memory holds one page and the last link of a bounded number of streams, never the log.
 * Stops at the first fault.
 */
export type VerifiableStore = EventStore & EventFeed & StreamReader & SealedLinks & Partial<StoredTextReader>;

export type FaultKind =
  | 'hash_mismatch' // the event's link is not SHA-256(previous link ‖ its canonical JSON): it, or one before it, changed
  | 'missing_event' // a revision is missing from the stream (deleted, or moved)
  | 'unsealed' // the event has no link at all (a log written before the chain, not sealed)
  | 'checkpoint_digest' // a checkpoint's digest is not the hash of its heads
  | 'checkpoint_head_missing' // a checkpoint names a head the stream no longer has (its tail was removed)
  | 'checkpoint_head_mismatch'; // the stream's event at a checkpointed head has another link

export interface ChainFault {
  kind: FaultKind;
  stream: string;
  revision: number;
  position?: string;
  message: string;
}

export interface VerifyReport {
  ok: boolean;
  events: number;
  streams: number;
  checkpoints: number;
  /** The last position verified. */
  through: string | null;
  fault?: ChainFault;
}

export interface VerifyOptions {
  /** Only the streams with these prefixes (every stream by default): a workspace's, for its auditors. */
  prefixes?: readonly string[];
  pageSize?: number;
  onProgress?: (events: number) => void;
  /** How many streams' last links are kept at once (tests make it small). */
  streamsKept?: number;
  /** Verify in threads, each a share: a slice of the log's positions, its chains and the checkpoints due in it (src/workers/auditVerify.ts). */
  threads?: LogShareRunner;
}

/** What checking one share found: the chains through its slice of the log, then the checkpoints' heads of its streams. */
export interface LogShareReport {
  events: number;
  streams: number;
  checkpoints: number;
  fault?: ChainFault;
  /** Where in the log the fault was found: the event's position, or for a checkpoint's the position the checkpoint was taken through. */
  faultAt?: string;
}

export interface LogShareOptions {
  until: bigint;
  prefixes: readonly string[];
  pageSize: number;
  share?: Share;
  /** How many streams' last links a share keeps (STREAMS_KEPT); the others are looked up when met. */
  streamsKept?: number;
}

export type LogShareRunner = ShareRunner<Omit<LogShareOptions, 'share'>, LogShareReport>;

class Fault {
  constructor(readonly fault: ChainFault) {}
}

const fault = (kind: FaultKind, e: { stream: string; revision: bigint | number; position?: bigint }, message: string): Fault =>
  new Fault({
    kind,
    stream: e.stream,
    revision: Number(e.revision),
    ...(e.position !== undefined ? { position: e.position.toString() } : {}),
    message,
  });

export const verifyLog = async (store: VerifiableStore, options: VerifyOptions = {}): Promise<VerifyReport> => {
  // Small pages: a checkpoint event can be ~140 KB (1,000 heads), and checkpoints come in runs.
  const pageSize = options.pageSize ?? 100;
  const prefixes = options.prefixes ?? [''];
  const until = await store.headPosition();
  let events = 0;
  let streams = 0;
  let checkpoints = 0;
  const report = (f?: ChainFault): VerifyReport => ({
    ok: !f,
    events,
    streams,
    checkpoints,
    through: until?.toString() ?? null,
    ...(f ? { fault: f } : {}),
  });
  if (until === null) return report();
  let done = 0;
  const onProgress = (n: number) => options.onProgress?.((done += n));
  const shared = { until, prefixes, pageSize, ...(options.streamsKept ? { streamsKept: options.streamsKept } : {}) };
  const shares = options.threads ? await options.threads(shared, onProgress) : [await verifyLogShare(store, shared, onProgress)];
  events = shares.reduce((n, r) => n + r.events, 0);
  streams = shares.reduce((n, r) => n + r.streams, 0);
  checkpoints = shares.reduce((n, r) => n + r.checkpoints, 0);
  // One fault per share at most (a share reports its first). Of several, a chain's before a
  // checkpoint's (as a whole verify reports a chain's fault anywhere before a checkpoint's), then
  // the one found first in the log (the shares are slices of its positions).
  const found = shares.flatMap((r) => (r.fault ? [{ fault: r.fault, at: BigInt(r.faultAt ?? 0) }] : []));
  const rank = (f: ChainFault) => (CHECKPOINT_FAULTS.has(f.kind) ? 1 : 0);
  found.sort((a, b) => rank(a.fault) - rank(b.fault) || (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return report(found[0]?.fault);
};

const CHECKPOINT_FAULTS: ReadonlySet<FaultKind> = new Set(['checkpoint_digest', 'checkpoint_head_missing', 'checkpoint_head_mismatch']);

/**
 * One share of the log (all of it without `share`): the events at its slice of the log's
 * positions, in position order up to `until`. Each event must be the next revision of its stream,
 * and its link must follow the link of the revision before it; each checkpoint taken through a
 * position in the slice must match its digest and the links of the heads it recorded, checked when
 * the read passes that position. Reports the first fault of a chain, else the
 * first of a checkpoint (the chains are checked to the end after a checkpoint's fault, as a
 * changed chain explains it). `onProgress` is told of each page's events as they are checked.
 *
 * Read in position order the log is one sequential read, where reading it stream by stream costs
 * an index lookup per event. What a stream's next event must follow is kept per stream (its last
 * revision and link, at most `streamsKept` streams); a stream not kept (the share began after its
 * earlier events, or it was dropped to keep the bound) is looked up once: its event at the revision
 * before, which must be stored at an earlier position, and whose own link is checked where its
 * position falls. So every event is checked against the one before it in its stream, whatever the
 * shares, and a share's verdict on an event is the whole verify's. A checkpoint's head is checked
 * against the link kept for its stream when that is the revision it names, else looked up.
 */
export const verifyLogShare = async (
  store: VerifiableStore,
  { until, prefixes, pageSize, share, streamsKept: keep = STREAMS_KEPT }: LogShareOptions,
  onProgress: (done: number) => void = () => {},
): Promise<LogShareReport> => {
  let events = 0;
  let streams = 0;
  let checkpoints = 0;
  let checkpointFault: { fault: ChainFault; at: bigint } | undefined;
  const heads = new Map<string, Head>();
  const { after, through } = positionShare(until, share);
  const due = await checkpointsDue(store, prefixes, after, through);
  let next = 0;
  /** The checkpoints whose heads were read through `position`: their heads are now the streams' kept links. */
  const checkDue = async (position: bigint) => {
    for (; next < due.length && due[next]!.through < position; next++) {
      const checkpoint = due[next]!;
      checkpoints++;
      if (checkpointFault) continue;
      try {
        await checkCheckpoint(store, await checkpointAt(store, checkpoint.position), heads);
      } catch (error) {
        if (!(error instanceof Fault)) throw error;
        checkpointFault = { fault: error.fault, at: checkpoint.through };
      }
    }
  };
  let at = 0n;
  try {
    for await (const page of linkPages(store, prefixes, after, through, pageSize)) {
      const before = await eventsBefore(store, page, heads);
      for (const e of page) {
        await checkDue(e.position);
        at = e.position;
        const kept = heads.get(e.stream);
        const head = kept ?? (e.revision > 0n ? await headBefore(store, e, before) : undefined);
        const expected = head ? head.revision + 1n : 0n;
        if (e.revision !== expected) {
          throw fault(
            'missing_event',
            { stream: e.stream, revision: expected, position: e.position },
            e.revision > expected
              ? `${e.stream} has no event at revision ${expected} before position ${e.position}, where its revision ${e.revision} is stored: it was removed, or moved`
              : `${e.stream} has revision ${e.revision} again at position ${e.position}, after revision ${expected - 1n}`,
          );
        }
        if (e.link === undefined) throw fault('unsealed', e, `${e.stream}@${e.revision} has no chain hash: run npm run audit:seal`);
        const link = e.after(head?.link ?? GENESIS_HASH);
        if (link === undefined) {
          throw fault(
            'hash_mismatch',
            e,
            `${e.stream}@${e.revision} (position ${e.position}) does not match its chain hash: the event, or its place in the stream, changed after it was stored`,
          );
        }
        if (kept) {
          kept.revision = e.revision;
          kept.link = link;
        } else {
          if (heads.size >= keep) dropOldest(heads, Math.ceil(keep / 4));
          heads.set(e.stream, { revision: e.revision, link });
        }
        if (e.revision === 0n) streams++;
        events++;
      }
      onProgress(page.length);
    }
    await checkDue(through + 1n);
    return {
      events,
      streams,
      checkpoints,
      ...(checkpointFault && { fault: checkpointFault.fault, faultAt: checkpointFault.at.toString() }),
    };
  } catch (error) {
    if (error instanceof Fault) return { events, streams, checkpoints, fault: error.fault, faultAt: at.toString() };
    throw error;
  }
};

/** Streams whose last link a share keeps (about 200 bytes each); past it, the oldest quarter is dropped and looked up again when met. */
const STREAMS_KEPT = 131_072;

type Head = { revision: bigint; link: string };

const STREAM_PAGE = 256;

/**
 * What `e` must follow when its stream's last link is not kept: the stream's event at the revision
 * before, stored before it. Else (a fault: that revision is missing, or stored after `e`) the
 * stream's last event stored before `e`, as a verify that kept every stream would have it.
 */
const headBefore = async (store: VerifiableStore, e: Linked, read: ReadonlyMap<string, Linked>): Promise<Head | undefined> => {
  const ahead = read.get(e.stream);
  const before = ahead?.revision === e.revision - 1n ? ahead : await eventAt(store, e.stream, e.revision - 1n);
  // An event without a link is named where it is stored, before e: any link does here.
  if (before && before.position < e.position) return { revision: before.revision, link: before.link ?? GENESIS_HASH };
  let last: RecordedEvent | undefined;
  for (let from = 0n; ;) {
    const page = await store.read(e.stream, { fromRevision: from, limit: STREAM_PAGE });
    for (const x of page) if (x.position < e.position && (!last || x.position > last.position)) last = x;
    if (page.length < STREAM_PAGE) break;
    from = page[page.length - 1]!.revision + 1n;
  }
  const linked = last && (await eventAt(store, last.stream, last.revision));
  return linked && { revision: linked.revision, link: linked.link ?? GENESIS_HASH };
};

const dropOldest = (map: Map<string, unknown>, n: number) => {
  for (const key of map.keys()) {
    if (n-- <= 0) break;
    map.delete(key);
  }
};

/** Share `index` of `count` checks the events at positions after `after` through `through`, an equal slice of 1..until each. */
const positionShare = (until: bigint, share?: Share): { after: bigint; through: bigint } =>
  share
    ? { after: (until * BigInt(share.index)) / BigInt(share.count), through: (until * BigInt(share.index + 1)) / BigInt(share.count) }
    : { after: 0n, through: until };

/** An event as the chain check sees it: where it is, its link, and the link it has after `previous` when it follows it. */
interface Linked {
  stream: string;
  revision: bigint;
  position: bigint;
  link: string | undefined;
  after(previous: string): string | undefined;
}

/** Checkpoints read at a time to find where they are due (one can be ~140 KB). */
const CHECKPOINTS_PER_PAGE = 4;

/**
 * The checkpoints on the audit streams among `prefixes` whose heads were read through a position
 * in (after, through], by that position: where this share checks them (each checkpoint is due in
 * exactly one share). Memory holds two positions per checkpoint, not its heads. One that does not
 * decode is due where it is stored, after its own chain is checked, and fails there.
 */
const checkpointsDue = async (
  store: VerifiableStore,
  prefixes: readonly string[],
  after: bigint,
  through: bigint,
): Promise<{ through: bigint; position: bigint }[]> => {
  const audits = prefixes.includes('') ? [AUDIT_STREAM_PREFIX] : prefixes.filter((p) => p.startsWith(AUDIT_STREAM_PREFIX));
  const due: { through: bigint; position: bigint }[] = [];
  for (const streamPrefix of audits) {
    for (let from = after; ;) {
      const options = { after: from, limit: CHECKPOINTS_PER_PAGE, streamPrefix, types: [LOG_CHECKPOINTED] };
      const page = store.readLogStored
        ? (await store.readLogStored(options)).map((e) => ({ position: e.position, read: storedThrough(e) }))
        : (await store.readAll(options)).map((e) => ({ position: e.position, read: readThrough(e) }));
      for (const { position, read } of page) if (read > after && read <= through) due.push({ through: read, position });
      if (page.length < CHECKPOINTS_PER_PAGE) break;
      from = page[page.length - 1]!.position;
    }
  }
  return due.sort((a, b) => (a.through < b.through ? -1 : a.through > b.through ? 1 : a.position < b.position ? -1 : 1));
};

/**
 * Where a checkpoint stored as canonical JSON read its heads through: the member before its last
 * (`through`, then `workspaceId`, sort last), without parsing its heads. Text of another shape is parsed. A checkpoint whose text
 * was changed fails its own chain, which the verdict names before any checkpoint's fault.
 */
const storedThrough = (e: StoredEvent): bigint => {
  const last = THROUGH_LAST.exec(e.data);
  if (last) return BigInt(last[1]!);
  const [data, metadata] = [parsed(e.data), parsed(e.metadata)];
  return !data.ok || !metadata.ok
    ? e.position
    : readThrough({ ...e, id: '', recordedAt: new Date(0), data: data.value, metadata: metadata.value });
};
const THROUGH_LAST = /,"through":"(\d{1,19})","workspaceId":"[^"\\]*"\}$/;

const readThrough = (recorded: RecordedEvent): bigint => {
  try {
    return BigInt(decodeCheckpoint(recorded).data.through);
  } catch {
    return recorded.position;
  }
};

/**
 * The events of the streams with these prefixes (disjoint) at positions in (after, through], in
 * position order across the prefixes, a page at a time.
 */
async function* linkPages(store: VerifiableStore, prefixes: readonly string[], after: bigint, through: bigint, pageSize: number) {
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

const parsed = (text: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
};

/**
 * The links of events read as stored text. The embedded store keeps data and metadata as canonical
 * JSON and appends the link to the metadata (chain.ts metadataJsonWithHash), so the body the link
 * covers is assembled from the text as it is and hashed: no parse of the data, no serialization.
 * The hash covers data and metadata as one text, so a match also needs the metadata (without the
 * link) to be a JSON object: with it, the data's text cannot have taken or given characters at the
 * boundary (a canonical object's proper suffix or extension never parses), and is the text hashed
 * at append. Anything else (a sealed event written before canonical JSON, a change that keeps the
 * values, a fault) is decided as for parsed events: the quick body, then the canonical one.
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
    const computed = linkHash(previous, bodyOfCanonical(e.type, e.data, this.unlinked, e.stream, e.revision));
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
const eventsBefore = async (
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
const eventAt = async (store: VerifiableStore, stream: string, revision: bigint): Promise<Linked | undefined> => {
  if (store.readStored) {
    const stored = await store.readStored(stream, revision);
    return stored && (await storedLinks(store, [stored]))[0];
  }
  const [event] = await store.read(stream, { fromRevision: revision, limit: 1 });
  if (!event || event.revision !== revision) return undefined; // the next one stored, not this one
  return (await parsedLinks(store, [event]))[0];
};

/** A checkpoint as its check needs it: where it is, its heads, and whether they hash to its digest. */
interface Checkpoint {
  recorded: Pick<RecordedEvent, 'stream' | 'revision' | 'position'>;
  heads: readonly StreamHead[];
  digestMatches: boolean;
}

/**
 * The checkpoint stored at `position`. Stored as canonical JSON, its heads are the text between
 * its `digest` and its `occurredAt` (members sort so): their digest is that text's SHA-256, and
 * only the heads are parsed. Text of another shape, or whose heads do not hash to its digest, is
 * decoded whole and its heads canonicalized again, as for a store that parses.
 */
const checkpointAt = async (store: VerifiableStore, position: bigint): Promise<Checkpoint> => {
  if (store.readLogStored) {
    const [e] = await store.readLogStored({ after: position - 1n, limit: 1 });
    const quick = e && quickCheckpoint(e);
    if (quick) return quick;
  }
  const [recorded] = await store.readAll({ after: position - 1n, limit: 1 });
  const { data } = decodeCheckpoint(recorded!);
  return { recorded: recorded!, heads: data.heads, digestMatches: headsDigest(data.heads) === data.digest };
};

const HEADS_AT = '{"after":"'.length;
const quickCheckpoint = (e: StoredEvent): Checkpoint | undefined => {
  const digestAt = e.data.indexOf('","digest":"', HEADS_AT);
  const headsAt = digestAt + '","digest":"'.length + 64;
  const end = e.data.lastIndexOf(',"occurredAt":"');
  if (e.type !== LOG_CHECKPOINTED || !e.data.startsWith('{"after":"') || digestAt < 0 || end < headsAt) return undefined;
  if (!e.data.startsWith('","heads":', headsAt)) return undefined;
  const text = e.data.slice(headsAt + '","heads":'.length, end);
  if (hash('sha256', text, 'hex') !== e.data.slice(digestAt + '","digest":"'.length, headsAt)) return undefined;
  const heads = parsed(text);
  if (!heads.ok || !Array.isArray(heads.value) || !heads.value.every(isStreamHead)) return undefined;
  return { recorded: e, heads: heads.value, digestMatches: true };
};

const isStreamHead = (u: unknown): u is StreamHead =>
  isJsonObject(u) && typeof u.stream === 'string' && Number.isSafeInteger(u.revision) && typeof u.hash === 'string';

/**
 * A checkpoint's digest, and the link of each head it recorded: the one kept for the stream when
 * it is at that revision (its link computed in this pass), else the event's as stored, looked up.
 */
const checkCheckpoint = async (store: VerifiableStore, checkpoint: Checkpoint, kept: ReadonlyMap<string, Head>) => {
  const { recorded, heads, digestMatches } = checkpoint;
  if (!digestMatches) {
    throw fault('checkpoint_digest', recorded, `the checkpoint ${recorded.stream}@${recorded.revision} does not match its digest`);
  }
  for (const head of heads) {
    const known = kept.get(head.stream);
    if (known && known.link === head.hash && known.revision === BigInt(head.revision)) continue;
    const event = await eventAt(store, head.stream, BigInt(head.revision));
    if (!event) {
      const [last] = await store.readAllBackwards({ streamPrefix: head.stream, limit: 1 });
      throw fault(
        'checkpoint_head_missing',
        { stream: head.stream, revision: head.revision },
        `${head.stream} ends ${last && last.stream === head.stream ? `at revision ${last.revision}` : 'with no event'}, but the checkpoint ${recorded.stream}@${recorded.revision} recorded its revision ${head.revision}: its tail was removed`,
      );
    }
    if (event.link !== head.hash) {
      throw fault(
        'checkpoint_head_mismatch',
        event,
        `${head.stream}@${head.revision} does not have the link the checkpoint ${recorded.stream}@${recorded.revision} recorded`,
      );
    }
  }
};
