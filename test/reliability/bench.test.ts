import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `npm run bench` in miniature (1 round of 1 s, 4 connections, 2,000 events to rebuild, growth
 * from 100 to 1,000 presets, 2 webhooks, one round of resolving, 1 s of the in-process client and
 * 10 writes propagated to it, one round of a templated preset against a plain one, one round of a
 * split label against a plain one): every part of the benchmark still runs end to end on a fresh
 * clone, against real child processes, with no failed request. What it measures is not judged here (a second of load on a shared machine says
 * nothing); that is `npm run bench`'s job. It needs the build the jest globalSetup makes.
 */
const ROOT = join(__dirname, '..', '..');

it('runs every scenario against all three targets, the rebuild, at scale, growth, webhook delivery, isolation and resolving, and writes its results', async () => {
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'dist/bench/run.js'),
      '--rounds',
      '1',
      '--duration',
      '1',
      '--warmup',
      '0',
      '--connections',
      '4',
      '--events',
      '2000',
      '--growth',
      '100,1000',
      '--webhooks',
      '2',
      '--webhook-events',
      '100',
      '--webhook-rate',
      '20',
      '--webhook-seconds',
      '1',
      '--webhook-rounds',
      '1',
      '--isolation-events',
      '2000',
      '--isolation-subscribers',
      '100',
      '--isolation-seconds',
      '1',
      '--resolve-rounds',
      '1',
      '--template-rounds',
      '1',
      '--client-seconds',
      '1',
      '--propagation-writes',
      '10',
      '--split-rounds',
      '1',
      '--split-client-pairs',
      '10',
      '--consumer-events',
      '2000',
      '--scrape-rounds',
      '1',
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (err += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const written = /results written to (\S+\.json)/.exec(err)?.[1];
  try {
    expect({ code, err: code === 0 ? '' : err }).toEqual({ code: 0, err: '' });
    for (const scenario of ['create', 'version', 'read']) {
      for (const target of ['service', 'crud', 'rawKoa']) {
        expect(out).toMatch(new RegExp(`^\\| ${scenario} +\\| ${target} +\\| +[1-9][\\d,]* \\|`, 'm'));
      }
    }
    expect(out).toMatch(
      /^round by round: create service\/crud \d+\.\d\d×; version service\/crud \d+\.\d\d×; read service\/rawKoa \d+\.\d\d×$/m,
    );
    expect(out).toMatch(/^\| rebuild +\| service \| +[1-9][\d,]* ev\/s \|/m);
    // Each goal beside what was measured, with each round's own value where there are rounds.
    for (const [scenario, baseline] of [
      ['create', 'CRUD'],
      ['version', 'CRUD'],
      ['read', 'raw Koa'],
    ])
      expect(out).toMatch(
        new RegExp(
          `^\\| (PASS|FAIL) \\| ${scenario} throughput ≥ [\\d.]+× ${baseline} \\| \\d+\\.\\d\\d× \\([\\d,]+ vs [\\d,]+ req/s\\) \\| \\d+\\.\\d\\d× \\|$`,
          'm',
        ),
      );
    expect(out).toMatch(
      /^\| (PASS|FAIL) \| rebuild of 2,000 events ≥ 100,000 events\/s \| [\d,]+ events\/s \([\d.]+ s, [\d.]+ µs CPU an event\) \| [\d,]+ \|$/m,
    );
    expect(out).toMatch(/^\| (PASS|FAIL) \| rebuild peak RSS ≤ 300 MB \| [\d,]+ MB \|/m);
    expect(out).toMatch(/^rebuild: 2,000 events \(200 presets × 10\)/m);
    // npm run verify over the rebuilt read model: every event folded, no difference (else the bench fails the round).
    expect(out).toMatch(/^verify: [1-9][\d,]* events\/s \([\d.]+ s, median\), peak RSS [\d,]+ MB, [\d,]+ µs CPU\/event/m);
    expect(out).toMatch(
      /^\| (PASS|FAIL) \| verify of 2,000 events ≥ 100,000 events\/s \| [\d,]+ events\/s \([\d.]+ s, [\d.]+ µs CPU an event\) \| [\d,]+ \|$/m,
    );
    expect(out).toMatch(/^\| (PASS|FAIL) \| verify peak RSS ≤ 300 MB \| [\d,]+ MB \|/m);
    expect(out).toMatch(/^\| (read|version) +\| +200 \|/m);
    for (const presets of ['100', '1,000']) {
      expect(out).toMatch(new RegExp(`^\\| read +\\| +${presets} \\|`, 'm'));
      expect(out).toMatch(new RegExp(`^\\| version +\\| +${presets} \\|`, 'm'));
    }
    expect(out).toMatch(
      /^\| (PASS|FAIL) \| no growth from 100 to 1,000 presets beyond the configured caches \| [+−][\d.]+ MB \(allowed [\d.]+ MB\) \|/m,
    );
    expect(out).toMatch(/^\| PASS \| 0 errors and 0 non-2xx \(every target, every round\) \| 0 errors, 0 non-2xx \|/m);
    // The start time of each size's service: from its spawn to its first 200 of /health/ready.
    expect(out).toMatch(
      /^growth: ready after \d+\.\d\d s at 100 presets, \d+\.\d\d s at 1,000 presets \(spawn to the first 200 of \/health\/ready\)$/m,
    );
    expect(out).toMatch(/^webhooks: replay of 100 events to each: [\d,]+ deliveries\/s \(200 in [\d.]+ s\)$/m);
    expect(out).toMatch(
      /^webhooks: 20 writes\/s and reads at full load, 1 × 1 s with delivery: lag from a write's answer to its delivery p50 -?[\d.]+ ms, p99 -?[\d.]+ ms, max -?[\d.]+ ms over 40 deliveries \([\d,]+\/s\), 0 missing$/m,
    );
    expect(out).toMatch(
      /^\| PASS \| webhooks: every write delivered to every webhook, no failed request \| 200 of 200 replayed, 0 missing, 0 errors \|/m,
    );
    expect(out).toMatch(/^webhooks: reads\/s with delivery [\d,]+; webhooks paused [\d,]+; ratios by round \d+\.\d\d$/m);
    for (const goal of [
      'replay ≥ 10,000 deliveries\\/s',
      'peak RSS through the replay ≤ 200 MB',
      'lag p99 ≤ 50 ms under read load',
      'reads with delivery ≥ 0.9× without',
    ])
      // `-?`: the lag is negative when a delivery arrives before the write's answer (docs/performance.md, Webhooks).
      expect(out).toMatch(new RegExp(`^\\| (PASS|FAIL) \\| webhooks: ${goal} \\| -?[\\d,.]+ ?(\\/s|MB|ms|×) \\|`, 'm'));
    for (const target of ['service', 'rawKoa']) expect(out).toMatch(new RegExp(`^\\| resolve +\\| ${target} +\\| +[1-9][\\d,]* \\|`, 'm'));
    for (const holds of ['0 streams, 0 webhooks', '50 streams, 30 webhooks', '70 streams, 30 webhooks'])
      expect(out).toMatch(new RegExp(`^\\| 1 \\| ${holds} +\\| +[\\d.]+ \\| +[\\d.]+ \\|`, 'm'));
    expect(out).toMatch(
      /^isolation run 1: a write to 100 event streams of A, commit → arrival .* over 5,000 deliveries, 0 missing; 0 frames reached B$/m,
    );
    expect(out).toMatch(/^resolve: service\/rawKoa \d+\.\d\d× req\/s \(rounds \d+\.\d\d×\)$/m);
    expect(out).toMatch(
      /^\| (PASS|FAIL) \| split label in process ≤ 1\.05× a plain label's CPU per resolve \| \d+\.\d{3}× \([\d.]+ vs [\d.]+ µs\) \| pairs' ratios p25\/p50\/p75 \d+\.\d{3}, \d+\.\d{3}, \d+\.\d{3} \|$/m,
    );
    expect(out).toMatch(/^\| PASS \| split: 0 errors and 0 non-2xx \|/m);
    expect(out).toMatch(/^resolve client: [1-9][\d,]* resolves\/s on one core/m);
    expect(out).toMatch(
      /^resolve propagation: from a write's answer to the client resolving its version p50 [\d.]+ ms, p99 [\d.]+ ms, max [\d.]+ ms over 10 writes, 0 missing$/m,
    );
    expect(out).toMatch(/^\| PASS \| resolve: 0 errors and 0 non-2xx \|/m);
    // The templated preset resolves to the plain one's request (the bench checks it before loading); its speed is reported, not judged here.
    for (const kind of ['plain', 'templated']) expect(out).toMatch(new RegExp(`^\\| resolve +\\| ${kind} +\\| +[1-9][\\d,]* \\|`, 'm'));
    expect(out).toMatch(/^templated resolve: templated\/plain \d+\.\d\d× req\/s \(rounds \d+\.\d\d×\)$/m);
    expect(out).toMatch(/^\| (PASS|FAIL) \| templated resolve in process ≥ 100,000 resolves\/s on one core \| [\d,]+ resolves\/s/m);
    expect(out).toMatch(/^\| PASS \| templated resolve: 0 errors and 0 non-2xx \|/m);
    // A consumer group drained every event it was given; its speed and the scrape's cost are reported, not judged here.
    expect(out).toMatch(/^consumer group: 2,000 events drained over HTTP with max 1000/m);
    expect(out).toMatch(
      /^\| (PASS|FAIL) \| consumer group drains ≥ 50,000 events\/s \(max 1000\) \| [\d,]+ events\/s \(2,000 in [\d.]+ s\) \|/m,
    );
    expect(out).toMatch(
      /^\| (PASS|FAIL) \| scraping \/metrics every second costs < 2 % of read throughput \(the scrape's CPU at 1\/s ÷ the reads' CPU\) \| [\d.]+ % \([\d.]+ ms a scrape ÷ [\d,]+ ms\/s\); alternated: [\d.]+× req\/s, [\d.]+× CPU per read \| req\/s [\d.]+× \|$/m,
    );
    expect(written && existsSync(written)).toBeTruthy();
    const results = JSON.parse(readFileSync(written!, 'utf8'));
    expect(results.medians).toHaveLength(9);
    expect(results.goals.length).toBeGreaterThan(15);
    expect(results.growth.runs.map((r: { presets: number }) => r.presets)).toEqual([100, 1000]);
    expect(results.webhooks.lag).toMatchObject({ writes: 20, deliveries: 40, missing: 0 });
    expect(results.resolve.http.rows).toHaveLength(2);
    expect(results.template.http.rows).toHaveLength(2);
    expect(results.resolve.propagation).toMatchObject({ writes: 10, missing: 0 });
  } finally {
    if (written) rmSync(written, { force: true });
  }
}, 300_000);
