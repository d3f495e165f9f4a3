import { join } from 'node:path';
import { call, freePort, spawnService, stopChild, waitReady } from '../support/process';
import { KEYS, WORKSPACE_A, startTestService, type TestService, useTestService } from '../support/service';
import { drainSse, expectEndedByKeyGone, openSse, type SseClient } from '../support/sse';

/**
 * A second service on the same data directory (a replica, as several API processes share one
 * store): a key made on the first is honoured on the second, and its revoke reaches the second
 * from the log within a second, refusing the key and ending the streams it holds there. Both a
 * real child process (the build, as npm start runs it) and a second service in this process.
 */
const svc = useTestService();

/** The bound issue 54 sets: a revoked key is refused, and its streams end, within a second. */
const WITHIN_MS = 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const made = async (json: Record<string, unknown>) => {
  const res = await svc.request('/api/v1/keys', {
    method: 'POST',
    json: { user_id: 'user-admin', scopes: ['presets:read', 'presets:write', 'events:consume'], workspaces: [WORKSPACE_A], ...json },
    key: KEYS.admin,
  });
  expect(res.status).toBe(201);
  return (await res.json()).data as { id: string; key: string; [k: string]: unknown };
};
const makeKey = () => made({});
const revoke = async (id: string) =>
  expect((await svc.request(`/api/v1/keys/${id}`, { method: 'DELETE', key: KEYS.admin })).status).toBe(200);
const head = async () => (await svc.eventStore.headPosition())?.toString() ?? '0';

describe('a second service process on the same data directory', () => {
  it('(a real child process) takes a key made on the first, and refuses it within a second of the revoke', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const child = spawnService({
      PORT: String(port),
      DATA_DIR: svc.dataDir,
      API_KEYS_FILE: join(svc.dataDir, 'keys.json'),
      PROJECTOR: 'off',
      WEBHOOKS: 'off',
    });
    try {
      await waitReady(base, child);
      const key = await made({ name: 'child-replica' });
      const seen = async (status: number) => {
        const deadline = Date.now() + 1000;
        for (;;) {
          if ((await call(base, 'GET', '/api/v1/presets', { key: key.key })).status === status) return true;
          if (Date.now() > deadline) return false;
          await sleep(20);
        }
      };
      expect(await seen(200)).toBe(true);
      expect((await svc.request(`/api/v1/keys/${key.id}`, { method: 'DELETE', key: KEYS.admin })).status).toBe(200);
      expect(await seen(401)).toBe(true);
      expect(child.output()).not.toContain(key.key);
    } finally {
      await stopChild(child);
    }
  });

  it('(in this process) takes a key made on the first at once, and refuses it within a second of the revoke', async () => {
    const replica = await startTestService({ PROJECTOR: 'off', WEBHOOKS: 'off' }, svc.dataDir);
    try {
      const key = await made({ name: 'replicated' });
      const seenBy = async (service: TestService, status: number) => {
        const deadline = Date.now() + 1000;
        for (;;) {
          const res = await service.request('/api/v1/presets', { key: key.key });
          if (res.status === status) return true;
          if (Date.now() > deadline) return false;
          await sleep(20);
        }
      };
      expect(await seenBy(replica, 200)).toBe(true);
      const revoked = await svc.request(`/api/v1/keys/${key.id}`, { method: 'DELETE', key: KEYS.admin });
      expect(revoked.status).toBe(200);
      expect(await seenBy(replica, 401)).toBe(true);
      // The replica lists it as revoked too.
      const listed = (await (await replica.request('/api/v1/keys', { key: KEYS.admin })).json()).data;
      expect(listed.find((k: { id: string }) => k.id === key.id)).toMatchObject({ revoked: true });
    } finally {
      await replica.stop();
    }
  });
  it('ends the event stream it holds on a replica within a second of a revoke made on another process', async () => {
    const replica = await startTestService({ PROJECTOR: 'off', WEBHOOKS: 'off' }, svc.dataDir);
    try {
      const key = await makeKey();
      // The replica learns of the key from the log.
      let opened: SseClient | undefined;
      const deadline = Date.now() + 5000;
      while (!opened && Date.now() < deadline) {
        const probe = await replica.request('/api/v1/me', { key: key.key });
        if (probe.status === 200)
          opened = await openSse(`${replica.url}/api/v1/events?after=${await head()}`, { authorization: `Bearer ${key.key}` });
      }
      expect(opened).toBeDefined();
      await revoke(key.id);
      expectEndedByKeyGone(await drainSse(opened!, WITHIN_MS), 'key_revoked');
    } finally {
      await replica.stop();
    }
  });
});
