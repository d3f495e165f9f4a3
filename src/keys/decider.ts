import * as E from 'fp-ts/Either';
import type { Rejection } from '../eventstore/commandHandler';
import type { Decider } from '../eventstore/decider';
import type { Scope } from '../auth/scopes';
import type { CommandMetadata } from '../events/envelope';
import type { KeyEvent } from './events';

/**
 * The keys of one workspace's keys stream, as pure functions. Commands are `{ type, data, metadata }`
 * with who and when in the metadata; the actor's own workspaces and scopes ride there too, because
 * they bound what the actor may give: a key is never given a workspace or a scope its creator lacks.
 */
export interface KeysState {
  /** Key id → what a decision needs to know of it. */
  keys: Record<string, { revoked: boolean; workspaces: string[] }>;
}

export const initialKeysState = (): KeysState => ({ keys: {} });

export const evolveKeys = (state: KeysState, event: KeyEvent): KeysState => {
  switch (event.type) {
    case 'ApiKeyCreated':
      return { keys: { ...state.keys, [event.data.keyId]: { revoked: false, workspaces: event.data.workspaces } } };
    case 'ApiKeyRevoked': {
      // A key made in another workspace's stream is revoked here too (it held this one, or its revoker acted here).
      const key = Object.hasOwn(state.keys, event.data.keyId) ? state.keys[event.data.keyId]! : { workspaces: [] };
      return { keys: { ...state.keys, [event.data.keyId]: { ...key, revoked: true } } };
    }
    default:
      return state;
  }
};

/**
 * Who asks and when (the envelope's `CommandMetadata`, from which the events' metadata is built by
 * `eventMetadata`), and what bounds what the actor may give.
 */
export interface KeyCommandMetadata extends CommandMetadata {
  /** The acting key's id as the key ring knows it: an API key's id, or a keys-file key's 12-hex key id (the maker on ApiKeyCreated). */
  actorKeyId: string;
  actorWorkspaces: readonly string[];
  actorScopes: ReadonlySet<Scope>;
  /** Whether the acting key may make keys for other users (a keys-file right: `act_for_others`). */
  actorActsForOthers: boolean;
}

export interface CreateApiKey {
  type: 'CreateApiKey';
  data: {
    keyId: string;
    keySha256: string;
    userId: string;
    name: string | null;
    scopes: Scope[];
    workspaces: string[];
    expiresAt: Date | null;
  };
  metadata: KeyCommandMetadata;
}

export interface RevokeApiKey {
  type: 'RevokeApiKey';
  data: { keyId: string; note?: string };
  metadata: KeyCommandMetadata;
}

export type KeyCommand = CreateApiKey | RevokeApiKey;

export type KeyRejection = Rejection;

export const decideKeys = (command: KeyCommand, state: KeysState): E.Either<KeyRejection, KeyEvent[]> => {
  const { metadata } = command;
  const occurredAt = metadata.now.toISOString();
  if (command.type === 'RevokeApiKey') {
    // The handler finds the key (a 404 otherwise) and revokes it in the stream of each workspace it
    // holds and of the revoker's, some of which never recorded its creation (a key made before it was).
    const key = Object.hasOwn(state.keys, command.data.keyId) ? state.keys[command.data.keyId] : undefined;
    // Revoking a revoked key changes nothing.
    if (key?.revoked) return E.right([]);
    const note = command.data.note === undefined ? {} : { note: command.data.note };
    return E.right([{ type: 'ApiKeyRevoked', data: { keyId: command.data.keyId, occurredAt, ...note } }]);
  }
  const { data } = command;
  if (Object.hasOwn(state.keys, data.keyId)) return E.left({ kind: 'conflict', message: `key ${data.keyId} exists already` });
  // A key is its maker's user's, unless the maker's key may act for others: no one makes identities but who the keys file lets.
  if (data.userId !== metadata.actorUserId && !metadata.actorActsForOthers) {
    return E.left({
      kind: 'forbidden',
      reason: 'user_not_own',
      message:
        `your key may make keys for its own user (${metadata.actorUserId}) only: leave user_id out, ` +
        'or ask for a key of the keys file that may act for others (act_for_others)',
    });
  }
  const foreign = data.workspaces.filter((w) => !metadata.actorWorkspaces.includes(w));
  if (foreign.length > 0) {
    return E.left({
      kind: 'forbidden',
      reason: 'workspace_not_held',
      message: `your key does not hold workspace ${foreign.join(', ')}: a key can only be given workspaces its creator holds`,
    });
  }
  const beyond = data.scopes.filter((s) => !metadata.actorScopes.has(s));
  if (beyond.length > 0) {
    return E.left({
      kind: 'forbidden',
      reason: 'scope_not_held',
      message: `your key lacks ${beyond.join(', ')}: a key can only be given scopes its creator holds`,
    });
  }
  if (data.expiresAt !== null && data.expiresAt.getTime() <= metadata.now.getTime()) {
    return E.left({ kind: 'conflict', reason: 'expired', message: 'expires_at is in the past' });
  }
  return E.right([
    {
      type: 'ApiKeyCreated',
      data: {
        keyId: data.keyId,
        keySha256: data.keySha256,
        userId: data.userId,
        name: data.name,
        scopes: data.scopes,
        workspaces: data.workspaces,
        expiresAt: data.expiresAt === null ? null : data.expiresAt.toISOString(),
        occurredAt,
        makerUserId: metadata.actorUserId,
        makerKeyId: metadata.actorKeyId,
      },
    },
  ]);
};

export const keysDecider: Decider<KeysState, KeyCommand, KeyEvent, KeyRejection> = {
  decide: decideKeys,
  evolve: evolveKeys,
  initialState: initialKeysState,
};
