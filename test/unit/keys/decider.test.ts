import { keysDecider, type CreateApiKey, type KeyCommandMetadata, type RevokeApiKey } from '#src/keys/decider';
import type { ApiKeyCreated, ApiKeyRevoked } from '#src/keys/events';
import { DeciderSpecification } from '#support/deciderSpecification';

/** The keys decider: whose a key may be, who made it, and revocations in any stream the key touches. */
const given = DeciderSpecification.for(keysDecider);
const NOW = new Date('2026-03-01T10:00:00.000Z');

const meta = (overrides: Partial<KeyCommandMetadata> = {}): KeyCommandMetadata => ({
  requestId: 'r1',
  actorUserId: 'ann',
  actorKeyId: 'key-of-ann',
  actorWorkspaces: ['w1', 'w2'],
  actorScopes: new Set(['presets:read', 'keys:manage']),
  actorActsForOthers: false,
  now: NOW,
  ...overrides,
});
const create = (data: Partial<CreateApiKey['data']> = {}, metadata = meta()): CreateApiKey => ({
  type: 'CreateApiKey',
  data: {
    keyId: 'k1',
    keySha256: 'a'.repeat(64),
    userId: 'ann',
    name: null,
    scopes: ['presets:read'],
    workspaces: ['w1'],
    expiresAt: null,
    ...data,
  },
  metadata,
});
const created = (data: Partial<ApiKeyCreated['data']> = {}): ApiKeyCreated => ({
  type: 'ApiKeyCreated',
  data: {
    keyId: 'k1',
    keySha256: 'a'.repeat(64),
    userId: 'ann',
    name: null,
    scopes: ['presets:read'],
    workspaces: ['w1'],
    expiresAt: null,
    occurredAt: NOW.toISOString(),
    makerUserId: 'ann',
    makerKeyId: 'key-of-ann',
    ...data,
  },
});
const revoke = (): RevokeApiKey => ({ type: 'RevokeApiKey', data: { keyId: 'k1' }, metadata: meta() });
const revoked: ApiKeyRevoked = { type: 'ApiKeyRevoked', data: { keyId: 'k1', occurredAt: NOW.toISOString() } };

describe('making a key', () => {
  it('records who made it: the maker’s user and key', () => {
    given().when(create()).then([created()]);
  });

  it('refuses a key for another user unless the maker’s key may act for others', () => {
    given()
      .when(create({ userId: 'ghost' }))
      .thenRejects({ kind: 'forbidden', reason: 'user_not_own' });
    given()
      .when(create({ userId: 'bob' }, meta({ actorActsForOthers: true })))
      .then([created({ userId: 'bob' })]);
  });

  it('still gives no workspace or scope the maker lacks', () => {
    given()
      .when(create({ workspaces: ['w3'] }))
      .thenRejects({ kind: 'forbidden', reason: 'workspace_not_held' });
    given()
      .when(create({ scopes: ['presets:write'] }))
      .thenRejects({ kind: 'forbidden', reason: 'scope_not_held' });
  });
});

describe('revoking a key', () => {
  it('is recorded in a stream that never saw the key made (a workspace it holds, or its revoker’s)', () => {
    given().when(revoke()).then([revoked]);
    given([created()]).when(revoke()).then([revoked]);
  });

  it('changes nothing the second time, in any stream', () => {
    given([revoked]).when(revoke()).thenNothing();
    given([created(), revoked]).when(revoke()).thenNothing();
  });
});
