import { createKeyRing } from '#src/auth/apiKeys';
import { SCOPES } from '#src/auth/keysFile';
import { openMemoryEventStore } from '#src/eventstore/memory';
import { createKeyCommandHandler } from '#src/keys/handler';
import { createLiveKeyRing } from '#src/keys/keyRing';
import { keysStreamName } from '#src/keys/streamName';

const WS = '3c9d2e1f-4a5b-4c6d-8e7f-0a1b2c3d4e5f';

it('stores on a key’s events who made it, in which request and with which key, in the order the log has always had them', async () => {
  const store = openMemoryEventStore();
  try {
    const keys = createKeyCommandHandler({ eventStore: store, ring: createLiveKeyRing(createKeyRing([])) });
    // A key of the keys file: its key id (the audit report's key column) is the first 12 hex of its hash.
    const admin = { userId: 'admin', workspaces: [WS], scopes: new Set(SCOPES), keyId: '0123456789ab', actForOthers: true };
    const made = await keys.create(
      { userId: 'ci', name: null, scopes: ['presets:read'], workspaces: [WS], expiresAt: null },
      { requestId: 'req-make', caller: admin, workspaceId: WS },
    );
    await keys.revoke(made.record.id, { requestId: 'req-revoke', caller: admin, workspaceId: WS });
    const stored = await store.read(keysStreamName(WS));
    expect(stored.map((e) => e.type)).toEqual(['ApiKeyCreated', 'ApiKeyRevoked']);
    for (const [event, requestId] of [
      [stored[0]!, 'req-make'],
      [stored[1]!, 'req-revoke'],
    ] as const) {
      const metadata = event.metadata as Record<string, unknown>;
      const { hash: _hash, hashed: _hashed, ...own } = metadata;
      expect(own).toEqual({ requestId, actorUserId: 'admin', schemaVersion: 3, keyId: '0123456789ab' });
      expect(Object.keys(own)).toEqual(['requestId', 'actorUserId', 'schemaVersion', 'keyId']);
    }
  } finally {
    await store.close();
  }
});
