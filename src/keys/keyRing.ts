import type { Logger } from 'pino';
import { byToken, type Caller, type KeyGone, type KeyRing } from '../auth/apiKeys';
import type { Scope } from '../auth/keysFile';
import type { EventFeed } from '../eventstore/eventFeed';
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

const PAGE = 1000;

export interface FollowOptions {
  /** How often to look for key events (another process's, or this one's own made elsewhere). */
  intervalMs?: number;
  /** Looking has failed for this long: the ring refuses the API's keys until it succeeds again. */
  haltAfterMs?: number;
}

/**
 * Keeps the ring up to date with every keys stream, through the event feed: a read of the key
 * event types after the last position looked at, every `intervalMs` (200 ms), so a key made or
 * revoked on another replica is honoured here well within a second, without a restart. The
 * position moves to the head seen before each read, so a look costs the events appended since the
 * last one, and only the key events among them are parsed (a subscription would parse every
 * preset event on the HTTP thread). Resolves once caught up. If looking fails for `haltAfterMs`
 * (5 s), a revocation could go unseen, so the API's keys are refused until it works again.
 */
export const followKeys = async (
  feed: EventFeed,
  ring: LiveKeyRing,
  logger: Logger,
  { intervalMs = 200, haltAfterMs = 5000 }: FollowOptions = {},
): Promise<{ stop(): Promise<void> }> => {
  let after: bigint | undefined;
  const look = async () => {
    const head = await feed.headPosition();
    for (;;) {
      const page = await feed.readAll({ after, limit: PAGE, streamPrefix: WORKSPACE_STREAM_PREFIX, types: KEY_EVENT_TYPES });
      for (const recorded of page) ring.apply(recorded);
      if (page.length > 0) after = page[page.length - 1]!.position;
      if (page.length < PAGE) break;
    }
    // Every event up to the head seen before the read is committed and was read: start there next time.
    if (head !== null && (after === undefined || head > after)) after = head;
  };
  await look();
  let stopped = false;
  let lastSuccess = Date.now();
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(async () => {
      if (stopped) return;
      try {
        await look();
        lastSuccess = Date.now();
        ring.halt(false);
      } catch (error) {
        logger.error({ err: error }, 'reading the keys streams failed; trying again');
        if (Date.now() - lastSuccess >= haltAfterMs) ring.halt(true);
      }
    });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
};
