/**
 * Webhook delivery (`npm run bench` runs it after the HTTP scenarios): the service as a child
 * process with N webhooks pointing at a receiver in this process (node:http on loopback,
 * answering 204), in two phases.
 * - throughput: `events` presets are written first; then each webhook is replayed from the start,
 *   and the receiver counts deliveries per second until every webhook has every event. The
 *   process's peak RSS is reset (/proc/<pid>/clear_refs) before the replay, so `replayPeakRssMb`
 *   is the peak through the replay alone.
 * - lag under read load: `rounds` rounds, each with two windows of `seconds` in alternating order,
 *   both with writes at a steady `rate` per second and autocannon reading a preset at full load
 *   (`connections`, in a worker thread of its own so that it does not delay the receiver): one
 *   with the webhooks active, one with them paused (the backlog the pause left is delivered
 *   before the next window starts). Lag is, for every write of the active windows and every
 *   webhook, the time from the write's answer at the client to its delivery at the receiver; the
 *   read ratio is the median reads/s with delivery over the median without. With
 *   `receiverWindows`, each round has a third window, in rotating order: the webhooks paused and
 *   a raw sender (rawSender.ts, another process) sending the receiver one of the service's real
 *   deliveries, bytes as they came, at the same rate; its ratio says what the receiver alone, on
 *   the same cores, costs the reads.
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { BODIES } from './bodies';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadavg } from 'node:os';
import {
  AUTH,
  flags,
  HOST,
  load,
  median,
  percentile,
  procCpuMs,
  procMb,
  sleep,
  startChild,
  tempDir,
  WORKSPACE_ID,
  writeKeysFile,
} from './lib';

export interface WebhookBenchOptions {
  webhooks: number;
  /** Events written before the throughput phase, each delivered to every webhook. */
  events: number;
  /** Writes per second in the lag phase. */
  rate: number;
  seconds: number;
  /** Alternated rounds of the lag-under-read-load phase (each: one window with delivery, one without). */
  rounds?: number;
  /** autocannon connections reading during those windows. */
  connections?: number;
  /**
   * Seconds of reads before the first window, not counted (3 by default, as the HTTP scenarios'
   * `--warmup`): the replay only wrote, so the read path would otherwise be compiled during the
   * first window, which is one with delivery in the first round.
   */
  warmup?: number;
  /** Node options for the service (`--cpu-prof --cpu-prof-dir=…` to profile it). */
  nodeArgs?: string[];
  /** The service's entry point: this checkout's build, or another's (`--compare DIR`). */
  script?: string;
  /** A third window a round: the webhooks paused, a raw sender feeding the receiver at the same rate (default true). */
  receiverWindows?: boolean;
}

/** The four goals of issue 27 (webhooks), each beside its measured value. */
export const WEBHOOK_GOALS = { deliveriesPerSecond: 10_000, replayPeakRssMb: 200, lagP99Ms: 50, readRatio: 0.9 } as const;

export interface WebhookBenchResult {
  webhooks: number;
  replayed: { deliveries: number; seconds: number; perSecond: number; cpuUsPerDelivery: number };
  /** Peak RSS of the service through the replay alone (its peak was reset just before). */
  replayPeakRssMb: number;
  lag: { writes: number; deliveries: number; missing: number; p50: number; p99: number; max: number; perSecond: number };
  /** Reads/s of each window, with delivery and with the webhooks paused, in the order they ran. */
  reads: { withDelivery: number[]; without: number[]; ratio: number; ratios: number[] };
  /** Reads/s of the receiver's own windows (paused, a raw sender at the same rate), their ratios to the paused windows, median over median. */
  receiverAlone?: { reads: number[]; ratios: number[]; ratio: number; sent: number; received: number };
  peakRssMb: number;
  errors: number;
}

/** Each goal as [what, measured, met]: for the report's goals table; the lag and reads goals only when a round measured them. */
export const webhookGoals = (r: WebhookBenchResult): Array<[string, string, boolean]> => {
  const goals: Array<[string, string, boolean]> = [
    [
      `replay ≥ ${f0(WEBHOOK_GOALS.deliveriesPerSecond)} deliveries/s`,
      `${f0(r.replayed.perSecond)}/s`,
      r.replayed.perSecond >= WEBHOOK_GOALS.deliveriesPerSecond,
    ],
    [
      `peak RSS through the replay ≤ ${WEBHOOK_GOALS.replayPeakRssMb} MB`,
      `${f0(r.replayPeakRssMb)} MB`,
      r.replayPeakRssMb <= WEBHOOK_GOALS.replayPeakRssMb,
    ],
  ];
  if (Number.isFinite(r.lag.p99))
    goals.push([
      `lag p99 ≤ ${WEBHOOK_GOALS.lagP99Ms} ms under read load`,
      `${r.lag.p99.toFixed(1)} ms`,
      r.lag.p99 <= WEBHOOK_GOALS.lagP99Ms,
    ]);
  if (Number.isFinite(r.reads.ratio))
    goals.push([
      `reads with delivery ≥ ${WEBHOOK_GOALS.readRatio}× without`,
      `${r.reads.ratio.toFixed(2)}×`,
      r.reads.ratio >= WEBHOOK_GOALS.readRatio,
    ]);
  return goals;
};

const f0 = (x: number) => Math.round(x).toLocaleString('en-US');
const RAW_PATH = '/raw';
/** A delivery's request as it came, to the raw sender's path: its headers as sent, its body. */
const rawRequest = (sample: { headers: IncomingHttpHeaders; body: Buffer }, host: string): Buffer => {
  const headers = Object.entries(sample.headers)
    .filter(([name]) => name !== 'host' && name !== 'connection')
    .map(([name, value]) => `${name}: ${Array.isArray(value) ? value.join(', ') : value}\r\n`)
    .join('');
  return Buffer.concat([Buffer.from(`POST ${RAW_PATH} HTTP/1.1\r\nhost: ${host}\r\n${headers}\r\n`), sample.body]);
};
const streamOf = (slug: string) => `preset-${WORKSPACE_ID}-${slug}`;

export const runWebhookBench = async (o: WebhookBenchOptions, log: (line: string) => void): Promise<WebhookBenchResult> => {
  // Arrivals by `<stream>@<revision>`, per webhook (the path's last segment).
  const arrivals = new Map<string, number[]>();
  let delivered = 0;
  /** The first delivery, as it came: what the raw sender sends again. */
  let sample: { headers: IncomingHttpHeaders; body: Buffer } | undefined;
  let rawReceived = 0;
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const body = Buffer.concat(chunks);
      const event = JSON.parse(body.toString('utf8')) as { stream: string; revision: number };
      if (req.url === RAW_PATH) {
        rawReceived++;
        res.statusCode = 204;
        return void res.end();
      }
      sample ??= { headers: req.headers, body };
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
  const receiverPort = (receiver.address() as AddressInfo).port;
  const receiverUrl = `http://${HOST}:${receiverPort}`;

  const dataDir = tempDir('webhooks');
  const service = await startChild(
    o.script ?? 'dist/src/main.js',
    {
      DATA_DIR: dataDir,
      API_KEYS_FILE: writeKeysFile(dataDir),
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    },
    o.nodeArgs ?? [],
  );
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
    // The peak from here on: 5 resets the process's peak RSS to its current RSS (Linux 4.0+).
    writeFileSync(`/proc/${service.pid}/clear_refs`, '5');
    const cpuBefore = procCpuMs(service.pid);
    const started = performance.now();
    for (const id of hooks) await api('POST', `/api/v1/webhooks/${id}/replay`, { after: '0' });
    const expected = o.events * o.webhooks;
    await waitFor(expected, 300_000);
    const replaySeconds = (performance.now() - started) / 1000;
    const replayPeakRssMb = procMb(service.pid, 'VmHWM');
    const replayed = {
      deliveries: delivered,
      seconds: replaySeconds,
      perSecond: delivered / replaySeconds,
      cpuUsPerDelivery: ((procCpuMs(service.pid) - cpuBefore) * 1000) / Math.max(1, delivered),
    };
    log(
      `webhooks: ${replayed.deliveries} deliveries in ${replaySeconds.toFixed(2)} s (${Math.round(replayed.cpuUsPerDelivery)} µs CPU each); ${rss()}`,
    );

    // Lag and reads: steady writes and reads at full load, with delivery and with the webhooks paused, alternated.
    const setStatus = async (status: 'active' | 'paused') => {
      for (const id of hooks) await api('PATCH', `/api/v1/webhooks/${id}`, { status });
    };
    const lags: number[] = [];
    let writes = 0;
    let missing = 0;
    let lagDeliveries = 0;
    let lagSeconds = 0;
    const reads = { withDelivery: [] as number[], without: [] as number[] };
    const alone = { reads: [] as number[], sent: 0, received: 0 };
    let n = 0;
    /** autocannon reading one preset at full load for `duration` seconds, in a worker thread of its own. */
    const readAtFullLoad = (duration: number) =>
      load({ url: `${service.url}/api/v1/presets/t0`, headers: AUTH, connections: o.connections ?? 32, duration, workers: 1 });
    /** The receiver's own window: a raw sender in another process, what it sent when stopped. */
    const startRawSender = async () => {
      if (!sample) throw new Error('no delivery reached the receiver to send again');
      const requestFile = join(dataDir, 'raw-request');
      writeFileSync(requestFile, rawRequest(sample, `${HOST}:${receiverPort}`));
      const child = spawn(
        process.execPath,
        [join(__dirname, 'rawSender.js'), String(receiverPort), String(o.webhooks), String(o.rate), requestFile],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let output = '';
      child.stdout.on('data', (c: Buffer) => (output += c.toString()));
      const exited = new Promise<number | null>((r) => child.on('exit', r));
      const first = rawReceived;
      const deadline = Date.now() + 10_000;
      while (rawReceived === first && Date.now() < deadline) await sleep(5);
      if (rawReceived === first) {
        child.kill('SIGTERM');
        throw new Error('the raw sender reached the receiver with nothing within 10 s');
      }
      return async () => {
        child.kill('SIGTERM');
        if ((await exited) !== 0) throw new Error(`the raw sender failed: ${output}`);
        alone.sent += (JSON.parse(output) as { sent: number }).sent;
      };
    };
    /** Each kind of window: where its reads/s go, and what it is called in the log. */
    const windows = {
      active: { reads: reads.withDelivery, label: 'with delivery' },
      paused: { reads: reads.without, label: 'webhooks paused' },
      receiver: { reads: alone.reads, label: 'webhooks paused, the receiver fed by a raw sender' },
    };
    const window = async (kind: keyof typeof windows) => {
      const active = kind === 'active';
      if (!active) await setStatus('paused');
      const receivedBefore = rawReceived;
      const stopRawSender = kind === 'receiver' ? await startRawSender() : undefined;
      arrivals.clear();
      const reading = readAtFullLoad(o.seconds);
      const pending: Array<Promise<{ key: string; answeredAt: number }>> = [];
      const total = Math.max(1, Math.round(o.rate * o.seconds));
      const windowStarted = performance.now();
      for (let i = 0; i < total; i++) {
        const due = windowStarted + (i * 1000) / o.rate;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        pending.push(create(`l${n++}`, i));
      }
      const answered = await Promise.all(pending);
      const read = await reading;
      await stopRawSender?.();
      alone.received += rawReceived - receivedBefore;
      windows[kind].reads.push(read.rps);
      if (read.errors > 0 || read.non2xx > 0) errors += read.errors + read.non2xx;
      if (active) {
        const before = lags.length;
        const deadline = Date.now() + 60_000;
        while (Date.now() < deadline && answered.some(({ key }) => (arrivals.get(key)?.length ?? 0) < o.webhooks)) await sleep(5);
        lagSeconds += (performance.now() - windowStarted) / 1000;
        writes += total;
        for (const { key, answeredAt } of answered) {
          const at = arrivals.get(key) ?? [];
          missing += Math.max(0, o.webhooks - at.length);
          for (const t of at) lags.push(t - answeredAt);
        }
        lagDeliveries += lags.length - before;
      } else {
        // What the pause held back is delivered before the next window starts.
        const owed = delivered + total * o.webhooks;
        await setStatus('active');
        await waitFor(owed, 120_000);
      }
      log(`webhooks: ${f0(read.rps)} reads/s ${windows[kind].label}`);
    };
    const rounds = o.rounds ?? 3;
    const warmup = o.warmup ?? 3;
    if (rounds > 0 && warmup > 0) await readAtFullLoad(warmup);
    const kinds = o.receiverWindows === false ? (['active', 'paused'] as const) : (['active', 'paused', 'receiver'] as const);
    for (let round = 0; round < rounds; round++) {
      // The kinds rotate, so each runs in every place in turn (two alternate).
      for (let i = 0; i < kinds.length; i++) await window(kinds[(i + round) % kinds.length]!);
    }
    const ratios = reads.withDelivery.map((r, i) => r / reads.without[i]!);
    const aloneRatios = alone.reads.map((r, i) => r / reads.without[i]!);
    const peakRssMb = procMb(service.pid, 'VmHWM');
    return {
      webhooks: o.webhooks,
      replayed,
      replayPeakRssMb,
      lag: {
        writes,
        deliveries: lagDeliveries,
        missing,
        perSecond: lagDeliveries / Math.max(lagSeconds, 1e-9),
        p50: percentile(lags, 50),
        p99: percentile(lags, 99),
        max: Math.max(...lags),
      },
      reads: { ...reads, ratios, ratio: median(reads.withDelivery) / median(reads.without) },
      ...(alone.reads.length > 0
        ? {
            receiverAlone: {
              reads: alone.reads,
              ratios: aloneRatios,
              ratio: median(alone.reads) / median(reads.without),
              sent: alone.sent,
              received: alone.received,
            },
          }
        : {}),
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

/**
 * `node dist/bench/webhooks.js [--compare DIR] [--runs 2] [--webhooks 4] [--events 5000] [--rate 100] [--seconds 10]
 * [--rounds 2] [--connections 32] [--warmup 3] [--no-receiver]`: this bench alone (`--no-receiver`: without the receiver's own windows); with `--compare`, this build and DIR's (built there),
 * alternated `runs` times with the same bench code, one JSON line per run and the medians.
 */
if (require.main === module) {
  const opts = flags({
    compare: '',
    runs: 1,
    webhooks: 4,
    events: 5000,
    rate: 100,
    seconds: 10,
    rounds: 2,
    connections: 32,
    warmup: 3,
    'no-receiver': false,
  });
  const builds: Array<[string, string | undefined]> = [['this', undefined]];
  if (opts.compare) builds.push(['compared', join(resolve(opts.compare), 'dist/src/main.js')]);
  void (async () => {
    const results = new Map<string, WebhookBenchResult[]>();
    for (let run = 0; run < opts.runs; run++) {
      for (const [name, script] of run % 2 === 0 ? builds : [...builds].reverse()) {
        const load = loadavg()[0]!;
        const r = await runWebhookBench({ ...opts, script, receiverWindows: !opts['no-receiver'] }, (line) =>
          console.log(`[${name} ${run + 1}] ${line}`),
        );
        results.set(name, [...(results.get(name) ?? []), r]);
        console.log(JSON.stringify({ build: name, run: run + 1, loadAverage: [load, loadavg()[0]], ...r }));
      }
    }
    for (const [name, rs] of results) {
      const m = (pick: (r: WebhookBenchResult) => number) => median(rs.map(pick));
      const goals = webhookGoals({
        ...rs[0]!,
        replayed: { ...rs[0]!.replayed, perSecond: m((r) => r.replayed.perSecond) },
        replayPeakRssMb: m((r) => r.replayPeakRssMb),
        lag: { ...rs[0]!.lag, p99: m((r) => r.lag.p99) },
        reads: { ...rs[0]!.reads, ratio: m((r) => r.reads.ratio) },
      });
      for (const [goal, value, met] of goals)
        console.log(`${name}: median of ${rs.length}: ${goal.padEnd(40)} ${value.padStart(12)} ${met ? 'met' : 'NOT met'}`);
      const alone = rs.flatMap((r) => (r.receiverAlone ? [r.receiverAlone.ratio] : []));
      if (alone.length > 0)
        console.log(
          `${name}: median of ${alone.length}: reads with the receiver alone fed by a raw sender ${median(alone).toFixed(2)}× paused`,
        );
    }
  })();
}
