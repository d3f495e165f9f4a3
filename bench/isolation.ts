/**
 * One tenant cannot slow another (`npm run bench -- --isolation 1`, and test/reliability/isolation.test.ts
 * with smaller numbers): the service as a child process, workspace A seeded with `events` events
 * (through the store, before the service starts), then A's read latency (sequential GETs on one
 * keep-alive connection, alternating a preset and a page of A's events) and the service's CPU while
 * nobody writes, measured
 *  - with no subscriber at all (the baseline),
 *  - with `sse` idle event streams and `webhooks` idle webhooks in workspace B, which has no events,
 *  - with `scaleTo` subscribers in B (more event streams);
 * and last the lag from an event's commit (its recorded_at) to its arrival at `liveSse` event streams of workspace A.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync, rmSync } from 'node:fs';
import { Agent, createServer, request, type ClientRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { BODIES } from './bodies';
import { API_KEY, HOST, percentile, procCpuMs, sleep, startChild, tempDir, WORKSPACE_ID } from './lib';
import { generateEvents } from './rebuild';

export interface IsolationOptions {
  events: number;
  sse: number;
  webhooks: number;
  /** Subscribers in B in the last phase (event streams make up what the webhooks do not). */
  scaleTo: number;
  /** Reads per phase. */
  samples: number;
  /** How long the idle CPU is measured, per phase. */
  idleSeconds: number;
  /** Event streams of workspace A for the lag, and writes timed to them. */
  liveSse: number;
  liveWrites: number;
}

export interface IsolationPhase {
  label: string;
  sse: number;
  webhooks: number;
  p50: number;
  p95: number;
  max: number;
  /** CPU of the service while nobody writes, in % of one core. */
  idleCpuPercent: number;
}

export interface IsolationResult {
  events: number;
  seedSeconds: number;
  phases: IsolationPhase[];
  lag: { streams: number; writes: number; deliveries: number; missing: number; p50: number; p99: number; max: number };
  /** Event frames B's streams received (it has no events: must be 0). */
  framesInB: number;
}

const KEY_B = `pk_bench_b_${randomUUID().replace(/-/g, '')}`;
const WORKSPACE_B = randomUUID();

const writeKeys = (dir: string) => {
  const file = join(dir, 'isolation-keys.json');
  const scopes = ['presets:read', 'presets:write', 'webhooks:manage'];
  writeFileSync(
    file,
    JSON.stringify({
      keys: [
        { key: API_KEY, user_id: 'bench-a', workspace_id: WORKSPACE_ID, scopes },
        { key: KEY_B, user_id: 'bench-b', workspace_id: WORKSPACE_B, scopes },
      ],
    }),
  );
  return file;
};

/** An event stream held open; `frames` counts its event frames, `onFrame` sees each id as it arrives. */
const openStream = (url: string, key: string, after: string, onFrame?: (id: string, at: number, frame: string) => void) =>
  new Promise<{ req: ClientRequest; frames: () => number }>((resolve, reject) => {
    let frames = 0;
    let buffer = '';
    const req = request(
      `${url}/api/v1/events`,
      { agent: false, headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream', 'last-event-id': after } },
      (res: IncomingMessage) => {
        if (res.statusCode !== 200) return reject(new Error(`event stream answered ${res.statusCode}`));
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const at = performance.timeOrigin + performance.now(); // wall clock, as recorded_at is
          buffer += chunk;
          for (let i = buffer.indexOf('\n\n'); i >= 0; i = buffer.indexOf('\n\n')) {
            const frame = buffer.slice(0, i);
            buffer = buffer.slice(i + 2);
            if (!frame.includes('\ndata: ')) continue;
            frames++;
            const id = /^id: (\d+)$/m.exec(frame)?.[1];
            if (id) onFrame?.(id, at, frame);
          }
        });
        res.on('error', () => undefined);
        resolve({ req, frames: () => frames });
      },
    );
    req.on('error', (e) => reject(e));
    req.end();
  });

/** Milliseconds after the service's start when its threads' start-up GCs are over (see below). */
const START_HOUSEKEEPING_MS = 10_000;

export const runIsolationBench = async (
  o: IsolationOptions,
  log: (line: string) => void,
  script = 'dist/src/main.js',
): Promise<IsolationResult> => {
  const dataDir = tempDir('isolation');
  const receiver = createServer((_req, res) => res.writeHead(204).end());
  await new Promise<void>((r) => receiver.listen(0, HOST, r));
  const streams: Array<{ req: ClientRequest; frames: () => number }> = [];
  let service: Awaited<ReturnType<typeof startChild>> | undefined;
  try {
    log(`isolation: seeding ${o.events} events in workspace A…`);
    const seeded = await generateEvents(dataDir, o.events, 100);
    const startedAt = performance.now();
    service = await startChild(script, {
      DATA_DIR: dataDir,
      API_KEYS_FILE: writeKeys(dataDir),
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      SSE_MAX_PER_KEY: '100000',
      SSE_MAX_CONNECTIONS: '100000',
    });
    const svc = service;
    // One keep-alive connection per phase: between phases the server may close an idle one.
    let agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const started = performance.now();
        const req = request(`${svc.url}${path}`, { agent, headers: { authorization: `Bearer ${API_KEY}` } }, (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`${path}: ${res.statusCode}`)),
          );
        });
        req.on('error', reject);
        req.end();
      });
    const presets = Math.ceil(o.events / 100);
    const head = o.events;
    const read = (i: number) =>
      get(i % 2 ? `/api/v1/presets/p${(i * 7919) % presets}` : `/api/v1/events?after=${(i * 104729) % head}&limit=20`);
    let webhooks = 0;

    const phase = async (label: string): Promise<IsolationPhase> => {
      agent.destroy();
      agent = new Agent({ keepAlive: true, maxSockets: 1 });
      for (let i = 0; i < 50; i++) await read(i); // warm-up
      const times: number[] = [];
      for (let i = 0; i < o.samples; i++) times.push(await read(i + 50));
      const cpuBefore = procCpuMs(svc.pid);
      const started = performance.now();
      await sleep(o.idleSeconds * 1000);
      const idleCpuPercent = ((procCpuMs(svc.pid) - cpuBefore) / (performance.now() - started)) * 100;
      const result = {
        label,
        sse: streams.length,
        webhooks,
        p50: percentile(times, 50),
        p95: percentile(times, 95),
        max: Math.max(...times),
        idleCpuPercent,
      };
      log(
        `isolation: ${label}: A's reads p50 ${result.p50.toFixed(2)} ms p95 ${result.p95.toFixed(2)} ms max ${result.max.toFixed(1)} ms; idle CPU ${idleCpuPercent.toFixed(1)} % of a core`,
      );
      return result;
    };
    const openInB = async (total: number) => {
      while (streams.length < total) {
        const batch = Array.from({ length: Math.min(50, total - streams.length) }, () => openStream(svc.url, KEY_B, '0'));
        streams.push(...(await Promise.all(batch)));
      }
    };

    // V8's memory reducer runs one or two full GCs in every isolate about 8 s after it starts (its
    // first check), the service's threads included: a one-off cost of the start, not of anything
    // idle. The idle windows are measured after it, so that they measure what subscribers cost.
    await sleep(Math.max(0, START_HOUSEKEEPING_MS - (performance.now() - startedAt)));
    const phases = [await phase('no subscribers')];
    const receiverUrl = `http://${HOST}:${(receiver.address() as AddressInfo).port}`;
    for (; webhooks < o.webhooks; webhooks++) {
      const res = await fetch(`${svc.url}/api/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY_B}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${receiverUrl}/hook/${webhooks}` }),
      });
      if (res.status !== 201) throw new Error(`webhook: ${res.status} ${await res.text()}`);
    }
    await openInB(o.sse);
    phases.push(await phase(`${o.sse} event streams and ${o.webhooks} webhooks idle in B`));
    await openInB(o.scaleTo - o.webhooks);
    phases.push(await phase(`${o.scaleTo - o.webhooks} event streams and ${o.webhooks} webhooks idle in B`));

    // Lag: A's own streams from its newest event, each write's answer timed to its frame at every stream.
    const newest = (await (
      await fetch(`${svc.url}/api/v1/events?direction=backwards&limit=1`, { headers: { authorization: `Bearer ${API_KEY}` } })
    ).json()) as { data: Array<{ position: string }> };
    const arrivals = new Map<string, number[]>();
    const committed = new Map<string, number>(); // position → recorded_at (the store's clock, at its commit)
    const live = await Promise.all(
      Array.from({ length: o.liveSse }, () =>
        openStream(svc.url, API_KEY, newest.data[0]!.position, (id, at, frame) => {
          if (!committed.has(id))
            committed.set(id, Date.parse((JSON.parse(/^data: (.*)$/m.exec(frame)![1]!) as { recorded_at: string }).recorded_at));
          const list = arrivals.get(id) ?? [];
          list.push(at);
          arrivals.set(id, list);
        }),
      ),
    );
    await sleep(200);
    const lags: number[] = [];
    const written: string[] = [];
    for (let i = 0; i < o.liveWrites; i++) {
      const res = await fetch(`${svc.url}/api/v1/presets/live${i}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: BODIES[i % BODIES.length],
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`write: ${res.status}`);
      const page = (await (
        await fetch(`${svc.url}/api/v1/presets/live${i}/events?limit=1`, { headers: { authorization: `Bearer ${API_KEY}` } })
      ).json()) as {
        data: Array<{ position: string }>;
      };
      written.push(page.data[0]!.position);
      await sleep(50);
    }
    await sleep(500);
    let missing = 0;
    for (const position of written) {
      const at = arrivals.get(position) ?? [];
      missing += o.liveSse - at.length;
      // From the commit (recorded_at, whole ms, taken just before it) to the frame's arrival here.
      for (const t of at) lags.push(Math.max(0, t - committed.get(position)!));
    }
    for (const s of live) s.req.destroy();
    const lag = {
      streams: o.liveSse,
      writes: written.length,
      deliveries: lags.length,
      missing,
      p50: percentile(lags, 50),
      p99: percentile(lags, 99),
      max: Math.max(...lags),
    };
    log(
      `isolation: a write to ${o.liveSse} event streams of A: lag p50 ${lag.p50.toFixed(1)} ms p99 ${lag.p99.toFixed(1)} ms, ${missing} missing`,
    );
    const framesInB = streams.reduce((n, s) => n + s.frames(), 0);
    agent.destroy();
    return { events: o.events, seedSeconds: seeded.seconds, phases, lag, framesInB };
  } finally {
    for (const s of streams) s.req.destroy();
    await service?.stop();
    await new Promise((r) => receiver.close(r));
    rmSync(dataDir, { recursive: true, force: true });
  }
};
