import { randomUUID } from 'node:crypto';
import type { Caller } from '../auth/apiKeys';
import { generateApiKey } from '../auth/keyStore';
import { hashApiKey, type Scope } from '../auth/keysFile';
import { handleCommand } from '../eventstore/commandHandler';
import type { EventStore } from '../eventstore/eventStore';
import { foldFromStore } from '../eventstore/states';
import { eventMetadata, toNewEvent } from '../events/envelope';
import { keyEvents } from './events';
import { keysDecider, type KeyCommand, type KeyCommandMetadata } from './decider';
import type { ApiKeyRecord, LiveKeyRing } from './keyRing';
import { keysStreamName } from './streamName';

/**
 * The keys' side of the one command handler. A key's events belong to every workspace it touches:
 * it is made, and revoked, in the keys stream of the workspace the request acts in and of each
 * workspace the key holds (the same event, one command per stream, the acting workspace's first),
 * so no key acts in a workspace without a trace there. The new key is made here, shown to the
 * caller once (only after every stream has it), and only its SHA-256 goes into the event. This
 * process's ring takes the appended events at once (the others through the feed), so a new key
 * works in the next request.
 */
export interface KeyRequestContext {
  requestId: string;
  caller: Caller;
  /** The workspace the request acts in. */
  workspaceId: string;
}

export interface NewApiKey {
  /** Absent: the maker's own user. */
  userId?: string;
  name: string | null;
  scopes: Scope[];
  workspaces: string[];
  expiresAt: Date | null;
}

export interface KeyCommandHandler {
  create(input: NewApiKey, context: KeyRequestContext): Promise<{ key: string; record: ApiKeyRecord }>;
  /** Null when the key is unknown here (not in the ring, or holding no workspace of the request's). */
  revoke(id: string, context: KeyRequestContext): Promise<ApiKeyRecord | null>;
}

export const createKeyCommandHandler = ({
  eventStore,
  ring,
  newId = randomUUID,
  clock = () => new Date(),
}: {
  eventStore: EventStore;
  ring: LiveKeyRing;
  newId?: () => string;
  clock?: () => Date;
}): KeyCommandHandler => {
  const states = foldFromStore(eventStore, { ...keysDecider, decode: (recorded) => keyEvents.decode(recorded).event });
  const run = async (stream: string, command: KeyCommand) => {
    const metadata = eventMetadata(command.metadata);
    const outcome = await handleCommand(
      { eventStore, states, decider: keysDecider, toNewEvent: (event) => toNewEvent(newId(), event, metadata) },
      stream,
      command,
    );
    if (outcome.events.length > 0) {
      const appended = await eventStore.read(stream, { fromRevision: outcome.revision - BigInt(outcome.events.length - 1) });
      for (const recorded of appended) ring.apply(recorded);
    }
  };
  const metadataOf = (context: KeyRequestContext): KeyCommandMetadata => ({
    requestId: context.requestId,
    actorUserId: context.caller.userId,
    // The acting key's id, as on every preset event: the audit report's key column.
    keyId: context.caller.keyId,
    actorKeyId: context.caller.apiKeyId ?? context.caller.keyId,
    actorWorkspaces: context.caller.workspaces,
    actorScopes: context.caller.scopes,
    actorActsForOthers: context.caller.actForOthers === true,
    now: clock(),
  });
  /** The acting workspace's keys stream first, then each of the key's that is another. */
  const streamsOf = (acting: string, workspaces: readonly string[]) =>
    [...new Set([acting, ...workspaces].map((w) => w.toLowerCase()))].map((w) =>
      keysStreamName([acting, ...workspaces].find((x) => x.toLowerCase() === w)!),
    );
  return {
    async create(input, context) {
      const key = generateApiKey();
      const keyId = newId();
      const metadata = metadataOf(context);
      // A workspace as the maker's key spells it (a UUID's letter case aside, one workspace is one stream).
      const workspaces = input.workspaces.map((w) => context.caller.workspaces.find((held) => held.toLowerCase() === w.toLowerCase()) ?? w);
      const data = { ...input, userId: input.userId ?? context.caller.userId, workspaces, keyId, keySha256: hashApiKey(key) };
      for (const stream of streamsOf(context.workspaceId, workspaces)) {
        await run(stream, { type: 'CreateApiKey', data, metadata });
      }
      return { key, record: ring.get(keyId)! };
    },
    async revoke(id, context) {
      const record = ring.get(id);
      if (!record || !record.workspaces.some((w) => w.toLowerCase() === context.workspaceId.toLowerCase())) return null;
      const metadata = metadataOf(context);
      for (const stream of streamsOf(context.workspaceId, record.workspaces)) {
        await run(stream, { type: 'RevokeApiKey', data: { keyId: id }, metadata });
      }
      return ring.get(id)!;
    },
  };
};
