import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { createKeyRing } from '#src/auth/apiKeys';
import { hashApiKey, SCOPES } from '#src/auth/keysFile';
import type { EventFeed } from '#src/eventstore/eventFeed';
import { openMemoryEventStore } from '#src/eventstore/memory';
import { createKeyCommandHandler } from '#src/keys/handler';
import { withSharedTail } from '#src/feed/sharedFeed';
import { createLiveKeyRing, followKeys } from '#src/keys/keyRing';

/**
 * Two key rings over one store, as two replicas: keys made and revoked through one reach the other
 * by following the feed; while the feed cannot be read, the API's keys are refused (a revocation
 * could go unseen), the file's are not.
 */
const silent = pino({ level: 'silent' });
const WS = randomUUID();
const admin = { userId: 'admin', workspaces: [WS], scopes: new Set(SCOPES), keyId: 'adm', actForOthers: true };
const until = async (check: () => boolean, ms = 2000) => {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  return check();
};

it('brings keys made and revoked on one replica to another, and refuses them while the feed fails', async () => {
  const store = openMemoryEventStore();
  const here = createLiveKeyRing(createKeyRing([]));
  const fileKey = 'pk_file_key';
  const there = createLiveKeyRing(createKeyRing([{ key: fileKey, user_id: 'f', workspace_id: WS, scopes: ['presets:read'] }]));
  let failing = false;
  // The store's live subscriptions, ended with an error when the feed starts failing.
  const live = new Set<(error: unknown) => void>();
  const feed: EventFeed = {
    ...store,
    readAll: async (options) => {
      if (failing) throw new Error('unreachable');
      return store.readAll(options);
    },
    subscribe: (from, onEvent, options) => {
      const subscription = store.subscribe(from, onEvent, options);
      const fail = (error: unknown) => {
        live.delete(fail);
        void subscription.stop().then(() => options?.onError?.(error));
      };
      live.add(fail);
      return {
        stop: () => {
          live.delete(fail);
          return subscription.stop();
        },
      };
    },
  };
  const breakFeed = () => {
    failing = true;
    for (const fail of [...live]) fail(new Error('unreachable'));
  };
  const follower = await followKeys(withSharedTail(feed), there, silent, { retryMs: 10, haltAfterMs: 50 });
  try {
    const keys = createKeyCommandHandler({ eventStore: store, ring: here });
    const { key, record } = await keys.create(
      { userId: 'ci', name: null, scopes: ['presets:read'], workspaces: [WS], expiresAt: null },
      { requestId: 'r', caller: admin, workspaceId: WS },
    );
    // The replica that made it knows it at once; the other once it has looked.
    expect(here.authenticate(key)?.userId).toBe('ci');
    expect(await until(() => there.authenticate(key)?.userId === 'ci')).toBe(true);
    expect(there.list(WS).map((k) => k.id)).toEqual([record.id]);

    breakFeed();
    expect(await until(() => there.authenticate(key) === null)).toBe(true);
    expect(there.authenticate(fileKey)?.userId).toBe('f');
    failing = false;
    expect(await until(() => there.authenticate(key) !== null)).toBe(true);

    await keys.revoke(record.id, { requestId: 'r', caller: admin, workspaceId: WS });
    expect(here.authenticate(key)).toBeNull();
    expect(await until(() => there.authenticate(key) === null)).toBe(true);
    expect(there.get(record.id)).toMatchObject({ revokedBy: 'admin' });
  } finally {
    await follower.stop();
    await store.close();
  }
});

const TOKEN = 'pk_expiring_token';
it('refuses an expired key from the moment it expires, and a token that is no key', () => {
  let now = new Date('2026-01-01T00:00:00Z');
  const ring = createLiveKeyRing(createKeyRing([]), () => now);
  ring.apply({
    id: randomUUID(),
    type: 'ApiKeyCreated',
    stream: `preset-${WS}-~keys`,
    revision: 0n,
    position: 1n,
    recordedAt: now,
    data: {
      keyId: 'k',
      keySha256: hashApiKey(TOKEN),
      userId: 'u',
      name: null,
      scopes: ['presets:read'],
      workspaces: [WS],
      expiresAt: '2026-01-01T01:00:00.000Z',
      occurredAt: now.toISOString(),
    },
    metadata: { requestId: 'r', actorUserId: 'admin', schemaVersion: 2 },
  });
  expect(ring.list(WS)).toHaveLength(1);
  expect(ring.authenticate(TOKEN)?.userId).toBe('u');
  expect(ring.authenticate('')).toBeNull();
  expect(ring.authenticate('pk_unknown')).toBeNull();
  now = new Date('2026-01-01T01:00:00Z'); // the moment it expires
  expect(ring.authenticate(TOKEN)).toBeNull();
});

it('counts a key as each user up its chain of makers; a key made before makers were recorded, as its event’s actor', async () => {
  const store = openMemoryEventStore();
  const ring = createLiveKeyRing(createKeyRing([]));
  try {
    const keys = createKeyCommandHandler({ eventStore: store, ring });
    const context = (caller: Parameters<typeof keys.create>[1]['caller']) => ({ requestId: 'r', caller, workspaceId: WS });
    const manage = { name: null, scopes: ['presets:read' as const, 'keys:manage' as const], workspaces: [WS], expiresAt: null };
    // A keys-file key that may act for others makes a key for ci; ci's key makes one in turn (ci's own).
    const forCi = await keys.create({ ...manage, userId: 'ci' }, context(admin));
    const ciCaller = ring.authenticate(forCi.key)!;
    expect(ciCaller).toMatchObject({ userId: 'ci', makers: ['admin'] });
    const byCi = await keys.create(manage, context(ciCaller));
    expect(ring.authenticate(byCi.key)).toMatchObject({ userId: 'ci', makers: ['ci', 'admin'] });
    expect(byCi.record).toMatchObject({ createdBy: 'ci', createdByKeyId: forCi.record.id });
    expect(forCi.record).toMatchObject({ createdBy: 'admin', createdByKeyId: 'adm' });
    // Made by an earlier version, for any user: its maker is the event's actor.
    ring.apply({
      id: randomUUID(),
      type: 'ApiKeyCreated',
      stream: `preset-${WS}-~keys`,
      revision: 9n,
      position: 99n,
      recordedAt: new Date(),
      data: {
        keyId: 'old',
        keySha256: hashApiKey('pk_old_ghost'),
        userId: 'ghost',
        name: null,
        scopes: ['presets:read'],
        workspaces: [WS],
        expiresAt: null,
        occurredAt: new Date().toISOString(),
      },
      metadata: { requestId: 'r', actorUserId: 'insider', schemaVersion: 2 },
    });
    expect(ring.authenticate('pk_old_ghost')).toMatchObject({ userId: 'ghost', makers: ['insider'] });
    expect(ring.get('old')).toMatchObject({ createdBy: 'insider', createdByKeyId: null });
  } finally {
    await store.close();
  }
});

it('tells a watcher once when its key is revoked, expires, or the ring halts; never for a key of the keys file', async () => {
  const store = openMemoryEventStore();
  const ring = createLiveKeyRing(createKeyRing([{ key: 'pk_file', user_id: 'f', workspace_id: WS, scopes: ['presets:read'] }]));
  try {
    const keys = createKeyCommandHandler({ eventStore: store, ring });
    const context = { requestId: 'r', caller: admin, workspaceId: WS };
    const make = (expiresAt: Date | null = null) =>
      keys.create({ name: null, scopes: ['presets:read'], workspaces: [WS], expiresAt }, context);
    const told: string[] = [];
    const watchAs = async (name: string, key: string) => ring.watch(ring.authenticate(key)!, (gone) => told.push(`${name}:${gone}`));

    const revoked = await make();
    const stopUnrevoked = await watchAs('never', (await make()).key);
    await watchAs('revoked', revoked.key);
    await keys.revoke(revoked.record.id, context);
    await keys.revoke(revoked.record.id, context); // revoked again: told once
    expect(told).toEqual(['revoked:key_revoked']);

    const soon = await make(new Date(Date.now() + 300));
    await watchAs('expiring', soon.key);
    expect(await until(() => told.includes('expiring:key_expired'))).toBe(true);

    // Watched once it is gone already: told at once.
    ring.watch({ ...ring.authenticate((await make()).key)!, apiKeyId: revoked.record.id }, (gone) => told.push(`late:${gone}`));
    await Promise.resolve();
    expect(told).toContain('late:key_revoked');

    const halting = await make();
    await watchAs('halted', halting.key);
    ring.watch(ring.authenticate('pk_file')!, (gone) => told.push(`file:${gone}`));
    stopUnrevoked(); // stopped watching: not told
    ring.halt(true);
    expect(told.filter((t) => t.endsWith('keys_unavailable'))).toEqual(['halted:keys_unavailable']);
    ring.halt(false);
  } finally {
    await store.close();
  }
});
