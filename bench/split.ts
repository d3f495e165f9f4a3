/**
 * `npm run bench:split [-- --rounds 5 --duration 5 --warmup 2 --connections 32 --client-pairs 400]`,
 * and in `npm run bench` after using a preset (`--split-rounds N`, 0: none):
 * what resolving through a split label (a rollout) costs against a plain label, over HTTP and in
 * the in-process client. One preset with three versions (3 designated); `plain` names version 1,
 * `split` is split 95/5 between versions 1 and 2, so both resolve to versions that are not the
 * designated one, read the same way (through the read model's version lookup). Every request carries its own `user`, the split key, so each split
 * resolution hashes a new key. Over HTTP, plain and split ALTERNATE, `rounds` times, against one
 * service (a child process); the report gives the medians and each round's ratio. In process, a
 * client in a child process of its own alternates blocks of CLIENT_BLOCK resolves `client-pairs`
 * times (bench/splitClient.ts).
 */
import type { Options } from 'autocannon';
import { join } from 'node:path';
import { BODIES } from './bodies';
import { API_KEY, AUTH, call, flags, load, median, percentile, runNode, withCpu } from './lib';
import { RESOLVE_PATH } from './resolve';
import { startTarget, writePath } from './scenarios';

export interface SplitBenchOptions {
  rounds: number;
  duration: number;
  warmup: number;
  connections: number;
  /** Alternated pairs of blocks of CLIENT_BLOCK resolves, in the client's child process. */
  'client-pairs': number;
}
export interface SplitBenchResult {
  http: {
    plain: { rps: number; cpuUsPerRequest: number };
    split: { rps: number; cpuUsPerRequest: number };
    cpuRatio: number;
    errors: number;
  };
  client: {
    plain: { cpuUs: number };
    split: { cpuUs: number };
    /** Split's CPU per resolve over plain's, each summed over all its blocks. */
    cpuRatio: number;
    resolves: number;
    /** The quartiles of the pairs' ratios (p25, p50, p75): the spread. */
    pairQuartiles: number[];
  };
}
type Label = 'plain' | 'split';
const CLIENT_BLOCK = 2048;
const LABELS: Label[] = ['plain', 'split'];

/** The request both halves resolve: a chat body naming the label, its `user` the split key. */
export const splitBody = (label: Label, user: string) => ({
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
        setupRequest: (req) => ({ ...req, body: JSON.stringify(splitBody(label, `customer-${n++}`)) }),
      },
    ],
  };
  return load(options);
};

export const runSplitBench = async (opts: SplitBenchOptions, log: (line: string) => void = console.log): Promise<SplitBenchResult> => {
  const server = await startTarget('service');
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

    const http: Array<{ round: number; label: Label; rps: number; p99: number; cpuUsPerRequest: number; non2xx: number }> = [];
    for (const label of LABELS) if (opts.warmup) await httpRun(opts, server.url, label, opts.warmup);
    for (let round = 1; round <= opts.rounds; round++) {
      const order = round % 2 === 1 ? LABELS : [...LABELS].reverse();
      for (const label of order) {
        const r = await withCpu(server.pid, () => httpRun(opts, server.url, label, opts.duration));
        http.push({ round, label, rps: r.rps, p99: r.p99, cpuUsPerRequest: r.cpuUsPerRequest, non2xx: r.non2xx + r.errors });
        log(
          `round ${round} HTTP   ${label.padEnd(5)} ${Math.round(r.rps)} req/s p99 ${r.p99} ms CPU ${Math.round(r.cpuUsPerRequest)} µs/req non-2xx ${r.non2xx} errors ${r.errors}`,
        );
      }
    }
    // In process: a client in a child process of its own (bench/splitClient.ts says why).
    log(`client: ${opts['client-pairs']} pairs of ${CLIENT_BLOCK} resolves through each label, alternated…`);
    const child = await runNode([
      join(__dirname, 'splitClient.js'),
      server.url,
      API_KEY,
      String(opts['client-pairs']),
      String(CLIENT_BLOCK),
    ]);
    if (child.code !== 0) throw new Error(`splitClient exited ${child.code}: ${child.err}`);
    const inProcess = JSON.parse(child.out) as {
      resolves: number;
      plain: { cpuUs: number };
      split: { cpuUs: number };
      pairRatios: number[];
    };
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
    const quartiles = [0.25, 0.5, 0.75].map((q) => percentile(inProcess.pairRatios, q * 100));
    const clientRatio = inProcess.split.cpuUs / inProcess.plain.cpuUs;
    log(
      `client: plain ${inProcess.plain.cpuUs.toFixed(3)} µs CPU per resolve, split ${inProcess.split.cpuUs.toFixed(3)} µs; ` +
        `split/plain ${clientRatio.toFixed(3)} (${inProcess.resolves.toLocaleString('en-US')} resolves each; pairs' ratios p25/p50/p75 ${ratios(quartiles)})`,
    );
    return {
      http: {
        plain: { rps: med(http, 'plain', (r) => r.rps), cpuUsPerRequest: med(http, 'plain', (r) => r.cpuUsPerRequest) },
        split: { rps: med(http, 'split', (r) => r.rps), cpuUsPerRequest: med(http, 'split', (r) => r.cpuUsPerRequest) },
        cpuRatio: med(http, 'split', (r) => r.cpuUsPerRequest) / med(http, 'plain', (r) => r.cpuUsPerRequest),
        errors: http.reduce((a, r) => a + r.non2xx, 0),
      },
      client: {
        plain: { cpuUs: inProcess.plain.cpuUs },
        split: { cpuUs: inProcess.split.cpuUs },
        cpuRatio: clientRatio,
        resolves: inProcess.resolves,
        pairQuartiles: quartiles,
      },
    };
  } finally {
    await server.stop();
  }
};

if (require.main === module) void runSplitBench(flags({ rounds: 5, duration: 5, warmup: 2, connections: 32, 'client-pairs': 400 }));
