import * as E from 'fp-ts/Either';
import type { Rejection } from '../eventstore/commandHandler';
import type { Decider } from '../eventstore/decider';
import type { Scope } from './scopes';
import type { WorkspaceEvent } from '../presets/events';
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

export const evolveKeys = (state: KeysState, event: WorkspaceEvent): KeysState => {
  switch (event.type) {
    case 'ApiKeyCreated':
      return { keys: { ...state.keys, [event.data.keyId]: { revoked: false, workspaces: event.data.workspaces } } };
    case 'ApiKeyRevoked': {
      const key = state.keys[event.data.keyId];
      return key ? { keys: { ...state.keys, [event.data.keyId]: { ...key, revoked: true } } } : state;
    }
    default:
      return state;
  }
};

export interface KeyCommandMetadata {
  requestId: string;
  actorUserId: string;
  actorWorkspaces: readonly string[];
  actorScopes: ReadonlySet<Scope>;
  now: Date;
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
    const key = Object.hasOwn(state.keys, command.data.keyId) ? state.keys[command.data.keyId] : undefined;
    if (!key) return E.left({ kind: 'not_found', message: `no key ${command.data.keyId} in this workspace` });
    // Revoking a revoked key changes nothing.
    if (key.revoked) return E.right([]);
    const note = command.data.note === undefined ? {} : { note: command.data.note };
    return E.right([{ type: 'ApiKeyRevoked', data: { keyId: command.data.keyId, occurredAt, ...note } }]);
  }
  const { data } = command;
  if (Object.hasOwn(state.keys, data.keyId)) return E.left({ kind: 'conflict', message: `key ${data.keyId} exists already` });
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
      },
    },
  ]);
};

export const keysDecider: Decider<KeysState, KeyCommand, KeyEvent, KeyRejection> = {
  decide: decideKeys,
  evolve: evolveKeys,
  initialState: initialKeysState,
};
