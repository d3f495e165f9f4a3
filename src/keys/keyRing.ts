import type { Logger } from 'pino';
import { byToken, type Caller, type KeyGone, type KeyRing } from '../auth/apiKeys';
import type { Scope } from '../auth/keysFile';
import { memoryCheckpoints } from '../feed/checkpoints';
import { startProcessor, type Processor, type ProcessorDeps } from '../feed/processor';
import type { RecordedEvent } from '../eventstore/eventStore';
import { KEY_EVENT_TYPES, keyEvents } from './events';
import { WORKSPACE_STREAM_PREFIX } from '../events/workspaceStreams';

/**
 * The keys a request may present: the keys file's (the bootstrap, read once at start) and those
 * made through the API, which every process follows through the event feed (`followKeys`), so a
 * key made or revoked on one replica is honoured on every other without a restart.
 */
export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string | null;
  scopes: Scope[];
  workspaces: string[];
  createdAt: string;
  /** The user of the key that made it. */
  createdBy: string;
  /** The key that made it (an API key's id, or a keys-file key's 12-hex key id); null when not recorded (older keys). */
  createdByKeyId: string | null;
  expiresAt: Date | null;
  revokedAt: string | null;
  revokedBy: string | null;
  /** The keys stream it lives in: where its revocation goes. */
  stream: string;
  /** When this process last saw it used, to the minute (usage is no event). */
  lastUsedAt: Date | null;
}

export interface LiveKeyRing extends KeyRing {
  /** Applies an event of a keys stream; any other event is passed by. */
  apply(recorded: RecordedEvent): void;
  /** The API's keys that hold this workspace, oldest first. */
  list(workspaceId: string): ApiKeyRecord[];
  get(id: string): ApiKeyRecord | undefined;
  /** Following the keys streams fails: a revocation could go unseen, so the API's keys are refused while halted (the file's still work). */
  halt(halted: boolean): void;
  /**
   * Tells `onGone`, once, when an API key stops being honoured here: at the revoke this ring
   * applies (made here, or read from the feed: on every replica within its look), at its expiry (a
   * timer), or when the ring halts. What a key has open (a live stream, a long poll) ends with it.
   */
  watch(caller: Caller, onGone: (gone: KeyGone) => void): () => void;
}

/** setTimeout's longest wait; a later expiry is waited for in steps. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

const MINUTE = 60_000;

export const createLiveKeyRing = (file: KeyRing, clock: () => Date = () => new Date()): LiveKeyRing => {
  const byId = new Map<string, ApiKeyRecord>();
  const byHash = new Map<string, { record: ApiKeyRecord; caller: Caller }>();
  const callers = new Map<string, Caller>();
  /** Key id → what to tell when it goes (each told once, then dropped). */
  const watchers = new Map<string, Set<(gone: KeyGone) => void>>();
  const tell = (id: string, gone: KeyGone) => {
    for (const watcher of [...(watchers.get(id) ?? [])]) watcher(gone);
  };
  /** The caller of an API key by its id (a keys-file key is none). */
  const callerById = (id: string) => callers.get(id);
  let halted = false;
  // Both rings asked by one digest: the token is hashed once (hashing is most of what authenticating a request costs).
  const byDigest = (digest: Buffer): Caller | null => {
    const fromFile = file.byDigest(digest);
    if (fromFile) return fromFile;
    if (halted) return null;
    // A lookup by the token's SHA-256: what it reveals through timing is about the hash of the
    // guess, which a guesser cannot steer towards a stored one.
    const found = byHash.get(digest.toString('hex'));
    if (!found) return null;
    const now = clock();
    const { record } = found;
    if (record.revokedAt !== null || (record.expiresAt !== null && record.expiresAt.getTime() <= now.getTime())) return null;
    record.lastUsedAt = new Date(Math.floor(now.getTime() / MINUTE) * MINUTE);
    return found.caller;
  };
  return {
    get size() {
      return file.size + byHash.size;
    },
    authenticate: byToken(byDigest),
    byDigest,
    apply(recorded) {
      if (!keyEvents.handles(recorded.type)) return;
      const stored = keyEvents.decode(recorded);
      const { event } = stored;
      if (event.type === 'ApiKeyCreated') {
        const d = event.data;
        // Seen already: in another workspace's keys stream (each the key touches has it), or a look that overlapped.
        if (byId.has(d.keyId)) return;
        const createdBy = d.makerUserId ?? stored.metadata.actorUserId;
        const createdByKeyId = d.makerKeyId ?? null;
        // Its maker's user, and theirs in turn: a key counts as each of them in release control.
        const maker = createdByKeyId === null ? undefined : callerById(createdByKeyId);
        const makers = Object.freeze([createdBy, ...(maker?.makers ?? [])]);
        const record: ApiKeyRecord = {
          id: d.keyId,
          userId: d.userId,
          name: d.name,
          scopes: d.scopes,
          workspaces: d.workspaces,
          createdAt: d.occurredAt,
          createdBy,
          createdByKeyId,
          expiresAt: d.expiresAt === null ? null : new Date(d.expiresAt),
          revokedAt: null,
          revokedBy: null,
          stream: recorded.stream,
          lastUsedAt: null,
        };
        const caller: Caller = Object.freeze({
          userId: d.userId,
          workspaces: Object.freeze([...d.workspaces]),
          scopes: new Set(d.scopes),
          keyId: d.keySha256.slice(0, 12),
          apiKeyId: d.keyId,
          makers,
        });
        byId.set(d.keyId, record);
        callers.set(d.keyId, caller);
        byHash.set(d.keySha256.toLowerCase(), { record, caller });
      } else if (event.type === 'ApiKeyRevoked') {
        const record = byId.get(event.data.keyId);
        if (record && record.revokedAt === null) {
          record.revokedAt = event.data.occurredAt;
          record.revokedBy = stored.metadata.actorUserId;
          tell(record.id, 'key_revoked');
        }
      }
    },
    list(workspaceId) {
      return [...byId.values()].filter((r) => r.workspaces.includes(workspaceId));
    },
    get: (id) => byId.get(id),
    halt(value) {
      const halting = value && !halted;
      halted = value;
      if (halting) for (const id of [...watchers.keys()]) tell(id, 'keys_unavailable');
    },
    watch(caller, onGone) {
      const id = caller.apiKeyId;
      // A key of the keys file never changes while the process runs.
      if (id === undefined) return () => undefined;
      const record = byId.get(id);
      const mine = watchers.get(id) ?? new Set<(gone: KeyGone) => void>();
      watchers.set(id, mine);
      let timer: NodeJS.Timeout | undefined;
      let told = false;
      const stop = () => {
        clearTimeout(timer);
        mine.delete(watcher);
        if (mine.size === 0 && watchers.get(id) === mine) watchers.delete(id);
      };
      function watcher(gone: KeyGone) {
        if (told) return;
        told = true;
        stop();
        onGone(gone);
      }
      mine.add(watcher);
      const expiry = () => {
        if (!record?.expiresAt) return;
        const left = record.expiresAt.getTime() - clock().getTime();
        if (left <= 0) return void queueMicrotask(() => watcher('key_expired'));
        timer = setTimeout(expiry, Math.min(left, LONGEST_TIMER_MS));
        timer.unref();
      };
      // Gone between the request's authentication and now: told at once (after the caller has its stop).
      if (!record || record.revokedAt !== null) queueMicrotask(() => watcher('key_revoked'));
      else if (halted) queueMicrotask(() => watcher('keys_unavailable'));
      else expiry();
      return stop;
    },
  };
};

export interface FollowOptions {
  /** Following has failed for this long: the ring refuses the API's keys until it follows again. */
  haltAfterMs?: number;
  /** The first wait before following again after a failure (doubled up to 1 s). */
  retryMs?: number;
}

/** The key ring's processor: its name, and the label of its gauges. */
export const KEYS_PROCESSOR = 'keys';

/**
 * Keeps the ring up to date with every keys stream: a processor (src/feed/processor.ts) on the
 * process's shared tail that handles the key event types only (the tail reads its catch-up through
 * the store's type index and hands it nothing else), so a key made or revoked on another replica
 * is honoured here as soon as the tail sees it, without a restart. The ring lives in memory, so its
 * checkpoint does too: each process reads the key events from the start. Resolves once caught up
 * (or once following has failed: it goes on retrying). If following fails for `haltAfterMs` (5 s),
 * a revocation could go unseen, so the API's keys are refused until it follows again.
 */
export const followKeys = async (
  tail: ProcessorDeps<RecordedEvent>['tail'],
  ring: LiveKeyRing,
  logger: Logger,
  { haltAfterMs = 5000, retryMs = 100 }: FollowOptions = {},
): Promise<{ processor: Processor; stop(): Promise<void> }> => {
  let haltTimer: NodeJS.Timeout | undefined;
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  const processor = await startProcessor<RecordedEvent>(
    {
      name: KEYS_PROCESSOR,
      streamPrefix: WORKSPACE_STREAM_PREFIX,
      eventTypes: KEY_EVENT_TYPES,
      retry: { initialMs: retryMs, maxMs: Math.max(retryMs, 1000) },
      async handle(events) {
        for (const recorded of events) ring.apply(recorded);
      },
    },
    { tail, checkpoints: memoryCheckpoints(), logger },
  );
  processor.events.on('live', () => {
    clearTimeout(haltTimer);
    haltTimer = undefined;
    ring.halt(false);
    settle();
  });
  processor.events.on('health', (healthy) => {
    if (healthy) return;
    settle();
    haltTimer ??= setTimeout(() => ring.halt(true), haltAfterMs);
    haltTimer.unref();
  });
  await settled;
  return {
    processor,
    async stop() {
      clearTimeout(haltTimer);
      await processor.stop();
    },
  };
};
