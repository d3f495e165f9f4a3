/**
 * Webhook delivery (`npm run bench` runs it after the HTTP scenarios): the service as a child
 * process with N webhooks pointing at a receiver in this process (node:http on loopback,
 * answering 204), in two phases.
 * - throughput: `events` presets are written first; then each webhook is replayed from the start,
 *   and the receiver counts deliveries per second until every webhook has every event.
 * - lag: writes at a steady `rate` per second for `seconds`; for every write and every webhook,
 *   the time from the write's answer at the client to its delivery at the receiver.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { BODIES } from './bodies';
import { AUTH, HOST, percentile, procMb, sleep, startChild, tempDir, WORKSPACE_ID, writeKeysFile } from './lib';

export interface WebhookBenchOptions {
  webhooks: number;
  /** Events written before the throughput phase, each delivered to every webhook. */
  events: number;
  /** Writes per second in the lag phase. */
  rate: number;
  seconds: number;
}

export interface WebhookBenchResult {
  webhooks: number;
  replayed: { deliveries: number; seconds: number; perSecond: number };
  lag: { writes: number; deliveries: number; missing: number; p50: number; p99: number; max: number; perSecond: number };
  peakRssMb: number;
  errors: number;
}

const streamOf = (slug: string) => `preset-${WORKSPACE_ID}-${slug}`;

export const runWebhookBench = async (o: WebhookBenchOptions, log: (line: string) => void): Promise<WebhookBenchResult> => {
  // Arrivals by `<stream>@<revision>`, per webhook (the path's last segment).
  const arrivals = new Map<string, number[]>();
  let delivered = 0;
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { stream: string; revision: number };
      const key = `${event.stream}@${event.revision}`;
      const list = arrivals.get(key) ?? [];
      list.push(at);
      arrivals.set(key, list);
      delivered++;
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, HOST, r));
  const receiverUrl = `http://${HOST}:${(receiver.address() as AddressInfo).port}`;

  const dataDir = tempDir('webhooks');
  const service = await startChild('dist/src/main.js', {
    DATA_DIR: dataDir,
    API_KEYS_FILE: writeKeysFile(dataDir),
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  });
  let errors = 0;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.url}${path}`, {
      method,
      headers: AUTH,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    if (res.status >= 300) {
      errors++;
      throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    }
    return res;
  };
  const create = async (slug: string, variant: number) => {
    const res = await api('POST', `/api/v1/presets/${slug}/chat/completions`, BODIES[variant % BODIES.length]);
    const answeredAt = performance.now();
    await res.arrayBuffer();
    return { key: `${streamOf(slug)}@${Number(JSON.parse(res.headers.get('etag')!))}`, answeredAt };
  };
  const waitFor = async (count: number, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (delivered < count && Date.now() < deadline) await sleep(5);
  };

  try {
    // Throughput: the events first, then every webhook replays them all at once.
    log(`webhooks: writing ${o.events} presets…`);
    for (let i = 0; i < o.events; i += 16) {
      await Promise.all(Array.from({ length: Math.min(16, o.events - i) }, (_, j) => create(`t${i + j}`, i + j)));
    }
    const rss = () => `peak RSS ${Math.round(procMb(service.pid, 'VmHWM'))} MB, now ${Math.round(procMb(service.pid, 'VmRSS'))} MB`;
    log(`webhooks: ${rss()} after the writes`);
    const hooks: string[] = [];
    for (let i = 0; i < o.webhooks; i++) {
      const res = await api('POST', '/api/v1/webhooks', { url: `${receiverUrl}/hook/${i}` });
      hooks.push(((await res.json()) as { data: { id: string } }).data.id);
    }
    const started = performance.now();
    for (const id of hooks) await api('POST', `/api/v1/webhooks/${id}/replay`, { after: '0' });
    const expected = o.events * o.webhooks;
    await waitFor(expected, 300_000);
    const replaySeconds = (performance.now() - started) / 1000;
    const replayed = { deliveries: delivered, seconds: replaySeconds, perSecond: delivered / replaySeconds };
    log(`webhooks: ${replayed.deliveries} deliveries in ${replaySeconds.toFixed(2)} s; ${rss()}`);

    // Lag: steady writes, each answered write timed to its arrival at every webhook.
    arrivals.clear();
    const before = delivered;
    const writes: Array<Promise<{ key: string; answeredAt: number }>> = [];
    const total = Math.max(1, Math.round(o.rate * o.seconds));
    const lagStarted = performance.now();
    for (let i = 0; i < total; i++) {
      const due = lagStarted + (i * 1000) / o.rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      writes.push(create(`l${i}`, i));
    }
    const answered = await Promise.all(writes);
    await waitFor(before + total * o.webhooks, 60_000);
    const lagSeconds = (performance.now() - lagStarted) / 1000;
    const lags: number[] = [];
    let missing = 0;
    for (const { key, answeredAt } of answered) {
      const at = arrivals.get(key) ?? [];
      missing += Math.max(0, o.webhooks - at.length);
      for (const t of at) lags.push(t - answeredAt);
    }
    const peakRssMb = procMb(service.pid, 'VmHWM');
    return {
      webhooks: o.webhooks,
      replayed,
      lag: {
        writes: total,
        deliveries: lags.length,
        missing,
        perSecond: lags.length / lagSeconds,
        p50: percentile(lags, 50),
        p99: percentile(lags, 99),
        max: Math.max(...lags),
      },
      peakRssMb,
      errors,
    };
  } finally {
    await service.stop();
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
    rmSync(dataDir, { recursive: true, force: true });
  }
};
