/**
 * Consumer groups and metrics (`npm run bench` runs both after the webhooks):
 * - drain: `events` events written straight through the event store (as the rebuild's data set),
 *   then one consumer group read from the beginning to the end over HTTP by presets/client's
 *   `consume()` with `max: 1000` in a process of its own (bench/drainConsumer.ts), each batch
 *   acknowledged by the next fetch; events per second from the first fetch to the last ack.
 *   The service runs with PROJECTOR=off: a consumer group reads the event store, not the read model.
 * - scrape cost: a service over `scrapePresets` presets serves reads (autocannon) alternately with
 *   and without a scraper fetching /metrics every second, `rounds` times: the ratio of the medians
 *   of req/s and of the service's CPU per request. Then the cost itself, which those rounds cannot
 *   resolve to 2 % on a 2-core machine (their req/s spread by ±10 % from round to round): the
 *   service's CPU for one scrape (100 scrapes back to back, idle otherwise), and that CPU at one
 *   scrape a second as a share of the CPU the service spends a second serving reads. The service
 *   has `SCRAPE_GROUPS` consumer groups that have read nothing, each behind by every event (the
 *   10,000 a lag is counted up to): a scrape counts each one's lag, the case an operator scrapes
 *   for. With `--compare DIR`, that cost (and the service's peak RSS) is also measured for this
 *   build and DIR's, each on a fresh service of its own, alternated.
 */
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Options } from 'autocannon';
import { generateEvents } from './rebuild';
import { API_KEY, AUTH, load, median, procCpuMs, procMb, runNode, sleep, startChild, tempDir, withCpu, writeKeysFile } from './lib';

export interface ConsumerBenchOptions {
  events: number;
  rounds: number;
  duration: number;
  warmup: number;
  connections: number;
  /** Another checkout's built service (`--compare DIR`): the scrape's own cost measured on both, alternated. */
  compare?: string;
}

/** One build's scrape cost, alone on a fresh service each round: a figure per round, in the order run. */
export interface ScrapeCost {
  /** The service's CPU per scrape, ms (100 scrapes back to back). */
  cpuMs: number[];
  /** The service's peak RSS after them, MB (the service started afresh each round). */
  peakMb: number[];
}

export interface ConsumerBenchResult {
  drain?: { events: number; seconds: number; perSecond: number; batches: number };
  scrape?: {
    rounds: number;
    withoutRps: number[];
    withRps: number[];
    /** Median req/s scraping ÷ median req/s not scraping. */
    ratio: number;
    /** Median CPU µs per read scraping ÷ not scraping. */
    cpuRatio: number;
    scrapes: number;
    scrapeMsP50: number;
    /** The service's CPU per scrape, ms (100 scrapes back to back). */
    scrapeCpuMs: number;
    /** The service's CPU a second while serving reads without a scraper, ms (median of the rounds). */
    readsCpuMsPerSecond: number;
    /** scrapeCpuMs ÷ readsCpuMsPerSecond: the share of the reads' CPU one scrape a second takes. */
    cpuShare: number;
    /** With `compare`: this build's scrape cost and the compared one's, each on a service of its own, alternated. */
    builds?: { service: ScrapeCost; compared: ScrapeCost };
  };
}

const SCRAPE_PRESETS = 10_000;
/** Consumer groups whose lag each scrape counts (the module's comment). */
const SCRAPE_GROUPS = 4;

export const runConsumerBench = async (o: ConsumerBenchOptions, log: (line: string) => void): Promise<ConsumerBenchResult> => {
  const result: ConsumerBenchResult = {};
  if (o.events > 0) result.drain = await drain(o.events, log);
  if (o.rounds > 0) result.scrape = await scrapeCost(o, log);
  return result;
};

const drain = async (events: number, log: (line: string) => void) => {
  const dir = tempDir('consumer');
  try {
    log(`consumer group: writing ${events.toLocaleString('en-US')} events…`);
    await generateEvents(dir, events);
    const service = await startChild(
      'dist/src/main.js',
      { DATA_DIR: dir, API_KEYS_FILE: writeKeysFile(dir, ['events:consume']), LOG_LEVEL: 'warn', PROJECTOR: 'off', WEBHOOKS: 'off' },
      [],
      '/health/live',
    );
    try {
      const groupUrl = `${service.url}/api/v1/consumer-groups/bench`;
      const put = await fetch(groupUrl, { method: 'PUT', headers: AUTH, body: JSON.stringify({ start: 'beginning' }) });
      if (put.status !== 201) throw new Error(`PUT group: ${put.status} ${await put.text()}`);
      const run = await runNode(['dist/bench/drainConsumer.js', service.url, API_KEY, 'bench', String(events)]);
      if (run.code !== 0) throw new Error(`the drain's consumer failed: ${run.err}`);
      const { events: seen, seconds } = JSON.parse(run.out) as { events: number; seconds: number };
      if (seen !== events) throw new Error(`the group handed out ${seen} events of ${events}`);
      const group = (await (await fetch(groupUrl, { headers: AUTH })).json()) as { data: { lag: number; lease: unknown } };
      if (group.data.lag !== 0 || group.data.lease !== null) throw new Error(`the drained group: ${JSON.stringify(group.data)}`);
      const batches = Math.ceil(seen / 1000);
      log(
        `consumer group: drained ${seen.toLocaleString('en-US')} events in ${seconds.toFixed(1)} s (${Math.round(seen / seconds).toLocaleString('en-US')} events/s)`,
      );
      return { events: seen, seconds, perSecond: seen / seconds, batches };
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

/** A service of `script` over `dir` (10,000 presets), with its SCRAPE_GROUPS groups that have read nothing. */
const scrapeService = async (dir: string, script = 'dist/src/main.js') => {
  const service = await startChild(script, {
    DATA_DIR: dir,
    API_KEYS_FILE: writeKeysFile(dir, ['events:consume']),
    LOG_LEVEL: 'warn',
    WEBHOOKS: 'off',
  });
  try {
    for (let g = 0; g < SCRAPE_GROUPS; g++) {
      const put = await fetch(`${service.url}/api/v1/consumer-groups/lagging-${g}`, {
        method: 'PUT',
        headers: AUTH,
        body: JSON.stringify({ start: 'beginning' }),
      });
      if (put.status !== 201 && put.status !== 200) throw new Error(`PUT group: ${put.status} ${await put.text()}`);
    }
  } catch (error) {
    await service.stop();
    throw error;
  }
  return service;
};

/** The service's CPU over 100 scrapes back to back, idle otherwise, ms a scrape. */
const scrapesCpuMs = async (service: { url: string; pid: number }) => {
  await sleep(1000);
  const before = procCpuMs(service.pid);
  for (let i = 0; i < 100; i++) await (await fetch(`${service.url}/metrics`)).text();
  return (procCpuMs(service.pid) - before) / 100;
};

/**
 * This build's scrape cost against `compare`'s, `rounds` times alternated, each on a service
 * started afresh over data of its own (the first start of each, which builds its read model, not counted).
 */
const compareScrapes = async (compare: string, rounds: number, log: (line: string) => void) => {
  const builds = { service: 'dist/src/main.js', compared: join(resolve(compare), 'dist/src/main.js') } as const;
  const dirs = { service: tempDir('scrape-this'), compared: tempDir('scrape-compared') };
  const costs = { service: { cpuMs: [], peakMb: [] } as ScrapeCost, compared: { cpuMs: [], peakMb: [] } as ScrapeCost };
  try {
    for (const which of ['service', 'compared'] as const) {
      await generateEvents(dirs[which], SCRAPE_PRESETS, 1);
      await (await scrapeService(dirs[which], builds[which])).stop();
    }
    for (let round = 0; round < rounds; round++) {
      for (const which of round % 2 === 0 ? (['service', 'compared'] as const) : (['compared', 'service'] as const)) {
        const service = await scrapeService(dirs[which], builds[which]);
        try {
          costs[which].cpuMs.push(await scrapesCpuMs(service));
          costs[which].peakMb.push(procMb(service.pid, 'VmHWM'));
        } finally {
          await service.stop();
        }
        log(
          `scrape cost round ${round + 1} ${which === 'compared' ? '(compared)' : '          '} ${costs[which].cpuMs.at(-1)!.toFixed(2)} ms of CPU a scrape, peak ${Math.round(costs[which].peakMb.at(-1)!)} MB`,
        );
      }
    }
    return costs;
  } finally {
    for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });
  }
};

const scrapeCost = async (o: ConsumerBenchOptions, log: (line: string) => void) => {
  const dir = tempDir('scrape');
  try {
    await generateEvents(dir, SCRAPE_PRESETS, 1);
    const service = await scrapeService(dir);
    try {
      const reads: Options = {
        url: service.url,
        connections: o.connections,
        headers: AUTH,
        requests: [
          {
            method: 'GET',
            path: '/api/v1/presets/p0',
            setupRequest: (req) => ({ ...req, path: `/api/v1/presets/p${Math.floor(Math.random() * SCRAPE_PRESETS)}` }),
          },
        ],
      };
      if (o.warmup) await load({ ...reads, duration: o.warmup });
      const withoutRps: number[] = [];
      const withRps: number[] = [];
      const withoutCpu: number[] = [];
      const withCpuUs: number[] = [];
      const readsCpu: number[] = [];
      const scrapeMs: number[] = [];
      for (let round = 0; round < o.rounds; round++) {
        // Alternate which condition goes first.
        for (const scraping of round % 2 === 0 ? [false, true] : [true, false]) {
          let stop = false;
          const scraper = (async () => {
            while (scraping && !stop) {
              const t = performance.now();
              const res = await fetch(`${service.url}/metrics`);
              await res.text();
              scrapeMs.push(performance.now() - t);
              await sleep(1000);
            }
          })();
          const r = await withCpu(service.pid, () => load({ ...reads, duration: o.duration }));
          stop = true;
          await scraper;
          (scraping ? withRps : withoutRps).push(r.rps);
          (scraping ? withCpuUs : withoutCpu).push(r.cpuUsPerRequest);
          if (!scraping) readsCpu.push((r.cpuUsPerRequest * r.rps) / 1000);
          log(
            `scrape cost round ${round + 1} ${scraping ? 'scraping every 1 s' : 'no scraper       '} ${Math.round(r.rps).toLocaleString('en-US')} req/s, ${Math.round(r.cpuUsPerRequest)} µs CPU each`,
          );
        }
      }
      // The scrape's own cost, with nothing else running: the service's CPU over 100 scrapes.
      const scrapeCpuMs = await scrapesCpuMs(service);
      const readsCpuMsPerSecond = median(readsCpu);
      log(
        `scrape cost: ${scrapeCpuMs.toFixed(2)} ms of service CPU per scrape; the reads took ${Math.round(readsCpuMsPerSecond)} ms of CPU a second`,
      );
      return {
        rounds: o.rounds,
        withoutRps,
        withRps,
        ratio: median(withRps) / median(withoutRps),
        cpuRatio: median(withCpuUs) / median(withoutCpu),
        scrapes: scrapeMs.length,
        scrapeMsP50: median(scrapeMs),
        scrapeCpuMs,
        readsCpuMsPerSecond,
        cpuShare: scrapeCpuMs / readsCpuMsPerSecond,
        ...(o.compare ? { builds: await compareScrapes(o.compare, o.rounds, log) } : {}),
      };
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
