import { randomUUID } from 'node:crypto';
import type { Caller } from '../auth/apiKeys';
import { generateApiKey } from '../auth/keyStore';
import { hashApiKey, type Scope } from '../auth/keysFile';
import { handleCommand } from '../eventstore/commandHandler';
import type { EventStore } from '../eventstore/eventStore';
import { foldFromStore } from '../eventstore/states';
import { CURRENT_SCHEMA_VERSION, decodeEvent, toNewEvent, type EventMetadata } from '../presets/events';
import { keysDecider, type KeyCommand, type KeyCommandMetadata } from './decider';
import type { ApiKeyRecord, LiveKeyRing } from './keyRing';
import { keysStreamName } from './streamName';

/**
 * The keys' side of the one command handler: a key is made in the keys stream of the workspace
 * the request acts in, and revoked in the stream it was made in. The new key is made here, shown
 * to the caller once, and only its SHA-256 goes into the event. This process's ring takes the
 * appended events at once (the others through the feed), so a new key works in the next request.
 */
export interface KeyRequestContext {
  requestId: string;
  caller: Caller;
  /** The workspace the request acts in. */
  workspaceId: string;
}

export interface NewApiKey {
  userId: string;
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
  const states = foldFromStore(eventStore, { ...keysDecider, decode: (recorded) => decodeEvent(recorded).event });
  const run = async (stream: string, command: KeyCommand) => {
    const metadata: EventMetadata = {
      requestId: command.metadata.requestId,
      actorUserId: command.metadata.actorUserId,
      schemaVersion: CURRENT_SCHEMA_VERSION,
    };
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
    actorWorkspaces: context.caller.workspaces,
    actorScopes: context.caller.scopes,
    now: clock(),
  });
  return {
    async create(input, context) {
      const key = generateApiKey();
      const keyId = newId();
      await run(keysStreamName(context.workspaceId), {
        type: 'CreateApiKey',
        data: { keyId, keySha256: hashApiKey(key), ...input },
        metadata: metadataOf(context),
      });
      return { key, record: ring.get(keyId)! };
    },
    async revoke(id, context) {
      const record = ring.get(id);
      if (!record || !record.workspaces.includes(context.workspaceId)) return null;
      await run(record.stream, { type: 'RevokeApiKey', data: { keyId: id }, metadata: metadataOf(context) });
      return ring.get(id)!;
    },
  };
};
