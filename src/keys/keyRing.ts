import { hash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Caller, KeyRing } from '../auth/apiKeys';
import type { Scope } from '../auth/keysFile';
import type { EventFeed } from '../eventstore/eventFeed';
import type { RecordedEvent } from '../eventstore/eventStore';
import { decodeEvent } from '../presets/events';
import { PRESET_STREAM_PREFIX, parseWorkspaceStream } from '../presets/streamName';
import { KEY_EVENT_TYPES } from './events';
import { isKeysStream } from './streamName';

/**
 * The keys a request may present: the keys file's (the bootstrap, read once at start) and those
 * made through the API, which every process follows through the event feed (`followKeys`), so a
 * key made or revoked on one replica is honoured on every other without a restart (the embedded
 * store's subscriptions look for other processes' appends every 100 ms; a server pushes them).
 */
export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string | null;
  scopes: Scope[];
  workspaces: string[];
  createdAt: string;
  createdBy: string;
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
  /** Following the keys streams failed for good: a revocation could go unseen, so the API's keys are refused from now on (the file's still work). */
  halt(): void;
}

const MINUTE = 60_000;

export const createLiveKeyRing = (file: KeyRing, clock: () => Date = () => new Date()): LiveKeyRing => {
  const byId = new Map<string, ApiKeyRecord>();
  const byHash = new Map<string, { record: ApiKeyRecord; caller: Caller }>();
  let halted = false;
  return {
    get size() {
      return file.size + byHash.size;
    },
    authenticate(token) {
      const fromFile = file.authenticate(token);
      if (fromFile) return fromFile;
      if (token.length === 0 || halted) return null;
      // A lookup by the token's SHA-256: what it reveals through timing is about the hash of the
      // guess, which a guesser cannot steer towards a stored one.
      const found = byHash.get(hash('sha256', token, 'hex'));
      if (!found) return null;
      const now = clock();
      const { record } = found;
      if (record.revokedAt !== null || (record.expiresAt !== null && record.expiresAt.getTime() <= now.getTime())) return null;
      record.lastUsedAt = new Date(Math.floor(now.getTime() / MINUTE) * MINUTE);
      return found.caller;
    },
    apply(recorded) {
      if (!isKeysStream(recorded.stream)) return;
      const stored = decodeEvent(recorded);
      const { event } = stored;
      if (event.type === 'ApiKeyCreated') {
        const d = event.data;
        if (byId.has(d.keyId)) return; // seen already (catch-up and subscription overlap)
        const record: ApiKeyRecord = {
          id: d.keyId,
          userId: d.userId,
          name: d.name,
          scopes: d.scopes,
          workspaces: d.workspaces,
          createdAt: d.occurredAt,
          createdBy: stored.metadata.actorUserId,
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
        });
        byId.set(d.keyId, record);
        byHash.set(d.keySha256.toLowerCase(), { record, caller });
      } else if (event.type === 'ApiKeyRevoked') {
        const record = byId.get(event.data.keyId);
        if (record && record.revokedAt === null) {
          record.revokedAt = event.data.occurredAt;
          record.revokedBy = stored.metadata.actorUserId;
        }
      }
    },
    list(workspaceId) {
      return [...byId.values()].filter((r) => r.workspaces.includes(workspaceId));
    },
    get: (id) => byId.get(id),
    halt() {
      halted = true;
    },
  };
};

const PAGE = 1000;

/**
 * Brings the ring up to date with every keys stream, then keeps it so: a catch-up read of the key
 * events only (by type), then a subscription after the head seen before it, which passes by every
 * other event. Resolves once caught up; a subscription that fails for good is logged.
 */
export const followKeys = async (feed: EventFeed, ring: LiveKeyRing, logger: Logger): Promise<{ stop(): Promise<void> }> => {
  const head = await feed.headPosition({ streamPrefix: PRESET_STREAM_PREFIX });
  let after: bigint | undefined;
  for (;;) {
    const page = await feed.readAll({ after, limit: PAGE, streamPrefix: PRESET_STREAM_PREFIX, types: KEY_EVENT_TYPES });
    for (const recorded of page) ring.apply(recorded);
    if (page.length < PAGE) break;
    after = page[page.length - 1]!.position;
  }
  const subscription = feed.subscribe(
    head === null ? 'start' : { after: head },
    async (recorded) => {
      if (parseWorkspaceStream(recorded.stream) && isKeysStream(recorded.stream)) ring.apply(recorded);
    },
    {
      streamPrefix: PRESET_STREAM_PREFIX,
      onError: (error) => {
        ring.halt();
        logger.error({ err: error }, 'following the keys streams failed: keys made through the API are refused until a restart');
      },
    },
  );
  return subscription;
};
