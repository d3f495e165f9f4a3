import { createHash, randomUUID } from 'node:crypto';
import { canonicalJson, inCanonicalOrder } from '../eventstore/canonicalJson';
import { ConcurrencyConflict, type EventStore, type RecordedEvent } from '../eventstore/eventStore';
import type { EventFeed } from '../eventstore/eventFeed';
import { parsePresetStreamName } from '../presets/streamName';
import { storedHash } from '../eventstore/hashChain';
import {
  AUDIT_SCHEMA_VERSION,
  LOG_CHECKPOINTED,
  auditStreamName,
  decodeCheckpoint,
  type AuditMetadata,
  type LogCheckpointedData,
  type StoredCheckpoint,
  type StreamHead,
} from './events';
import type { SealedLinks } from '../eventstore/sealedLinks';
import { workspaceStreamPrefix } from '../events/workspaceStreams';

/**
 * Workspace checkpoints: a `LogCheckpointed` event on the workspace's audit stream with the head
 * link of every preset stream that changed since the workspace's previous checkpoint. Made
 * periodically by the service (startCheckpointer), on demand (POST /api/v1/audit/checkpoints) and
 * by `audit:seal`. Reads the feed in pages: memory grows with the streams changed, not the events.
 */
export type AuditStore = EventStore & EventFeed & SealedLinks;

const PAGE = 1000;

/** SHA-256 (hex) of the RFC 8785 JSON of the heads, sorted by stream name. */
export const headsDigest = (heads: readonly StreamHead[]): string => headsTextDigest(canonicalJson(heads));

/** The same digest of heads already written as their RFC 8785 JSON (a checkpoint's stored text: verify). */
export const headsTextDigest = (headsJson: string): string => createHash('sha256').update(headsJson, 'utf8').digest('hex');

/** An event's link: its own (metadata `hash`), else the one sealed beside it. */
export const linksOf = async (store: SealedLinks, events: readonly RecordedEvent[]): Promise<(string | undefined)[]> => {
  const own = events.map((e) => storedHash(e.metadata));
  const missing = events.filter((_, i) => own[i] === undefined).map((e) => e.position);
  if (missing.length === 0) return own;
  const sealed = await store.sealedHashes(missing);
  return events.map((e, i) => own[i] ?? sealed.get(e.position));
};

export const lastCheckpoint = async (store: EventFeed, workspaceId: string): Promise<StoredCheckpoint | null> => {
  const [last] = await store.readAllBackwards({ streamPrefix: auditStreamName(workspaceId), types: [LOG_CHECKPOINTED], limit: 1 });
  return last && last.stream === auditStreamName(workspaceId) ? decodeCheckpoint(last) : null;
};

export interface CheckpointOptions {
  /** The last feed position covered; the workspace's head by default. */
  through?: bigint;
  actorUserId: string;
  requestId: string;
  keyId?: string;
  now: Date;
}

/**
 * Records a checkpoint of the workspace's changes since its previous one; null when nothing changed
 * (or another process recorded the same checkpoint first).
 */
export const checkpointWorkspace = async (
  store: AuditStore,
  workspaceId: string,
  options: CheckpointOptions,
): Promise<StoredCheckpoint | null> => {
  const prefix = workspaceStreamPrefix(workspaceId);
  let previous = await lastCheckpoint(store, workspaceId);
  const through = options.through ?? (await store.headPosition({ streamPrefix: prefix }));
  let made: StoredCheckpoint | null = null;
  // Past MAX_HEADS streams, one checkpoint ends where its heads were read and the next goes on from
  // there: memory and each event stay bounded however many streams changed (a seal, a bulk load).
  for (let after = previous ? BigInt(previous.data.through) : 0n; through !== null && after < through;) {
    const heads = new Map<string, StreamHead>();
    let reached = after;
    for (let from = after; heads.size < MAX_HEADS;) {
      const page = (await store.readAll({ after: from, limit: PAGE, streamPrefix: prefix })).filter((e) => e.position <= through);
      const links = await linksOf(store, page);
      page.forEach((e, i) => {
        const hash = links[i];
        if (hash === undefined)
          throw new Error(`${e.stream}@${e.revision} has no chain hash: the log is not sealed (run npm run audit:seal)`);
        heads.set(e.stream, { stream: e.stream, revision: Number(e.revision), hash });
      });
      if (page.length < PAGE) {
        reached = through;
        break;
      }
      from = reached = page[page.length - 1]!.position;
    }
    if (heads.size === 0) break;
    const checkpoint = await record(store, workspaceId, previous, after, reached, heads, options);
    if (!checkpoint) break; // another process recorded it first
    made = previous = checkpoint;
    after = reached;
  }
  return made;
};

/** At most this many heads in one checkpoint. */
export const MAX_HEADS = 1000;

const record = async (
  store: AuditStore,
  workspaceId: string,
  previous: StoredCheckpoint | null,
  after: bigint,
  through: bigint,
  heads: Map<string, StreamHead>,
  options: CheckpointOptions,
): Promise<StoredCheckpoint | null> => {
  const sorted = [...heads.values()].sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0));
  // Its keys in RFC 8785's order at every depth, so its stored text is canonical: a verify reads
  // the heads' text between `digest` and `occurredAt` and hashes it as it is (verifyCheckpoints.ts).
  const data = inCanonicalOrder<LogCheckpointedData>({
    workspaceId,
    after: after.toString(),
    through: through.toString(),
    heads: sorted,
    digest: headsDigest(sorted),
    occurredAt: options.now.toISOString(),
  });
  const metadata: AuditMetadata = {
    requestId: options.requestId,
    actorUserId: options.actorUserId,
    schemaVersion: AUDIT_SCHEMA_VERSION,
    ...(options.keyId ? { keyId: options.keyId } : {}),
  };
  const stream = auditStreamName(workspaceId);
  try {
    const { revision } = await store.append(
      stream,
      [{ id: randomUUID(), type: LOG_CHECKPOINTED, data, metadata }],
      previous?.revision ?? 'no_stream',
    );
    const [recorded] = await store.read(stream, { fromRevision: revision, limit: 1 });
    return decodeCheckpoint(recorded!);
  } catch (error) {
    if (error instanceof ConcurrencyConflict) return null;
    throw error;
  }
};

/** The workspaces whose preset streams have events after `after` (exclusive) up to `through`. */
export const workspacesChanged = async (store: EventFeed, after: bigint, through: bigint): Promise<Set<string>> => {
  const found = new Set<string>();
  for (let from = after; from < through;) {
    const page = await store.readAll({ after: from, limit: PAGE * 4, streamPrefix: 'preset-' });
    for (const e of page) {
      if (e.position > through) return found;
      const parsed = parsePresetStreamName(e.stream);
      if (parsed) found.add(parsed.workspaceId);
    }
    if (page.length < PAGE * 4) break;
    from = page[page.length - 1]!.position;
  }
  return found;
};

export interface Checkpointer {
  /** Checkpoints every workspace that changed since the last run, now. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export interface CheckpointerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * Every `intervalMs`, checkpoints each workspace that changed. It starts after the `through` of
 * the newest checkpoint in the store; a workspace's checkpoint always covers everything since its
 * own previous one, so a run that stops half-way loses nothing, it only comes later.
 */
export const startCheckpointer = async ({
  store,
  intervalMs,
  logger,
  clock = () => new Date(),
}: {
  store: AuditStore;
  intervalMs: number;
  logger?: CheckpointerLogger;
  clock?: () => Date;
}): Promise<Checkpointer> => {
  // Found at the first run, not at start: with no checkpoint yet it is a look through the whole log.
  let cursor: bigint | undefined;
  const newestThrough = async () => {
    const [newest] = await store.readAllBackwards({ streamPrefix: 'audit-', types: [LOG_CHECKPOINTED], limit: 1 });
    return newest ? BigInt(decodeCheckpoint(newest).data.through) : 0n;
  };
  let running: Promise<number> | null = null;
  const run = () =>
    (running ??= (async () => {
      cursor ??= await newestThrough();
      const head = await store.headPosition({ streamPrefix: 'preset-' });
      if (head === null || head <= cursor) return 0;
      let made = 0;
      for (const workspaceId of await workspacesChanged(store, cursor, head)) {
        const made1 = await checkpointWorkspace(store, workspaceId, {
          through: head,
          actorUserId: 'system',
          requestId: `checkpoint-${head}`,
          now: clock(),
        });
        if (made1) made++;
      }
      cursor = head;
      if (made > 0) logger?.info({ checkpoints: made, through: head.toString() }, 'audit checkpoints recorded');
      return made;
    })().finally(() => (running = null)));
  const timer = setInterval(() => {
    run().catch((error: unknown) => logger?.warn({ err: error }, 'audit checkpoint failed; retrying at the next interval'));
  }, intervalMs);
  timer.unref();
  return {
    runOnce: run,
    async stop() {
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
};
