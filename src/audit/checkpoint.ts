import { createHash, randomUUID } from 'node:crypto';
import { canonicalJson, inCanonicalOrder } from '../eventstore/canonicalJson';
import { ConcurrencyConflict, type EventStore, type RecordedEvent } from '../eventstore/eventStore';
import type { EventFeed } from '../eventstore/eventFeed';
import { parsePresetStreamName } from '../presets/streamName';
import { workspaceStreamPrefix } from '../events/workspaceStreams';
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
import { memoryCheckpoints, type CheckpointStore } from '../feed/checkpoints';
import { startProcessor, type ProcessorDefinition, type ProcessorDeps, type ProcessorLogger } from '../feed/processor';

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

export interface Checkpointer {
  /** Checkpoints every workspace that changed since the last run, now. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export interface CheckpointerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** The audit checkpointer's processor: its name, and the label of its gauges. */
export const AUDIT_PROCESSOR = 'audit';

/**
 * Every `intervalMs`, checkpoints each workspace that changed. Each run starts a processor
 * (src/feed/processor.ts) on the shared tail that reads the preset streams from its checkpoint
 * to the head, noting which workspaces changed, and stops; those workspaces are checkpointed
 * through the position it reached. Between runs it follows nothing, so the tail reads only what
 * its other followers take (the key ring's few types: a write costs the thread no read), and a
 * run reads what changed since the last in pages. Its checkpoint is the audit log itself: it
 * starts after the `through` of the newest checkpoint in the store (so after a restart the
 * workspaces changed since are found again), then from where the last run stopped (kept in
 * memory). The first run comes after an interval, not at start: with no checkpoint yet it reads
 * the whole log, which a service that has just started should not do at once. A workspace's
 * checkpoint always covers everything since its own previous one, so a run that stops half-way
 * loses nothing, it only comes later.
 */
export const startCheckpointer = async ({
  store,
  tail,
  intervalMs,
  logger,
  clock = () => new Date(),
}: {
  store: AuditStore;
  /** The process's shared tail (src/feed/sharedTail.ts). */
  tail: ProcessorDeps<RecordedEvent>['tail'];
  intervalMs: number;
  logger?: CheckpointerLogger & ProcessorLogger;
  clock?: () => Date;
}): Promise<Checkpointer & { position(): Promise<bigint | null> }> => {
  /** Workspaces with events the processor has handled and no checkpoint covers yet. */
  const pending = new Set<string>();
  const checkpoints = rememberedCheckpoints(auditLogCheckpoints(store));
  const definition: ProcessorDefinition<RecordedEvent> = {
    name: AUDIT_PROCESSOR,
    streamPrefix: 'preset-',
    async handle(events) {
      for (const e of events) {
        const parsed = parsePresetStreamName(e.stream);
        if (parsed) pending.add(parsed.workspaceId);
      }
    },
  };
  /** Reads what changed since the last run up to the head, then stops: where it got to. */
  const readChanges = async (): Promise<bigint | null> => {
    const follower = await startProcessor(definition, { tail, checkpoints, logger });
    try {
      const head = await store.headPosition({ streamPrefix: 'preset-' });
      if (head !== null) await follower.reached(head);
    } finally {
      await follower.stop(); // stores where it got to (checkpoints: in memory)
    }
    return follower.position();
  };
  let running: Promise<number> | null = null;
  const run = () =>
    (running ??= (async () => {
      const through = await readChanges();
      if (through === null || pending.size === 0) return 0;
      // Taken at once: what a run reads from here on is the next run's.
      const workspaces = [...pending];
      pending.clear();
      let made = 0;
      try {
        for (let i = 0; i < workspaces.length; i++) {
          const made1 = await checkpointWorkspace(store, workspaces[i]!, {
            through,
            actorUserId: 'system',
            requestId: `checkpoint-${through}`,
            now: clock(),
          }).catch((error: unknown) => {
            for (const w of workspaces.slice(i)) pending.add(w); // the next run tries them again
            throw error;
          });
          if (made1) made++;
        }
      } finally {
        if (made > 0) logger?.info({ checkpoints: made, through: through.toString() }, 'audit checkpoints recorded');
      }
      return made;
    })().finally(() => (running = null)));
  const timer = setInterval(() => {
    run().catch((error: unknown) => logger?.warn({ err: error }, 'audit checkpoint failed; retrying at the next interval'));
  }, intervalMs);
  timer.unref();
  return {
    runOnce: () => run(),
    // Where the last run stopped, or before the first, the newest checkpoint's `through`.
    position: () => checkpoints.read(AUDIT_PROCESSOR),
    async stop() {
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
};

/** Where the last run stopped, in memory; before the first, what `stored` reads. */
const rememberedCheckpoints = (stored: CheckpointStore): CheckpointStore => {
  const remembered = memoryCheckpoints();
  return {
    read: async (name) => (await remembered.read(name)) ?? stored.read(name),
    store: (name, position) => remembered.store(name, position),
  };
};

/**
 * The audit checkpointer's checkpoint store: the audit log. Read: the `through` of the newest
 * checkpoint of any workspace. Nothing to store: the checkpoints the run records are the checkpoint.
 */
const auditLogCheckpoints = (store: EventFeed): CheckpointStore => ({
  async read() {
    const [newest] = await store.readAllBackwards({ streamPrefix: 'audit-', types: [LOG_CHECKPOINTED], limit: 1 });
    return newest ? BigInt(decodeCheckpoint(newest).data.through) : null;
  },
  async store() {},
});
