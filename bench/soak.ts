/**
 * `npm run soak [-- --duration 300 --rate 200 --connections 8 --interval 10 --warmup 10]` — not in CI.
 * One service process; first `warmup` s of the same mix at full speed (32 connections, not
 * sampled: V8's heap and SQLite's caches fill), then a steady, rate-limited mix (¼ create, ¼ version
 * of one of 100 slugs per connection, ½ read) for `duration` s, printing every `interval` s that
 * window's p99 and the process's RSS. At the end: error rate 0? p99 stable (last window ≤ 2× the
 * first)? RSS flat (last sample within 20% of the first)? Exit code 0 only when all three hold,
 * so `--duration 30` serves as a test.
 */
import type { Client, Options } from 'autocannon';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BODIES } from './bodies';
import { AUTH, flags, load, percentile, procMb, ROOT, type LoadResult } from './lib';
import { startTarget } from './scenarios';

const opts = flags({ duration: 300, rate: 200, connections: 8, interval: 10, warmup: 10 });
interface Sample {
  t: number;
  requests: number;
  p99: number;
  rssMb: number;
  failures: number;
}

/** The mix. Each connection versions and reads only its own slugs: no two writes race (no 409s). */
const mixed = (url: string, phase: string): Options => {
  let created = 0;
  let clients = 0;
  return {
    url,
    headers: AUTH,
    setupClient: (c: Client) => {
      const id = clients++;
      const own: string[] = [];
      let n = 0;
      c.setRequests([
        {
          method: 'POST',
          path: '/',
          body: BODIES[0],
          setupRequest: (req) => {
            const i = n++;
            const kind = own.length === 0 ? 1 : i % 4;
            // Fresh headers each time: autocannon writes Content-Length into the object it is given.
            if (kind >= 2)
              return {
                ...req,
                method: 'GET',
                path: `/api/v1/presets/${own[i % own.length]}`,
                headers: { authorization: AUTH.authorization },
                body: '',
              };
            const slug = kind === 0 ? `${phase}-new-${created++}` : `${phase}-${id}-${i % 400}`;
            if (kind === 1 && !own.includes(slug)) own.push(slug);
            return {
              ...req,
              method: 'POST',
              path: `/api/v1/presets/${slug}/chat/completions`,
              headers: { ...AUTH },
              body: BODIES[i % BODIES.length],
            };
          },
        },
      ]);
    },
  };
};

const main = async () => {
  const server = await startTarget('service');
  const samples: Sample[] = [];
  let window: number[] = [];
  let failures = 0;
  let accepted202 = 0;
  let started = Date.now();
  const sample = () => {
    const s = {
      t: Math.round((Date.now() - started) / 1000),
      requests: window.length,
      p99: percentile(window, 99),
      rssMb: procMb(server.pid, 'VmRSS'),
      failures,
    };
    samples.push(s);
    window = [];
    console.log(
      `t=${String(s.t).padStart(4)} s  requests ${String(s.requests).padStart(6)}  p99 ${s.p99.toFixed(1).padStart(7)} ms  rss ${s.rssMb.toFixed(1).padStart(6)} MB  errors ${s.failures}`,
    );
  };
  let timer: NodeJS.Timeout | undefined;
  let result: LoadResult;
  let warm: LoadResult | undefined;
  let peakRssMb: number;
  try {
    if (opts.warmup > 0) {
      warm = await load({ ...mixed(server.url, 'warm'), connections: 32, duration: opts.warmup });
      console.log(
        `warm-up: ${warm.requests} requests in ${opts.warmup} s (${warm.rps.toFixed(0)} req/s), rss ${procMb(server.pid, 'VmRSS').toFixed(1)} MB, errors ${warm.errors + warm.non2xx}`,
      );
    }
    started = Date.now();
    result = await load(
      { ...mixed(server.url, 'soak'), connections: opts.connections, duration: opts.duration, overallRate: opts.rate },
      (instance) => {
        instance.on('response', (_c, status, _bytes, ms) => {
          window.push(ms);
          if (status === 202) accepted202++;
          if (status < 200 || status >= 300) failures++;
        });
        instance.on('reqError', () => failures++);
        timer = setInterval(sample, opts.interval * 1000);
      },
    );
  } finally {
    clearInterval(timer);
    if (window.length > 0 && samples.length < Math.floor(opts.duration / opts.interval)) sample();
    peakRssMb = procMb(server.pid, 'VmHWM');
    await server.stop();
  }
  const [first, last] = [samples[0], samples[samples.length - 1]];
  if (!first || !last || samples.length < 2) throw new Error('need two samples: use --duration ≥ 2 × --interval');
  const checks = {
    errorRateZero: result.errors === 0 && result.non2xx === 0 && failures === 0 && (!warm || warm.errors + warm.non2xx === 0),
    p99Stable: last.p99 <= 2 * first.p99,
    rssFlat: Math.abs(last.rssMb - first.rssMb) <= 0.2 * first.rssMb,
  };
  console.log(
    [
      `${result.requests} requests at ${opts.rate} req/s target (${result.rps.toFixed(0)} req/s achieved), ${accepted202} answered 202, peak RSS ${peakRssMb.toFixed(1)} MB`,
      `${checks.errorRateZero ? 'PASS' : 'FAIL'}  error rate 0 (errors ${result.errors}, non-2xx ${result.non2xx}, warm-up ${warm ? warm.errors + warm.non2xx : 0})`,
      `${checks.p99Stable ? 'PASS' : 'FAIL'}  p99 stable: last ${last.p99.toFixed(1)} ms ≤ 2 × first ${first.p99.toFixed(1)} ms`,
      `${checks.rssFlat ? 'PASS' : 'FAIL'}  RSS flat: last ${last.rssMb.toFixed(1)} MB within 20% of first ${first.rssMb.toFixed(1)} MB (after ${opts.warmup} s warm-up)`,
    ].join('\n'),
  );
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(
    join(ROOT, 'bench/results', `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
    JSON.stringify({ options: opts, warm, samples, checks, result, peakRssMb }, null, 2),
  );
  process.exitCode = Object.values(checks).every(Boolean) ? 0 : 1;
};

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
