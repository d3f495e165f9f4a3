/**
 * `npm run bench:split [-- --rounds 5 --duration 5 --warmup 2 --connections 32 --client-seconds 3]`,
 * and in `npm run bench` after using a preset (`--split-rounds N`, 0: none):
 * what resolving through a split label (a rollout) costs against a plain label, over HTTP and in
 * the in-process client. One preset with three versions (3 designated); `plain` names version 1,
 * `split` is split 95/5 between versions 1 and 2, so both resolve to versions that are not the
 * designated one, read the same way (through the read model's version lookup). Every request carries its own `user`, the split key, so each split
 * resolution hashes a new key. Plain and split ALTERNATE, `rounds` times, against one service (a
 * child process) and one client; the report gives the medians and each round's ratio.
 */
import type { Options } from 'autocannon';
import { createPresetClient } from '../src/client';
import { BODIES } from './bodies';
import { API_KEY, AUTH, call, flags, load, median, withCpu } from './lib';
import { RESOLVE_PATH } from './resolve';
import { startTarget, writePath } from './scenarios';

export interface SplitBenchOptions {
  rounds: number;
  duration: number;
  warmup: number;
  connections: number;
  'client-seconds': number;
}
export interface SplitBenchResult {
  http: {
    plain: { rps: number; cpuUsPerRequest: number };
    split: { rps: number; cpuUsPerRequest: number };
    cpuRatio: number;
    errors: number;
  };
  client: {
    plain: { perSecond: number; cpuUs: number };
    split: { perSecond: number; cpuUs: number };
    cpuRatio: number;
    roundRatios: number[];
  };
}
type Label = 'plain' | 'split';
const LABELS: Label[] = ['plain', 'split'];

const bodyFor = (label: Label, user: string) => ({
  model: `@preset/hot@${label}`,
  messages: [{ role: 'user', content: 'My invoice for March shows two charges for the same workspace. Can you check?' }],
  user,
  stream: true,
});

const put = async (url: string, json: unknown) => {
  const res = await fetch(url, { method: 'PUT', headers: AUTH, body: JSON.stringify(json) });
  if (res.status !== 200) throw new Error(`PUT ${url} answered ${res.status}: ${await res.text()}`);
};

const httpRun = async (opts: SplitBenchOptions, url: string, label: Label, duration: number) => {
  let n = 0;
  const options: Options = {
    url,
    connections: opts.connections,
    duration,
    headers: AUTH,
    requests: [
      {
        method: 'POST',
        path: RESOLVE_PATH,
        setupRequest: (req) => ({ ...req, body: JSON.stringify(bodyFor(label, `customer-${n++}`)) }),
      },
    ],
  };
  return load(options);
};

export const runSplitBench = async (opts: SplitBenchOptions, log: (line: string) => void = console.log): Promise<SplitBenchResult> => {
  const server = await startTarget('service');
  const client = createPresetClient({ baseUrl: server.url, apiKey: API_KEY });
  try {
    await call(`${server.url}${writePath('hot')}`, 'POST', BODIES[0]);
    await call(`${server.url}${writePath('hot')}`, 'POST', BODIES[1]);
    await call(`${server.url}${writePath('hot')}`, 'POST', BODIES[2]);
    await put(`${server.url}/api/v1/presets/hot/labels/plain`, { version: 1 });
    await put(`${server.url}/api/v1/presets/hot/labels/split`, {
      split: [
        { version: 1, weight: 95 },
        { version: 2, weight: 5 },
      ],
    });
    await client.ready();

    const http: Array<{ round: number; label: Label; rps: number; p99: number; cpuUsPerRequest: number; non2xx: number }> = [];
    const inProcess: Array<{ round: number; label: Label; perSecond: number; cpuUs: number }> = [];
    const bodies = (label: Label) => Array.from({ length: 4096 }, (_, i) => bodyFor(label, `customer-${i}`));
    const clientBodies = { plain: bodies('plain'), split: bodies('split') };
    for (const label of LABELS) {
      if (opts.warmup) await httpRun(opts, server.url, label, opts.warmup);
      for (let i = 0; i < 20_000; i++) await client.resolve('chat_completions', clientBodies[label][i % 4096]);
    }
    for (let round = 1; round <= opts.rounds; round++) {
      const order = round % 2 === 1 ? LABELS : [...LABELS].reverse();
      for (const label of order) {
        const r = await withCpu(server.pid, () => httpRun(opts, server.url, label, opts.duration));
        http.push({ round, label, rps: r.rps, p99: r.p99, cpuUsPerRequest: r.cpuUsPerRequest, non2xx: r.non2xx + r.errors });
        log(
          `round ${round} HTTP   ${label.padEnd(5)} ${Math.round(r.rps)} req/s p99 ${r.p99} ms CPU ${Math.round(r.cpuUsPerRequest)} µs/req non-2xx ${r.non2xx} errors ${r.errors}`,
        );
      }
      for (const label of order) {
        const list = clientBodies[label];
        let resolves = 0;
        const cpu = process.cpuUsage();
        const started = performance.now();
        const until = started + opts['client-seconds'] * 1000;
        while (performance.now() < until) {
          for (let i = 0; i < 4096; i++) await client.resolve('chat_completions', list[i]);
          resolves += 4096;
        }
        const seconds = (performance.now() - started) / 1000;
        const used = process.cpuUsage(cpu);
        const row = { round, label, perSecond: resolves / seconds, cpuUs: (used.user + used.system) / resolves };
        inProcess.push(row);
        log(`round ${round} client ${label.padEnd(5)} ${Math.round(row.perSecond)} resolves/s ${row.cpuUs.toFixed(2)} µs CPU each`);
      }
    }
    const med = <R extends { label: Label }>(rows: R[], label: Label, f: (r: R) => number) =>
      median(rows.filter((r) => r.label === label).map(f));
    const roundRatios = <R extends { label: Label; round: number }>(rows: R[], f: (r: R) => number) =>
      [...new Set(rows.map((r) => r.round))].map(
        (round) =>
          f(rows.find((r) => r.round === round && r.label === 'split')!) / f(rows.find((r) => r.round === round && r.label === 'plain')!),
      );
    const ratios = (xs: number[]) => xs.map((x) => x.toFixed(3)).join(', ');
    log('');
    log(
      `HTTP: plain ${Math.round(med(http, 'plain', (r) => r.rps))} req/s, split ${Math.round(med(http, 'split', (r) => r.rps))} req/s; ` +
        `split/plain req/s ${(med(http, 'split', (r) => r.rps) / med(http, 'plain', (r) => r.rps)).toFixed(3)} (rounds ${ratios(roundRatios(http, (r) => r.rps))}); ` +
        `CPU µs/req plain ${med(http, 'plain', (r) => r.cpuUsPerRequest).toFixed(1)}, split ${med(http, 'split', (r) => r.cpuUsPerRequest).toFixed(1)}; ` +
        `non-2xx or errors ${http.reduce((a, r) => a + r.non2xx, 0)}`,
    );
    log(
      `client: plain ${Math.round(med(inProcess, 'plain', (r) => r.perSecond))} resolves/s (${med(inProcess, 'plain', (r) => r.cpuUs).toFixed(2)} µs CPU), ` +
        `split ${Math.round(med(inProcess, 'split', (r) => r.perSecond))} resolves/s (${med(inProcess, 'split', (r) => r.cpuUs).toFixed(2)} µs CPU); ` +
        `split/plain CPU per resolve ${(med(inProcess, 'split', (r) => r.cpuUs) / med(inProcess, 'plain', (r) => r.cpuUs)).toFixed(3)} (rounds ${ratios(roundRatios(inProcess, (r) => r.cpuUs))})`,
    );
    const cpu = (label: Label) => med(inProcess, label, (r) => r.cpuUs);
    return {
      http: {
        plain: { rps: med(http, 'plain', (r) => r.rps), cpuUsPerRequest: med(http, 'plain', (r) => r.cpuUsPerRequest) },
        split: { rps: med(http, 'split', (r) => r.rps), cpuUsPerRequest: med(http, 'split', (r) => r.cpuUsPerRequest) },
        cpuRatio: med(http, 'split', (r) => r.cpuUsPerRequest) / med(http, 'plain', (r) => r.cpuUsPerRequest),
        errors: http.reduce((a, r) => a + r.non2xx, 0),
      },
      client: {
        plain: { perSecond: med(inProcess, 'plain', (r) => r.perSecond), cpuUs: cpu('plain') },
        split: { perSecond: med(inProcess, 'split', (r) => r.perSecond), cpuUs: cpu('split') },
        cpuRatio: cpu('split') / cpu('plain'),
        roundRatios: roundRatios(inProcess, (r) => r.cpuUs),
      },
    };
  } finally {
    await client.close();
    await server.stop();
  }
};

if (require.main === module) void runSplitBench(flags({ rounds: 5, duration: 5, warmup: 2, connections: 32, 'client-seconds': 3 }));
