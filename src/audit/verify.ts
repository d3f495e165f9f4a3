import type { RecordedEvent } from '../eventstore/eventStore';
import { GENESIS_HASH } from '../eventstore/hashChain';
import { checkCheckpoint, checkpointAt, checkpointsDue } from './verifyCheckpoints';
import { CHECKPOINT_FAULTS, Fault, fault, type ChainFault } from './verifyFaults';
import { eventAt, eventsBefore, linkPages, type Head, type Linked, type VerifiableStore } from './verifyLinks';
import type { Share, ShareRunner } from '../threads/shares';

export type { ChainFault, FaultKind } from './verifyFaults';
export type { VerifiableStore } from './verifyLinks';

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

/**
 * Verifies the whole log: every stream's chain recomputed from GENESIS_HASH, each event checked in
 * log order against the revision before it in its stream (an event changed, removed from the
 * middle or moved breaks it at that event), then every checkpoint's digest and heads (a stream
 * whose tail was removed no longer has the head a checkpoint names). The log is read a page at a
 * time: memory holds one page and the last link of a bounded number of streams, never the log.
 * Stops at the first fault.
 */
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

/** Streams whose last link a share keeps (about 244 bytes each: 32 MB); past it, the oldest quarter is dropped and looked up again when met. */
const STREAMS_KEPT = 131_072;

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
