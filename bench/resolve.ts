/**
 * Using a preset (`npm run bench` runs it after the HTTP scenarios), three measurements:
 * - HTTP: POST /api/v1/resolve/chat/completions naming one hot preset, against raw Koa answering
 *   the same POST, alternately, `rounds` times, each against a fresh child process;
 * - the in-process client (`presets/client`): resolves per second of one caller awaiting each, on
 *   the bench's own thread (one core), from its copy of a service running as a child process;
 * - propagation: from a write's answer (a new version) to the client resolving that version, for
 *   `writes` writes one after another, over the live feed of the embedded default.
 */
import type { Options } from 'autocannon';
import { createPresetClient } from '../src/client';
import { BODIES } from './bodies';
import { API_KEY, AUTH, call, load, median, percentile, sleep, withCpu } from './lib';
import { startTarget, writePath } from './scenarios';

export interface ResolveBenchOptions {
  rounds: number;
  duration: number;
  warmup: number;
  connections: number;
  /** Seconds the in-process client resolves for. */
  clientSeconds: number;
  /** Writes whose propagation to the client is timed. */
  writes: number;
}

type HttpTarget = 'service' | 'rawKoa';
export interface ResolveHttpRow {
  round: number;
  target: HttpTarget;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  cpuUsPerRequest: number;
}
export interface ResolveBenchResult {
  http: {
    rows: ResolveHttpRow[];
    service: { rps: number; p50: number; p99: number };
    rawKoa: { rps: number; p50: number; p99: number };
    ratio: number;
    roundRatios: number[];
  };
  client: { resolves: number; seconds: number; perSecond: number; cpuUsPerResolve: number };
  propagation: { writes: number; p50: number; p99: number; max: number; missing: number };
}

export const RESOLVE_PATH = '/api/v1/resolve/chat/completions';
/** A chat request naming the hot preset: what a gateway sends on. */
export const RESOLVE_BODY = JSON.stringify({
  model: '@preset/hot',
  messages: [{ role: 'user', content: 'My invoice for March shows two charges for the same workspace. Can you check?' }],
  user: 'customer-1234',
  stream: true,
});

const httpRound = async (target: HttpTarget, round: number, o: ResolveBenchOptions): Promise<ResolveHttpRow> => {
  const server = await startTarget(target);
  try {
    if (target === 'service') await call(`${server.url}${writePath('hot')}`, 'POST', BODIES[0]);
    const options: Options = {
      url: server.url,
      connections: o.connections,
      headers: AUTH,
      requests: [{ method: 'POST', path: RESOLVE_PATH, body: RESOLVE_BODY }],
    };
    if (o.warmup) await load({ ...options, duration: o.warmup });
    const r = await withCpu(server.pid, () => load({ ...options, duration: o.duration }));
    return { round, target, rps: r.rps, p50: r.p50, p99: r.p99, errors: r.errors, non2xx: r.non2xx, cpuUsPerRequest: r.cpuUsPerRequest };
  } finally {
    await server.stop();
  }
};

export const runResolveBench = async (o: ResolveBenchOptions, log: (line: string) => void): Promise<ResolveBenchResult> => {
  const rows: ResolveHttpRow[] = [];
  for (let round = 1; round <= o.rounds; round++) {
    const order: HttpTarget[] = round % 2 === 1 ? ['service', 'rawKoa'] : ['rawKoa', 'service'];
    for (const target of order) {
      const row = await httpRound(target, round, o);
      rows.push(row);
      log(
        `round ${round} resolve ${target.padEnd(7)} ${Math.round(row.rps)} req/s p50 ${row.p50} ms p99 ${row.p99} ms errors ${row.errors} non-2xx ${row.non2xx} CPU ${Math.round(row.cpuUsPerRequest)} µs/req`,
      );
    }
  }
  const med = (t: HttpTarget) => {
    const of = rows.filter((r) => r.target === t);
    return { rps: median(of.map((r) => r.rps)), p50: median(of.map((r) => r.p50)), p99: median(of.map((r) => r.p99)) };
  };
  const rps = (round: number, t: HttpTarget) => rows.find((r) => r.round === round && r.target === t)!.rps;
  const roundRatios = [...new Set(rows.map((r) => r.round))].map((round) => rps(round, 'service') / rps(round, 'rawKoa'));
  const http = { rows, service: med('service'), rawKoa: med('rawKoa'), ratio: med('service').rps / med('rawKoa').rps, roundRatios };

  const server = await startTarget('service');
  const client = createPresetClient({ baseUrl: server.url, apiKey: API_KEY });
  try {
    await call(`${server.url}${writePath('hot')}`, 'POST', BODIES[0]);
    await call(`${server.url}${writePath('prop')}`, 'POST', BODIES[1]);
    await client.ready();
    const body = JSON.parse(RESOLVE_BODY) as Record<string, unknown>;
    // Warm-up (JIT, the copy's translations), then one caller resolving as fast as it can.
    for (const end = performance.now() + 500; performance.now() < end;) await client.resolve('chat_completions', body);
    let resolves = 0;
    const cpu = process.cpuUsage();
    const started = performance.now();
    const until = started + o.clientSeconds * 1000;
    while (performance.now() < until) {
      for (let i = 0; i < 1000; i++) await client.resolve('chat_completions', body);
      resolves += 1000;
    }
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const clientResult = { resolves, seconds, perSecond: resolves / seconds, cpuUsPerResolve: (used.user + used.system) / resolves };
    log(
      `resolve client ${Math.round(clientResult.perSecond)} resolves/s (${resolves} in ${seconds.toFixed(2)} s, ${clientResult.cpuUsPerResolve.toFixed(1)} µs CPU each)`,
    );

    // Propagation: each write's answer to the client resolving the version it made.
    const lags: number[] = [];
    let missing = 0;
    const prop = { model: '@preset/prop', messages: [] };
    for (let i = 0; i < o.writes; i++) {
      const res = await fetch(`${server.url}${writePath('prop')}`, { method: 'POST', headers: AUTH, body: BODIES[i % BODIES.length] });
      const answeredAt = performance.now();
      const version = ((await res.json()) as { data: { designated_version: { version: number } } }).data.designated_version.version;
      let seen = false;
      while (performance.now() - answeredAt < 10_000) {
        if ((await client.resolve('chat_completions', prop)).preset.version >= version) {
          seen = true;
          break;
        }
        await new Promise((r) => setImmediate(r));
      }
      if (seen) lags.push(performance.now() - answeredAt);
      else missing++;
      await sleep(20);
    }
    const propagation = { writes: o.writes, p50: percentile(lags, 50), p99: percentile(lags, 99), max: Math.max(...lags), missing };
    log(
      `resolve propagation p50 ${propagation.p50.toFixed(1)} ms p99 ${propagation.p99.toFixed(1)} ms max ${propagation.max.toFixed(1)} ms over ${lags.length} writes, ${missing} missing`,
    );
    return { http, client: clientResult, propagation };
  } finally {
    await client.close();
    await server.stop();
  }
};
