import type { EventFeed } from '../eventstore/eventFeed';
import type { EventStore, RecordedEvent } from '../eventstore/eventStore';
import { streamShare, type StoredEvent, type StoredTextReader, type StreamReader } from '../eventstore/streamReader';
import { bodyOfCanonical, GENESIS_HASH, isJsonObject, linkHash, linksTo, splitStoredMetadata, storedHash } from './chain';
import { headsDigest, linksOf } from './checkpoint';
import { AUDIT_STREAM_PREFIX, LOG_CHECKPOINTED, decodeCheckpoint } from './events';
import type { SealedLinks } from './links';
import type { Share, ShareRunner } from '../threads/shares';

/**
 * Verifies the whole log: every stream's chain recomputed from GENESIS_HASH in revision order
 * (an event changed, removed from the middle or moved breaks it at that event), then every
 * checkpoint's digest and heads (a stream whose tail was removed no longer has the head a
 * checkpoint names). Streams are read a page at a time: memory holds one page and one link per
 * stream being read, never the log. Stops at the first fault.
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
  /** Verify in threads, one share of the streams each, chains then checkpointed heads (src/workers/auditVerify.ts). */
  threads?: LogShareRunner;
}

/** What checking one share of the streams found: their chains, then the checkpoints' heads among them. */
export interface LogShareReport {
  events: number;
  streams: number;
  checkpoints: number;
  fault?: ChainFault;
}

export interface LogShareOptions {
  until: bigint;
  prefixes: readonly string[];
  pageSize: number;
  share?: Share;
}

export type LogShareRunner = ShareRunner<Omit<LogShareOptions, 'share'>, LogShareReport>;

const CHECKPOINTS_PER_PAGE = 4;

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
  // Small pages: a page is read a stream at a time, and a checkpoint event can be ~140 KB (1,000 heads).
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
  const shared = { until, prefixes, pageSize };
  const shares = options.threads ? await options.threads(shared, onProgress) : [await verifyLogShare(store, shared, onProgress)];
  events = shares.reduce((n, r) => n + r.events, 0);
  streams = shares.reduce((n, r) => n + r.streams, 0);
  checkpoints = Math.max(...shares.map((r) => r.checkpoints));
  // One fault per share at most (a share stops at its first). Of several, a chain's before a
  // checkpoint's (as a whole verify checks every chain before any checkpoint), then the first by
  // stream and revision.
  const faults = shares.flatMap((r) => (r.fault ? [r.fault] : []));
  const rank = (f: ChainFault) => (CHECKPOINT_FAULTS.has(f.kind) ? 1 : 0);
  faults.sort((a, b) => rank(a) - rank(b) || (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : a.revision - b.revision));
  return report(faults[0]);
};

const CHECKPOINT_FAULTS: ReadonlySet<FaultKind> = new Set(['checkpoint_digest', 'checkpoint_head_missing', 'checkpoint_head_mismatch']);

/**
 * One share of the log (all of it without `share`): its streams' chains, then, if they hold, every
 * checkpoint's heads that are its streams' (and every checkpoint's digest, in share 0). Stops at
 * the first fault.
 */
export const verifyLogShare = async (
  store: VerifiableStore,
  options: LogShareOptions,
  onProgress: (done: number) => void = () => {},
): Promise<LogShareReport> => {
  const chains = await verifyChains(store, options, onProgress);
  if (chains.fault) return { ...chains, checkpoints: 0 };
  let checkpoints = 0;
  try {
    // On the audit streams (a workspace's own, for its auditors; their chains were checked above),
    // a few checkpoints at a time, since one can hold thousands of heads.
    const { prefixes, share } = options;
    const audits = prefixes.includes('') ? [AUDIT_STREAM_PREFIX] : prefixes.filter((p) => p.startsWith(AUDIT_STREAM_PREFIX));
    for (const streamPrefix of audits) {
      for (let after = 0n; ;) {
        const page = await store.readAll({ after, limit: CHECKPOINTS_PER_PAGE, streamPrefix, types: [LOG_CHECKPOINTED] });
        for (const recorded of page) await checkCheckpoint(store, recorded, share);
        checkpoints += page.length;
        if (page.length < CHECKPOINTS_PER_PAGE) break;
        after = page[page.length - 1]!.position;
      }
    }
    return { ...chains, checkpoints };
  } catch (error) {
    if (error instanceof Fault) return { ...chains, checkpoints, fault: error.fault };
    throw error;
  }
};

/**
 * Every stream's chain of one share of the streams (all of them without `share`), recomputed from
 * GENESIS_HASH in revision order, up to `until`; stops at the first fault. `onProgress` is told of
 * each page's events as they are checked.
 */
const verifyChains = async (
  store: VerifiableStore,
  { until, prefixes, pageSize, share }: LogShareOptions,
  onProgress: (done: number) => void,
): Promise<Omit<LogShareReport, 'checkpoints'>> => {
  let events = 0;
  let streams = 0;
  try {
    let stream: string | undefined;
    let expected = 0n;
    let previous = GENESIS_HASH;
    for await (const page of linkPages(store, prefixes, until, pageSize, share)) {
      for (const e of page) {
        if (e.stream !== stream) {
          stream = e.stream;
          expected = 0n;
          previous = GENESIS_HASH;
          streams++;
        }
        if (e.revision !== expected) {
          throw fault(
            'missing_event',
            { stream: e.stream, revision: expected },
            e.revision > expected
              ? `${e.stream} has no event at revision ${expected} (the next one stored is ${e.revision}): it was removed`
              : `${e.stream} has revision ${e.revision} again after ${expected - 1n}`,
          );
        }
        if (e.link === undefined) throw fault('unsealed', e, `${e.stream}@${e.revision} has no chain hash: run npm run audit:seal`);
        if (!e.follows(previous)) {
          throw fault(
            'hash_mismatch',
            e,
            `${e.stream}@${e.revision} (position ${e.position}) does not match its chain hash: the event, or its place in the stream, changed after it was stored`,
          );
        }
        previous = e.link;
        expected++;
        events++;
      }
      onProgress(page.length);
    }
    return { events, streams };
  } catch (error) {
    if (error instanceof Fault) return { events, streams, fault: error.fault };
    throw error;
  }
};

/** An event as the chain check sees it: where it is, its link, and whether the link follows `previous`. */
interface Linked {
  stream: string;
  revision: bigint;
  position: bigint;
  link: string | undefined;
  follows(previous: string): boolean;
}

/** Every stream's events in revision order, as stored text where the store keeps it (no parse), else parsed. */
async function* linkPages(store: VerifiableStore, prefixes: readonly string[], until: bigint, pageSize: number, share?: Share) {
  for (const streamPrefix of prefixes) {
    const options = { until, pageSize, streamPrefix, share };
    if (store.readStreamsStored) {
      for await (const page of store.readStreamsStored(options)) yield await storedLinks(store, page);
      continue;
    }
    for await (const page of store.readStreams(options)) {
      const links = await linksOf(store, page);
      yield page.map((e, i): Linked => {
        const link = links[i];
        return { ...e, link, follows: (previous) => link !== undefined && linksTo(previous, e, link) };
      });
    }
  }
}

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
  const split = page.map((e) => splitStoredMetadata(e.metadata));
  const own = page.map((e, i) => {
    if (split[i]) return split[i].hash;
    const metadata = parsed(e.metadata);
    return metadata.ok ? storedHash(metadata.value) : undefined;
  });
  const missing = page.filter((_, i) => own[i] === undefined).map((e) => e.position);
  const sealed = missing.length > 0 ? await store.sealedHashes(missing) : new Map<bigint, string>();
  return page.map((e, i): Linked => {
    const link = own[i] ?? sealed.get(e.position);
    const unlinked = split[i]?.unlinked ?? e.metadata;
    const asStored = (previous: string) => {
      if (linkHash(previous, bodyOfCanonical(e.type, e.data, unlinked, e.stream, e.revision)) !== link) return false;
      const metadata = parsed(unlinked);
      return metadata.ok && isJsonObject(metadata.value);
    };
    const asParsed = (previous: string) => {
      const [data, metadata] = [parsed(e.data), parsed(e.metadata)];
      return data.ok && metadata.ok && linksTo(previous, { ...e, data: data.value, metadata: metadata.value }, link!);
    };
    return { ...e, link, follows: (previous) => link !== undefined && (asStored(previous) || asParsed(previous)) };
  });
};

/** The event at a checkpointed head, with its link: as stored text where the store keeps it. */
const eventAt = async (store: VerifiableStore, stream: string, revision: bigint): Promise<Linked | undefined> => {
  if (store.readStored) {
    const stored = await store.readStored(stream, revision);
    return stored && (await storedLinks(store, [stored]))[0];
  }
  const [event] = await store.read(stream, { fromRevision: revision, limit: 1 });
  if (!event) return undefined;
  const [link] = await linksOf(store, [event]);
  return { ...event, link, follows: () => false };
};

/** A checkpoint's digest (in share 0, or without shares) and its heads in `share` (all without). */
const checkCheckpoint = async (store: VerifiableStore, recorded: RecordedEvent, share?: Share) => {
  const { data } = decodeCheckpoint(recorded);
  if ((!share || share.index === 0) && headsDigest(data.heads) !== data.digest) {
    throw fault('checkpoint_digest', recorded, `the checkpoint ${recorded.stream}@${recorded.revision} does not match its digest`);
  }
  for (const head of data.heads) {
    if (share && streamShare(head.stream, share.count) !== share.index) continue;
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
