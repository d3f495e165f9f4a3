import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, freePort, spawnService, waitReady, writeChildKeys, type Child } from '../support/process';

/**
 * The built service killed with SIGKILL between a consumer's fetch and its ack, and after an
 * ack: the lease and the acknowledged position are on disk, so after the restart the consumer
 * can still acknowledge its batch, an unacknowledged batch comes again once its lease expires and not before,
 * and an acknowledged one never does. In the end the consumer has handled every event of the
 * feed, in order, and none twice after its acknowledgement.
 */
jest.setTimeout(120_000);

let dataDir: string;
let child: Child | undefined;
afterAll(async () => {
  if (child && child.proc.exitCode === null) child.proc.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

it('keeps leases and positions across kill -9', async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'presets-group-crash-'));
  const keys = writeChildKeys(dataDir);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { PORT: String(port), DATA_DIR: dataDir, API_KEYS_FILE: keys.file, WEBHOOKS: 'off' };
  const start = async () => {
    child = spawnService(env);
    await waitReady(base, child);
  };
  const kill9 = async () => {
    child!.proc.kill('SIGKILL');
    await child!.exited;
  };
  const api = (method: string, path: string, json?: unknown) => call(base, method, path, { key: keys.plain, json });

  await start();
  for (let i = 0; i < 9; i++) {
    const a = await api('POST', `/api/v1/presets/crash-group-${i % 3}/chat/completions`, { model: 'm/x', seed: i, messages: [] });
    expect(a.status).toBe(200);
  }
  const feed = (await api('GET', '/api/v1/events?limit=1000')).json.data.map((e: { id: string }) => e.id) as string[];
  expect(feed).toHaveLength(9);
  expect((await api('PUT', '/api/v1/consumer-groups/crashy', { lease_ms: 1500 })).status).toBe(201);
  const handled: string[] = [];

  // 1. Fetched, killed before the ack: after the restart the same consumer acknowledges its lease.
  const first = (await api('POST', '/api/v1/consumer-groups/crashy/fetch', { max: 3 })).json;
  expect(first.data).toHaveLength(3);
  handled.push(...first.data.map((e: { id: string }) => e.id));
  await kill9();
  await start();
  expect((await api('POST', '/api/v1/consumer-groups/crashy/ack', { lease_id: first.lease.id })).status).toBe(200);

  // 2. Acknowledged, killed: the position held.
  const second = (await api('POST', '/api/v1/consumer-groups/crashy/fetch', { max: 3 })).json;
  handled.push(...second.data.map((e: { id: string }) => e.id));
  expect((await api('POST', '/api/v1/consumer-groups/crashy/ack', { lease_id: second.lease.id })).status).toBe(200);
  await kill9();
  await start();
  expect((await api('GET', '/api/v1/consumer-groups/crashy')).json.data.position).toBe(second.lease.last_position);

  // 3. Fetched, killed, and the consumer gone too: the lease is on disk, so after the restart the batch
  // is handed out again only once its lease has expired, not before (a lease the crash lost would be
  // handed out at once). Ten seconds of lease: a restart on a busy machine still fits in it.
  expect((await api('PUT', '/api/v1/consumer-groups/crashy', { lease_ms: 10_000 })).status).toBe(200);
  const lost = (await api('POST', '/api/v1/consumer-groups/crashy/fetch', { max: 3 })).json;
  const expiresAt = Date.parse(lost.lease.expires_at);
  await kill9();
  await start();
  let again = await api('POST', '/api/v1/consumer-groups/crashy/fetch', { max: 3 });
  const deadline = expiresAt + 20_000;
  while (again.status === 409 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    again = await api('POST', '/api/v1/consumer-groups/crashy/fetch', { max: 3 });
  }
  // The service's clock is this machine's: the batch came again at or after the lease's end.
  expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
  expect(again.status).toBe(200);
  expect(again.json.data.map((e: { id: string }) => e.id)).toEqual(lost.data.map((e: { id: string }) => e.id));
  handled.push(...again.json.data.map((e: { id: string }) => e.id));
  expect((await api('POST', '/api/v1/consumer-groups/crashy/ack', { lease_id: again.json.lease.id })).status).toBe(200);

  expect(handled).toEqual(feed);
  const empty = await api('POST', '/api/v1/consumer-groups/crashy/fetch', {});
  expect(empty.json).toEqual({ data: [], lease: null });
  child!.proc.kill('SIGTERM');
  await child!.exited;
});
