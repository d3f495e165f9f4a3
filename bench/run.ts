/**
 * `npm run bench [-- --duration 10 --warmup 3 --rounds 3 --connections 32 --events 1000000 --growth 10000,1000000 --webhooks 4 --webhook-events 5000 --webhook-rate 100 --webhook-seconds 10 --webhook-rounds 3 --profile create|version|read --compare DIR]`
 * The service and its two baselines, ALTERNATELY, `rounds` times, each scenario against a fresh
 * child process; then medians, ratios and targets as one table, also written to bench/results/.
 * `--compare DIR`: another checkout, built (`npm run build` there), runs as a fourth target and a
 * second rebuild in the same alternation (and a second scrape cost, bench/consumerGroups.ts), and the report ends
 * with this service against it.
 * `--webhooks N` (0: none): webhook delivery, once, after the rounds (bench/webhooks.ts).
 * `--consumer-events N` (0: none): one consumer group drains N events with `max: 1000`; `--scrape-rounds N` (0: none): read
 *   throughput with and without a /metrics scrape every second, alternated N times (bench/consumerGroups.ts).
 * `--resolve-rounds N` (0: none): using a preset (bench/resolve.ts): HTTP resolve against raw Koa, N rounds; then the
 * in-process client for `--client-seconds`, and propagation of `--propagation-writes` writes to it.
 * `--template-rounds N` (0: none): a templated preset against the same preset without a template (bench/templates.ts),
 *   over HTTP in N alternated rounds, and in the client in alternated blocks for `--client-seconds` each.
 * `--split-rounds N` (0: none): a split label against a plain one (bench/split.ts), over HTTP, and in the client
 *   (`--split-client-pairs` alternated pairs of 2,048 resolves each, in a child process).
 * `--isolation N` (0: none): one tenant cannot slow another (bench/isolation.ts), N runs: workspace A
 * seeded with `--isolation-events`, A's reads and the idle CPU with no subscribers, with 50 event
 * streams and 30 webhooks idle in workspace B, and with `--isolation-subscribers` in B; then the lag
 * of a write to 100 event streams of A.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { flags, machine, median, ROOT, tempDir } from './lib';
import { formatSummary, summarize, type ProfileSummary } from './profile';
import { generateEvents, runRebuild, runVerify, verifyLines, type RebuildResult } from './rebuild';
import { growthSizes, runGrowth, type GrowthResult } from './growth';
import { runAtScale, type ScaleRow } from './scale';
import { runWebhookBench, type WebhookBenchResult } from './webhooks';
import { runConsumerBench, type ConsumerBenchResult } from './consumerGroups';
import { runResolveBench, type ResolveBenchResult } from './resolve';
import { runSplitBench, type SplitBenchResult } from './split';
import { runTemplateBench, type TemplateBenchResult } from './templates';
import { runIsolationBench, type IsolationResult } from './isolation';
import { f, formatGoals, goalsOf } from './goals';
import { compareWith, runScenario, SCENARIOS, TARGETS, type Row, type Scenario, type Target } from './scenarios';

const opts = flags({
  duration: 10,
  warmup: 3,
  rounds: 3,
  connections: 32,
  events: 1_000_000,
  growth: '10000,1000000',
  profile: '',
  compare: '',
  webhooks: 4,
  'webhook-events': 5000,
  'webhook-rate': 100,
  'webhook-seconds': 10,
  'webhook-rounds': 3,
  'resolve-rounds': 3,
  'template-rounds': 3,
  'client-seconds': 5,
  'propagation-writes': 200,
  'consumer-events': 1_000_000,
  'scrape-rounds': 6,
  'split-rounds': 5,
  'split-client-pairs': 400,
  isolation: 1,
  'isolation-events': 30_000,
  'isolation-subscribers': 1000,
  'isolation-seconds': 5,
});
if (opts.compare) compareWith(opts.compare);
const benchTargets: Target[] = opts.compare ? [...TARGETS, 'compared'] : [...TARGETS];
if (opts.profile && !(SCENARIOS as readonly string[]).includes(opts.profile))
  throw new Error(`--profile takes one of ${SCENARIOS.join(', ')}`);
const log = (line: string) => process.stderr.write(`bench: ${line}\n`);
const main = async () => {
  const began = Date.now();
  const loadAtStart = loadavg()[0]!;
  const rows: RoundRow[] = [];
  const rebuilds: RebuildResult[] = [];
  const comparedRebuilds: RebuildResult[] = [];
  const verifies: RebuildResult[] = [];
  const comparedVerifies: RebuildResult[] = [];
  const rebuildFailures: string[] = [];
  const eventsDir = tempDir('rebuild');
  let generated: Awaited<ReturnType<typeof generateEvents>> | undefined;
  let scale: ScaleRow[] = [];
  try {
    if (opts.events > 0) {
      log(`writing ${f(opts.events)} events through the event store…`);
      generated = await generateEvents(eventsDir, opts.events);
      log(
        `  ${f(generated.seconds, 1)} s (${f(opts.events / generated.seconds)} events/s appended), events.db ${f(generated.bytes / 1e6)} MB`,
      );
    }
    for (let round = 0; round < opts.rounds; round++) {
      for (const scenario of SCENARIOS) {
        // Alternate: each round starts with a different target.
        for (const target of benchTargets.map((_, i) => benchTargets[(i + round) % benchTargets.length]!)) {
          const row = await runScenario(scenario, target, opts);
          rows.push({ ...row, round: round + 1 });
          log(
            `round ${round + 1} ${scenario.padEnd(7)} ${target.padEnd(7)} ${f(row.rps)} req/s p50 ${row.p50} ms p99 ${row.p99} ms errors ${row.errors} non-2xx ${row.non2xx} peak ${f(row.peakRssMb)} MB CPU ${f(row.cpuUsPerRequest)} µs/req`,
          );
        }
      }
      if (generated) {
        // With --compare the two rebuilds alternate too: each round starts with the other one.
        const order = opts.compare ? (round % 2 === 0 ? ['service', 'compared'] : ['compared', 'service']) : ['service'];
        for (const which of order) {
          try {
            const r = await runRebuild(eventsDir, opts.events, generated.presets, which === 'compared' ? { root: opts.compare } : {});
            (which === 'compared' ? comparedRebuilds : rebuilds).push(r);
            log(
              `round ${round + 1} rebuild ${which === 'compared' ? '(compared) ' : ''}${f(r.eventsPerSecond)} events/s (${f(r.seconds, 1)} s) peak ${f(r.peakRssMb)} MB`,
            );
            // npm run verify over what that build just rebuilt: every event folded, no difference.
            const v = await runVerify(eventsDir, opts.events, generated.presets, which === 'compared' ? { root: opts.compare } : {});
            (which === 'compared' ? comparedVerifies : verifies).push(v);
            log(
              `round ${round + 1} verify ${which === 'compared' ? '(compared) ' : ''}${f(v.eventsPerSecond)} events/s (${f(v.seconds, 1)} s) peak ${f(v.peakRssMb)} MB CPU ${f(v.cpuUsPerEvent)} µs/event`,
            );
          } catch (error) {
            rebuildFailures.push(`${which}: ${(error as Error).message.split('\n').slice(0, 3).join(' ')}`);
            log(`round ${round + 1} rebuild FAILED: ${rebuildFailures[rebuildFailures.length - 1]}`);
          }
        }
      }
    }
    // Last, because its writes change the data set: the service over the rebuilt 100,000 presets.
    if (generated && rebuildFailures.length === 0) {
      log(`the service over the rebuild's ${f(generated.presets)} presets…`);
      scale = await runAtScale(eventsDir, generated.presets, opts);
      for (const r of scale)
        log(
          `at scale ${r.scenario.padEnd(7)} ${f(r.rps)} req/s p99 ${r.p99} ms errors ${r.errors} non-2xx ${r.non2xx} peak ${f(r.peakRssMb)} MB`,
        );
    }
  } finally {
    rmSync(eventsDir, { recursive: true, force: true });
  }
  const sizes = growthSizes(opts.growth);
  const growth = sizes.length > 0 ? await runGrowth(sizes, opts, log) : undefined;
  const webhooks =
    opts.webhooks > 0
      ? await runWebhookBench(
          {
            webhooks: opts.webhooks,
            events: opts['webhook-events'],
            rate: opts['webhook-rate'],
            seconds: opts['webhook-seconds'],
            rounds: opts['webhook-rounds'],
            connections: opts.connections,
            warmup: opts.warmup,
          },
          log,
        )
      : undefined;
  const resolve =
    opts['resolve-rounds'] > 0
      ? await runResolveBench(
          {
            rounds: opts['resolve-rounds'],
            duration: opts.duration,
            warmup: opts.warmup,
            connections: opts.connections,
            clientSeconds: opts['client-seconds'],
            writes: opts['propagation-writes'],
          },
          log,
        )
      : undefined;
  const template =
    opts['template-rounds'] > 0
      ? await runTemplateBench(
          {
            rounds: opts['template-rounds'],
            duration: opts.duration,
            warmup: opts.warmup,
            connections: opts.connections,
            clientSeconds: opts['client-seconds'],
          },
          log,
        )
      : undefined;
  const consumers =
    opts['consumer-events'] > 0 || opts['scrape-rounds'] > 0
      ? await runConsumerBench(
          {
            events: opts['consumer-events'],
            rounds: opts['scrape-rounds'],
            duration: opts.duration,
            warmup: opts.warmup,
            connections: opts.connections,
            compare: opts.compare || undefined,
          },
          log,
        )
      : undefined;
  const split =
    opts['split-rounds'] > 0
      ? await runSplitBench(
          {
            rounds: opts['split-rounds'],
            duration: Math.min(opts.duration, 5),
            warmup: opts.warmup,
            connections: opts.connections,
            'client-pairs': opts['split-client-pairs'],
          },
          log,
        )
      : undefined;
  const isolation: IsolationResult[] = [];
  for (let i = 0; i < opts.isolation; i++) {
    isolation.push(
      await runIsolationBench(
        {
          events: opts['isolation-events'],
          sse: 50,
          webhooks: 30,
          scaleTo: opts['isolation-subscribers'],
          samples: 1000,
          idleSeconds: opts['isolation-seconds'],
          liveSse: 100,
          liveWrites: 50,
        },
        log,
      ),
    );
  }
  let profile: ProfileSummary | undefined;
  if (opts.profile) profile = await profileService(opts.profile as Scenario);
  report({
    rows,
    rebuilds,
    comparedRebuilds,
    verifies,
    comparedVerifies,
    rebuildFailures,
    scale,
    growth,
    webhooks,
    resolve,
    template,
    consumers,
    split,
    isolation,
    profile,
    seconds: (Date.now() - began) / 1000,
    load: [loadAtStart, loadavg()[0]!],
  });
};

/** One more run of a scenario with `node --cpu-prof` on the service (not part of the numbers above). */
const profileService = async (scenario: Scenario): Promise<ProfileSummary> => {
  const dir = tempDir('profile');
  log(`profiling the service during "${scenario}"…`);
  await runScenario(scenario, 'service', { ...opts, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
  const file = readdirSync(dir).find((n) => n.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile in ${dir}`);
  log(`profile kept at ${join(dir, file)} (open it in Chrome DevTools › Performance)`);
  return summarize(join(dir, file), 15);
};

type RoundRow = Row & { round: number };
interface Run {
  rows: RoundRow[];
  rebuilds: RebuildResult[];
  comparedRebuilds: RebuildResult[];
  verifies: RebuildResult[];
  comparedVerifies: RebuildResult[];
  rebuildFailures: string[];
  scale: ScaleRow[];
  growth?: GrowthResult;
  webhooks?: WebhookBenchResult;
  resolve?: ResolveBenchResult;
  template?: TemplateBenchResult;
  consumers?: ConsumerBenchResult;
  split?: SplitBenchResult;
  isolation: IsolationResult[];
  profile?: ProfileSummary;
  seconds: number;
  load: number[];
}

const report = ({
  rows,
  rebuilds,
  comparedRebuilds,
  verifies,
  comparedVerifies,
  rebuildFailures,
  scale,
  growth,
  webhooks,
  resolve,
  template,
  consumers,
  split,
  isolation,
  profile,
  seconds,
  load,
}: Run) => {
  const of = (s: Scenario, t: Target) => rows.filter((r) => r.scenario === s && r.target === t);
  const med = (s: Scenario, t: Target) => {
    const rs = of(s, t);
    return {
      scenario: s,
      target: t,
      rps: median(rs.map((r) => r.rps)),
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
      errors: rs.reduce((a, r) => a + r.errors, 0),
      non2xx: rs.reduce((a, r) => a + r.non2xx, 0),
      accepted202: rs.reduce((a, r) => a + (r.statuses['202'] ?? 0), 0),
      peakRssMb: Math.max(...rs.map((r) => r.peakRssMb)),
      cpuUsPerRequest: median(rs.map((r) => r.cpuUsPerRequest)),
      loadGenCpuUsPerRequest: median(rs.map((r) => r.loadGenCpuUsPerRequest)),
    };
  };
  const medians = SCENARIOS.flatMap((s) => benchTargets.map((t) => med(s, t)));
  const m = (s: Scenario, t: Target) => medians.find((x) => x.scenario === s && x.target === t)!;
  const rebuild =
    rebuilds.length > 0
      ? {
          eventsPerSecond: median(rebuilds.map((r) => r.eventsPerSecond)),
          seconds: median(rebuilds.map((r) => r.seconds)),
          peakRssMb: Math.max(...rebuilds.map((r) => r.peakRssMb)),
          command: rebuilds[0]!.command,
          cpuUsPerEvent: median(rebuilds.map((r) => r.cpuUsPerEvent)),
        }
      : undefined;

  const mc = machine();
  const lines: string[] = [
    `presets benchmark — ${mc.cpu}, ${mc.cores} cores, node ${mc.node}, ${mc.platform}`,
    `${opts.rounds} round(s) × ${opts.duration} s per scenario after ${opts.warmup} s of warm-up, ${opts.connections} connections over loopback; medians of the rounds; ` +
      'peak RSS = highest VmHWM of the rounds, a fresh process per scenario; service at LOG_LEVEL=warn (request logging not measured)',
    'CPU µs/req = CPU time (all threads, user + system) the target used during the measured window, per request; autocannon µs/req = the same for the load generator, which shares the cores',
    `load generator (autocannon) on the same cores; 1-min load average ${f(load[0]!, 1)} at start, ${f(load[1]!, 1)} at end`,
    '',
    // With --rounds 0 (growth alone, say) there is no scenario to show.
    ...(rows.length > 0 || rebuild
      ? [
          `| scenario | target  |      req/s | p50 ms | p99 ms | errors | non-2xx | peak RSS MB | CPU µs/req | autocannon µs/req |`,
          `|----------|---------|-----------:|-------:|-------:|-------:|--------:|------------:|-----------:|------------------:|`,
        ]
      : []),
    ...(rows.length > 0 ? medians : []).map(
      (r) =>
        `| ${r.scenario.padEnd(8)} | ${r.target.padEnd(7)} | ${f(r.rps).padStart(10)} | ${f(r.p50, 1).padStart(6)} | ${f(r.p99, 1).padStart(6)} | ${String(r.errors).padStart(6)} | ${String(r.non2xx).padStart(7)} | ${f(r.peakRssMb).padStart(11)} | ${f(r.cpuUsPerRequest).padStart(10)} | ${f(r.loadGenCpuUsPerRequest).padStart(17)} |`,
    ),
    ...(rebuild
      ? [
          `| rebuild  | service | ${`${f(rebuild.eventsPerSecond)} ev/s`.padStart(10)} |      — |      — |      0 |       — | ${f(rebuild.peakRssMb).padStart(11)} | ${`${f(rebuild.cpuUsPerEvent)}/event`.padStart(10)} |                 — |`,
          '',
          `rebuild: ${f(opts.events)} events (${f(opts.events / 10)} presets × 10) replayed by \`${rebuild.command}\` in ${f(rebuild.seconds, 1)} s (median)`,
        ]
      : []),
    ...verifyLines(verifies, [], f).table,
    ...(scale.length > 0
      ? [
          '',
          'the service over the rebuilt data set (one process, one round, a random preset per request or connection):',
          '',
          '| at scale | presets |  req/s | p50 ms | p99 ms | errors | non-2xx | peak RSS MB | CPU µs/req |',
          '|----------|--------:|-------:|-------:|-------:|-------:|--------:|------------:|-----------:|',
          ...scale.map((r) => scaleLine(r)),
        ]
      : []),
    ...(growth
      ? [
          '',
          'growth: the same load over presets of one version each, written through the event store and rebuilt, one process per size:',
          '',
          '| growth   |   presets |  req/s | p50 ms | p99 ms | errors | non-2xx | peak RSS MB | CPU µs/req |',
          '|----------|----------:|-------:|-------:|-------:|-------:|--------:|------------:|-----------:|',
          ...growth.runs.flatMap((g) => g.rows.map((r) => scaleLine(r, 9))),
          '',
          `growth: ready after ${growth.runs.map((g) => `${f(g.startSeconds, 2)} s at ${f(g.presets)} presets`).join(', ')} (spawn to the first 200 of /health/ready)`,
          `growth: peak RSS ${growth.runs.map((g) => `${f(g.peakRssMb)} MB at ${f(g.presets)} presets`).join(', ')}: ${f(Math.abs(growth.growthMb), 1)} MB ${growth.growthMb >= 0 ? 'more' : 'less'} at the largest, allowed ${f(growth.allowanceMb, 1)} MB (the configured SQLite page caches and document cache)`,
        ]
      : []),
    ...(webhooks
      ? [
          '',
          `webhooks (${webhooks.webhooks} webhooks → one receiver on loopback answering 204, one service process, peak RSS ${f(webhooks.peakRssMb)} MB):`,
          `webhooks: replay of ${f(webhooks.replayed.deliveries / webhooks.webhooks)} events to each: ${f(webhooks.replayed.perSecond)} deliveries/s (${f(webhooks.replayed.deliveries)} in ${f(webhooks.replayed.seconds, 2)} s)`,
          `webhooks: ${f(opts['webhook-rate'])} writes/s and reads at full load, ${f(opts['webhook-rounds'])} × ${f(opts['webhook-seconds'])} s with delivery: lag from a write's answer to its delivery p50 ${f(webhooks.lag.p50, 1)} ms, p99 ${f(webhooks.lag.p99, 1)} ms, max ${f(webhooks.lag.max, 1)} ms over ${f(webhooks.lag.deliveries)} deliveries (${f(webhooks.lag.perSecond)}/s), ${webhooks.lag.missing} missing`,
          `webhooks: reads/s with delivery ${webhooks.reads.withDelivery.map((r) => f(r)).join(', ')}; webhooks paused ${webhooks.reads.without.map((r) => f(r)).join(', ')}; ratios by round ${webhooks.reads.ratios.map((r) => f(r, 2)).join(', ')}`,
          ...(webhooks.receiverAlone
            ? [
                `webhooks: the receiver alone (webhooks paused, a raw sender in another process sending it a delivery's bytes at the same rate): reads/s ${webhooks.receiverAlone.reads.map((r) => f(r)).join(', ')}; ratios to paused by round ${webhooks.receiverAlone.ratios.map((r) => f(r, 2)).join(', ')}; ${f(webhooks.receiverAlone.ratio, 2)}× at the median (what the receiver on the same cores costs the reads by itself)`,
              ]
            : []),
        ]
      : []),
    ...(consumers?.drain
      ? [
          '',
          `consumer group: ${f(consumers.drain.events)} events drained over HTTP with max 1000 (presets/client consume() in its own process, each fetch acknowledging the batch before, ${f(consumers.drain.batches)} batches): ${f(consumers.drain.perSecond)} events/s (${f(consumers.drain.seconds, 1)} s)`,
        ]
      : []),
    ...(consumers?.scrape
      ? [
          `metrics: one scrape costs the service ${f(consumers.scrape.scrapeCpuMs, 2)} ms of CPU: at one a second, ${f(consumers.scrape.cpuShare * 100, 2)} % of the ${f(consumers.scrape.readsCpuMsPerSecond)} ms/s the reads take; reads with a /metrics scrape every second ${f(consumers.scrape.ratio, 3)}× reads without, CPU per read ${f(consumers.scrape.cpuRatio, 3)}× (medians of ${consumers.scrape.rounds} alternated rounds: ${consumers.scrape.withRps.map((r) => f(r)).join(', ')} vs ${consumers.scrape.withoutRps.map((r) => f(r)).join(', ')} req/s; ${consumers.scrape.scrapes} scrapes, p50 ${f(consumers.scrape.scrapeMsP50, 1)} ms each)`,
          ...(consumers.scrape.builds
            ? [
                `metrics, this build against the compared one (${consumers.scrape.rounds} alternated rounds, a fresh service each): ${f(median(consumers.scrape.builds.service.cpuMs), 2)} against ${f(median(consumers.scrape.builds.compared.cpuMs), 2)} ms of CPU a scrape (rounds ${consumers.scrape.builds.service.cpuMs.map((c) => f(c, 2)).join(', ')} against ${consumers.scrape.builds.compared.cpuMs.map((c) => f(c, 2)).join(', ')}), peak RSS ${f(median(consumers.scrape.builds.service.peakMb))} against ${f(median(consumers.scrape.builds.compared.peakMb))} MB`,
              ]
            : []),
        ]
      : []),
    ...(resolve
      ? [
          '',
          `using a preset: POST /api/v1/resolve/chat/completions naming one hot preset, against raw Koa answering the same POST (${opts['resolve-rounds']} round(s), medians):`,
          '',
          '| resolve  | target  |  req/s | p50 ms | p99 ms | errors | non-2xx | CPU µs/req |',
          '|----------|---------|-------:|-------:|-------:|-------:|--------:|-----------:|',
          ...(['service', 'rawKoa'] as const).map((t) => {
            const of = resolve.http.rows.filter((r) => r.target === t);
            const m = resolve.http[t];
            return `| resolve  | ${t.padEnd(7)} | ${f(m.rps).padStart(6)} | ${f(m.p50, 1).padStart(6)} | ${f(m.p99, 1).padStart(6)} | ${String(of.reduce((a, r) => a + r.errors, 0)).padStart(6)} | ${String(of.reduce((a, r) => a + r.non2xx, 0)).padStart(7)} | ${f(median(of.map((r) => r.cpuUsPerRequest))).padStart(10)} |`;
          }),
          '',
          `resolve: service/rawKoa ${f(resolve.http.ratio, 2)}× req/s (rounds ${resolve.http.roundRatios.map((r) => `${f(r, 2)}×`).join(', ')})`,
          `resolve client: ${f(resolve.client.perSecond)} resolves/s on one core (${f(resolve.client.resolves)} in ${f(resolve.client.seconds, 2)} s, one caller awaiting each; ${f(resolve.client.cpuUsPerResolve, 1)} µs CPU per resolve)`,
          `resolve propagation: from a write's answer to the client resolving its version p50 ${f(resolve.propagation.p50, 1)} ms, p99 ${f(resolve.propagation.p99, 1)} ms, max ${f(resolve.propagation.max, 1)} ms over ${f(resolve.propagation.writes - resolve.propagation.missing)} writes, ${resolve.propagation.missing} missing`,
        ]
      : []),
    ...(template
      ? [
          '',
          `a templated preset (three variables, one #if) against the same preset without a template, resolving to the same request (${opts['template-rounds']} alternated round(s) of one service each, medians):`,
          '',
          '| resolve   | preset    |  req/s | CPU µs/req | errors | non-2xx |',
          '|-----------|-----------|-------:|-----------:|-------:|--------:|',
          ...(['plain', 'templated'] as const).map((kind) => {
            const of = template.http.rows.filter((r) => r.kind === kind);
            const m = template.http[kind];
            return `| resolve   | ${kind.padEnd(9)} | ${f(m.rps).padStart(6)} | ${f(m.cpuUsPerRequest).padStart(10)} | ${String(of.reduce((a, r) => a + r.errors, 0)).padStart(6)} | ${String(of.reduce((a, r) => a + r.non2xx, 0)).padStart(7)} |`;
          }),
          '',
          `templated resolve: templated/plain ${f(template.http.ratio, 2)}× req/s (rounds ${template.http.roundRatios.map((r) => `${f(r, 2)}×`).join(', ')})`,
          `templated resolve client: ${f(template.client.templated.perSecond)} resolves/s on one core (${f(template.client.templated.cpuUsPerResolve, 1)} µs CPU each); without a template ${f(template.client.plain.perSecond)} (${f(template.client.plain.cpuUsPerResolve, 1)} µs), ${template.client.blocks} alternated pairs of 1,000`,
        ]
      : []),
    ...(isolation.length > 0
      ? [
          '',
          `isolation: ${f(isolation[0]!.events)} events in workspace A, subscribers idle in an empty workspace B; A's reads (sequential, one connection) and the service's CPU while nobody writes:`,
          '',
          '| run | B holds | p50 ms | p95 ms | max ms | idle CPU % of a core |',
          '|----:|---------|-------:|-------:|-------:|---------------------:|',
          ...isolation.flatMap((run, i) =>
            run.phases.map(
              (p) =>
                `| ${i + 1} | ${`${p.sse} streams, ${p.webhooks} webhooks`.padEnd(25)} | ${f(p.p50, 2).padStart(6)} | ${f(p.p95, 2).padStart(6)} | ${f(p.max, 1).padStart(6)} | ${f(p.idleCpuPercent, 1).padStart(20)} |`,
            ),
          ),
          '',
          ...isolation.map(
            (run, i) =>
              `isolation run ${i + 1}: a write to ${run.lag.streams} event streams of A, commit → arrival p50 ${f(run.lag.p50, 1)} ms, p99 ${f(run.lag.p99, 1)} ms, max ${f(run.lag.max, 1)} ms over ${f(run.lag.deliveries)} deliveries, ${run.lag.missing} missing; ${run.framesInB} frames reached B`,
          ),
        ]
      : []),
    '',
  ];
  const ratio = (a: number, b: number) => a / b;
  const ratios = {
    createRps: ratio(m('create', 'service').rps, m('create', 'crud').rps),
    createP99: ratio(m('create', 'service').p99, m('create', 'crud').p99),
    versionRps: ratio(m('version', 'service').rps, m('version', 'crud').rps),
    versionP99: ratio(m('version', 'service').p99, m('version', 'crud').p99),
    readRps: ratio(m('read', 'service').rps, m('read', 'rawKoa').rps),
  };
  // Within a round the three targets run back to back: its ratio is the fairest single comparison
  // on a noisy machine, and how far the rounds spread says how much the medians can be trusted.
  const rpsOf = (round: number, s: Scenario, t: Target) =>
    rows.find((r) => r.round === round && r.scenario === s && r.target === t)?.rps ?? NaN;
  const rounds = [...new Set(rows.map((r) => r.round))];
  const roundRatios = rounds.map((round) => ({
    round,
    createRps: rpsOf(round, 'create', 'service') / rpsOf(round, 'create', 'crud'),
    versionRps: rpsOf(round, 'version', 'service') / rpsOf(round, 'version', 'crud'),
    readRps: rpsOf(round, 'read', 'service') / rpsOf(round, 'read', 'rawKoa'),
  }));
  const each = (k: 'createRps' | 'versionRps' | 'readRps') => roundRatios.map((r) => `${f(r[k], 2)}×`).join(', ');
  if (rows.length > 0)
    lines.push(
      `ratios: create service/crud ${f(ratios.createRps, 2)}× req/s, ${f(ratios.createP99, 2)}× p99; ` +
        `version service/crud ${f(ratios.versionRps, 2)}× req/s, ${f(ratios.versionP99, 2)}× p99; read service/rawKoa ${f(ratios.readRps, 2)}× req/s`,
      `round by round: create service/crud ${each('createRps')}; version service/crud ${each('versionRps')}; read service/rawKoa ${each('readRps')}`,
    );
  const goals = goalsOf({
    scenarios: rows.length > 0 ? { median: (s, t) => m(s, t), rounds, rps: (round, s, t) => rpsOf(round, s, t) } : undefined,
    rebuilds,
    rebuildFailures,
    rebuildEvents: opts.events,
    verifies,
    scale,
    growth,
    webhooks,
    webhookEvents: opts['webhook-events'],
    resolve,
    template,
    consumers,
    split,
    isolation,
  });
  lines.push('', 'goals (this run):', '', ...formatGoals(goals));
  for (const failure of rebuildFailures) lines.push(`rebuild failed: ${failure}`);
  if (opts.compare)
    lines.push('', ...comparison(rows, medians, rebuilds, comparedRebuilds), ...verifyLines(verifies, comparedVerifies, f).compared);
  const accepted = medians.filter((r) => r.target === 'service').reduce((a, r) => a + r.accepted202, 0);
  if (accepted > 0)
    lines.push(`note: ${accepted} service writes answered 202 (read model behind the write by more than READ_YOUR_WRITES_TIMEOUT_MS)`);
  lines.push(`took ${f(seconds)} s`);
  if (profile)
    lines.push(
      '',
      formatSummary(profile, `CPU profile of the service during "${opts.profile}" (a separate run, not in the numbers above)`),
    );
  console.log(lines.join('\n'));

  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const file = join(ROOT, 'bench/results', `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    JSON.stringify(
      {
        machine: mc,
        loadAverage: load,
        options: opts,
        medians,
        rebuild,
        scale,
        growth,
        webhooks,
        resolve,
        template,
        consumers,
        split,
        ratios,
        roundRatios,
        goals,
        verify: verifyLines(verifies, [], f).median,
        rounds: { rows, rebuilds, verifies, comparedVerifies, rebuildFailures },
        profile,
        seconds,
      },
      null,
      2,
    ),
  );
  log(`results written to ${file}`);
};

/** This service against the compared build: medians, and each round's own ratio (the two ran in the same round). */
const comparison = (
  rows: RoundRow[],
  medians: Array<{ scenario: Scenario; target: Target; rps: number; p99: number; cpuUsPerRequest: number }>,
  rebuilds: RebuildResult[],
  compared: RebuildResult[],
): string[] => {
  const rounds = [...new Set(rows.map((r) => r.round))];
  const of = (round: number, s: Scenario, t: Target) => rows.find((r) => r.round === round && r.scenario === s && r.target === t);
  const lines = [
    `against ${opts.compare} (this service / compared; above 1 is better for req/s, below 1 for p99 and CPU):`,
    '',
    '| scenario | req/s this | req/s compared | ratio | rounds | p99 ratio | CPU µs/req ratio |',
    '|----------|-----------:|---------------:|------:|--------|----------:|-----------------:|',
  ];
  for (const s of SCENARIOS) {
    const [a, b] = [
      medians.find((m) => m.scenario === s && m.target === 'service')!,
      medians.find((m) => m.scenario === s && m.target === 'compared')!,
    ];
    const each = rounds.map((r) => `${f(of(r, s, 'service')!.rps / of(r, s, 'compared')!.rps, 2)}×`).join(', ');
    lines.push(
      `| ${s.padEnd(8)} | ${f(a.rps).padStart(10)} | ${f(b.rps).padStart(14)} | ${f(a.rps / b.rps, 2).padStart(4)}× | ${each} | ${f(a.p99 / b.p99, 2).padStart(8)}× | ${f(a.cpuUsPerRequest / b.cpuUsPerRequest, 2).padStart(15)}× |`,
    );
  }
  if (rebuilds.length > 0 && compared.length > 0) {
    const [a, b] = [median(rebuilds.map((r) => r.eventsPerSecond)), median(compared.map((r) => r.eventsPerSecond))];
    const each = rebuilds.map((r, i) => (compared[i] ? `${f(r.eventsPerSecond / compared[i]!.eventsPerSecond, 2)}×` : '—')).join(', ');
    lines.push(
      `| rebuild  | ${`${f(a)} ev/s`.padStart(10)} | ${`${f(b)} ev/s`.padStart(14)} | ${f(a / b, 2).padStart(4)}× | ${each} |         — | ${f(median(rebuilds.map((r) => r.cpuUsPerEvent)) / median(compared.map((r) => r.cpuUsPerEvent)), 2).padStart(15)}× |`,
    );
  }
  return lines;
};

const scaleLine = (r: ScaleRow, presetsWidth = 7) =>
  `| ${r.scenario.padEnd(8)} | ${f(r.presets).padStart(presetsWidth)} | ${f(r.rps).padStart(6)} | ${f(r.p50, 1).padStart(6)} | ${f(r.p99, 1).padStart(6)} | ${String(r.errors).padStart(6)} | ${String(r.non2xx).padStart(7)} | ${f(r.peakRssMb).padStart(11)} | ${f(r.cpuUsPerRequest).padStart(10)} |`;

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
