import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { call, freePort, spawnService, waitReady, writeChildKeys, type Child } from '../support/process';
import { scrape } from '../support/prometheus';
import { startReceiver, type Receiver } from '../support/receiver';

/**
 * The built service killed with SIGKILL in the middle of a delivery, twice, and restarted on the
 * same data: the receiver, up throughout, holds the request in flight at each kill without
 * answering it, so that event was received but never acknowledged. It must come again after the
 * restart: in the end every event is acknowledged exactly once, in feed order. No output line of
 * any of the three processes holds the secret.
 */
jest.setTimeout(120_000);

let dataDir: string;
let child: Child | undefined;
let receiver: Receiver | undefined;
afterAll(async () => {
  if (child && child.proc.exitCode === null) child.proc.kill('SIGKILL');
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('loses no event across two SIGKILLs in the middle of deliveries', async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'presets-webhook-crash-'));
  const keys = writeChildKeys(dataDir);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    PORT: String(port),
    DATA_DIR: dataDir,
    API_KEYS_FILE: keys.file,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_RETRY_MAX_MS: '200',
  };
  // The 8th and the 20th requests are left unanswered: the process is killed while each is in flight.
  const HELD = [8, 20];
  receiver = await startReceiver((n) => (HELD.includes(n) ? 'hang' : { status: 204, afterMs: 5 }));
  const r = receiver;

  const outputs: string[] = [];
  const start = async () => {
    child = spawnService(env);
    await waitReady(base, child);
    return child;
  };
  await start();
  const created = await call(base, 'POST', '/api/v1/webhooks', { key: keys.plain, json: { url: r.url } });
  expect(created.status).toBe(201);
  const { secret } = created.json.data;

  const slugs = ['crash-a', 'crash-b', 'crash-c'];
  const writeSome = async (from: number, count: number) => {
    for (let i = from; i < from + count; i++) {
      const a = await call(base, 'POST', `/api/v1/presets/${slugs[i % 3]}/chat/completions`, {
        key: keys.plain,
        json: { model: 'm/x', seed: i, messages: [] },
      });
      expect(a.status).toBe(200);
    }
  };
  const killDuring = async (request: number) => {
    await r.until(() => r.received.length >= request, 30_000);
    child!.proc.kill('SIGKILL');
    await child!.exited;
    outputs.push(child!.output());
  };

  await writeSome(0, 30);
  await killDuring(HELD[0]!);
  await start();
  await writeSome(30, 10);
  await killDuring(HELD[1]!);
  await start();
  await writeSome(40, 5);

  const events = (await call(base, 'GET', '/api/v1/events?limit=1000', { key: keys.plain })).json.data as Array<{ id: string }>;
  expect(events).toHaveLength(45);
  const ids = events.map((e) => e.id);
  await r.until(() => ids.every((id) => r.acknowledged().includes(id)), 60_000);
  expect(r.acknowledged()).toEqual(ids);
  // The two held requests' events came twice: once held, once acknowledged after the restart.
  const held = HELD.map((n) => r.ids()[n - 1]!);
  for (const id of held) expect(r.ids().filter((x) => x === id)).toHaveLength(2);
  for (const got of r.received) expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toBeDefined();
  // The built service delivers in a thread of its own; its attempts still reach the API thread's /metrics:
  // the last process delivered at least the 5 events written to it and the held one again.
  const deadline = Date.now() + 10_000;
  let metrics = await scrape(`${base}/metrics`);
  while (metrics.value('presets_webhook_attempts_total', { outcome: 'delivered' }) < 6 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    metrics = await scrape(`${base}/metrics`);
  }
  expect(metrics.value('presets_webhook_attempts_total', { outcome: 'delivered' })).toBeGreaterThanOrEqual(6);
  expect(metrics.count('presets_webhook_delivery_lag_seconds')).toBeGreaterThanOrEqual(6);

  child!.proc.kill('SIGTERM');
  await child!.exited;
  outputs.push(child!.output());
  const all = outputs.join('');
  expect(all).toMatch(/webhook delivery started/);
  expect(all).toMatch(/webhook delivery runs in a thread of its own/);
  expect(all).not.toContain(secret);
  expect(all).not.toContain(secret.slice('whsec_'.length));
});
